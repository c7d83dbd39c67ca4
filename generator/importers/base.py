"""What every importer shares: the facts it emits, the source it names, and strict readers and value parsers.

An importer reads one public format and yields *facts*: a company (with the keys that identify it: CIK, ticker,
name, country), an IPO, a funding round, an investment, a filing. Values are already canonical CSV cells (ISO
dates, whole dollars, cents, slugs); ``merge`` decides what becomes of them. A file whose layout is not the one
expected fails with ``SourceError`` naming file, line and what was expected.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from generator.importers.mapping import Mapper


class SourceError(Exception):
    """A source file does not have the expected layout or holds a value that cannot be read."""

    def __init__(self, path: Path | str, line: int, reason: str, column: str = "") -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: column {column}: {reason}" if column else f"{where}: {reason}")


RANK = {"estimate": 1, "press-report": 2, "company-report": 3, "exchange-data": 4, "market-cap": 5, "sec-filing": 6}
"""How much a ``Basis`` weighs: a value of a higher-ranked basis replaces one of a lower (``merge``)."""


@dataclass(frozen=True)
class Source:
    name: str
    basis: str
    """Canonical ``Basis`` of the values this source gives."""
    description: str
    """One line for ``dataset.json`` ``sources``."""
    current_tickers: bool = False
    """Its tickers are the current listings of a ticker list (not a listing on a date)."""


@dataclass
class CompanyFact:
    name: str
    cik: str = ""
    ticker: str = ""
    country: str = ""
    """Canonical code when the source says; '' when it does not (matching then ignores the country)."""
    slug: str = ""
    """A slug the source suggests (a Crunchbase permalink): used for a new company, and to find it again."""
    date: str = ""
    """A listing date that goes with ``ticker`` (tickers are reused over the years)."""
    fields: dict[str, str] = field(default_factory=dict)
    """Values this source asserts, by canonical column."""
    defaults: dict[str, str] = field(default_factory=dict)
    """Values used only where the company has none yet (e.g. a status inferred, not stated)."""
    create: bool = True
    """False: only enrich a company that already exists (a filing of a CIK nobody listed)."""
    others_listed: frozenset[str] = frozenset()
    """The tickers a list of current listings gives (the fact's own among them): a record holding another of them is
    another listed company, whatever its name (Blue Owl Capital Corporation, OBDC, is not Blue Owl Capital Inc.)."""
    active: str = ""
    """A date the company was active (a funding round's): a record of its name founded later is another company."""
    former_names: list[tuple[str, str, str]] = field(default_factory=list)
    """(name, from, to) of names the company was known by, with the dates the source gives ('' when none)."""
    listed_on: str = ""
    """The day a dated list of current listings (the screener) says the company trades as ``ticker`` and is
    called ``name``: newer than an undated list's ticker of the company, it renames the record (``merge``)."""


@dataclass
class IpoFact:
    company: CompanyFact
    fields: dict[str, str]
    deal: str = ""
    """The source's own ID of the deal (Nasdaq's dealID): every row of one deal is one IPO of one company."""


@dataclass
class RoundFact:
    company: CompanyFact
    fields: dict[str, str]


@dataclass
class InvestorFact:
    name: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class InvestmentFact:
    """An investor in a company's round on a date (the round is found, or created, from company and date)."""

    company: CompanyFact
    investor: InvestorFact
    date: str
    amount: str


@dataclass
class FilingFact:
    company: CompanyFact
    fields: dict[str, str]


@dataclass
class FinancialFact:
    """One fiscal year of a company's reported figures (``fields``: canonical ``financials`` columns)."""

    company: CompanyFact
    fields: dict[str, str]


@dataclass
class NewsFact:
    """A news item about the company that held ``ticker`` on its date (``fields``: published_date, headline,
    publisher, url); ``where`` (file:line) names it in the import report when no company did."""

    ticker: str
    fields: dict[str, str]
    where: str


Fact = CompanyFact | IpoFact | RoundFact | InvestorFact | InvestmentFact | FilingFact | FinancialFact | NewsFact


@dataclass
class Context:
    """Passed to every importer: the mapping table (which counts misses) and counters of skipped input."""

    mapper: Mapper = field(default_factory=Mapper)
    skipped: dict[str, int] = field(default_factory=dict)
    where: dict[str, list[str]] = field(default_factory=dict)
    """reason -> the first ``SHOWN`` places (file:line, or file and the record's key) of what was skipped."""
    SHOWN = 5

    errors: list[SourceError] = field(default_factory=list)
    """Records the current file's reader skipped for a value it could not read (``record``); ``import`` fails the
    file with the first when no record of it could be read (the file is wrong as a whole)."""
    BAD_RECORDS = "records with a value that cannot be read (skipped)"

    file: str = ""
    """The file being read, as provenance names it: its path under the folder given to ``import`` (no machine
    path), or its name when the file itself was given."""
    place: str = ""
    """Where the record being read is: ``file:line`` or ``file#key`` (``at``); the file alone when its reader does
    not say. ``import`` notes it in ``provenance.csv`` for every record the facts read there touch."""

    def at(self, where: int | str) -> None:
        """The record being read starts on line ``where`` (an int) or is the document's ``where`` (a key; '': the
        document itself)."""
        key = str(where).replace(";", ",")
        self.place = f"{self.file}:{key}" if isinstance(where, int) else f"{self.file}#{key}" if key else self.file

    @contextmanager
    def record(self, path: Path | str, where: int | str) -> Iterator[None]:
        """Around the reading of one record: a ``SourceError`` it raises skips that record and is reported with
        its place, and the file's other records are read (a source's odd record stops nothing)."""
        self.at(where)
        try:
            yield
        except SourceError as error:
            self.errors.append(error)
            self.skip(self.BAD_RECORDS, where=str(error).replace(str(path), Path(path).name, 1) or str(where))

    def skip(self, reason: str, count: int = 1, where: str = "") -> None:
        """Count ``count`` records or values left out (or repaired) for ``reason``; ``where`` names the place."""
        self.skipped[reason] = self.skipped.get(reason, 0) + count
        if where and len(shown := self.where.setdefault(reason, [])) < self.SHOWN:
            shown.append(where)


def read_text(path: Path, encoding: str = "utf-8") -> str:
    data = path.read_bytes()
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise SourceError(path, line, f"column {column}: not valid {encoding} (byte 0x{data[error.start]:02x})") \
            from None


def csv_rows(
    path: Path, expected: list[str], encoding: str = "utf-8", delimiter: str = ",", ctx: Context | None = None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows of a CSV file whose header must be ``expected``, with the line each starts on; blank rows skipped. With
    ``ctx``, a row of the wrong number of fields is skipped and reported (without, it fails the file)."""
    with open(path, encoding="utf-8-sig" if encoding == "utf-8" else encoding, newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter, strict=True)  # streamed: memory flat in the file's size
        try:
            header = next(reader, None)
            if header is None or [h.strip() for h in header] != expected:
                found = ",".join(header or [])
                raise SourceError(path, 1, f"header must be {delimiter.join(expected)} (found {found or 'nothing'})")
            line = 1
            for values in reader:
                start, line = line + 1, reader.line_num
                if not any(v.strip() for v in values):
                    continue
                if len(values) != len(expected):
                    error = SourceError(path, start, f"expected {len(expected)} fields, found {len(values)}")
                    if ctx is None:
                        raise error
                    with ctx.record(path, start):
                        raise error
                    continue
                yield start, dict(zip(expected, values, strict=True))
        except csv.Error as error:
            raise SourceError(path, reader.line_num, f"malformed CSV: {error}") from None
        except UnicodeDecodeError:
            raise decode_error(path, encoding) from None


def decode_error(path: Path, encoding: str, chunk: int = 1 << 20) -> SourceError:
    """Where the first byte that is not ``encoding`` sits (line, column), found reading the file a chunk at a time."""
    import codecs

    decoder = codecs.getincrementaldecoder(encoding)()
    offset, line, line_start = 0, 1, 0
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:
                bad = max(error.start - len(decoder.getstate()[0]), 0)
                line += block.count(b"\n", 0, bad)
                last = block.rfind(b"\n", 0, bad)
                column = bad - last if last >= 0 else offset + bad - line_start + 1
                return SourceError(path, line, f"column {column}: not valid {encoding} (byte 0x{block[bad]:02x})")
            line += block.count(b"\n")
            if (last := block.rfind(b"\n")) >= 0:
                line_start = offset + last + 1
            offset += len(block)
    return SourceError(path, line, f"not valid {encoding}")


class Cells:
    """Parses one row's cells into canonical values, failing with file, line and column."""

    def __init__(self, path: Path | str, line: int, row: dict[str, str]) -> None:
        self.path, self.line, self.row = path, line, row

    def fail(self, column: str, reason: str) -> SourceError:
        return SourceError(self.path, self.line, f"{reason} (got {self.row.get(column, '')!r})", column)

    def text(self, column: str) -> str:
        return " ".join(self.row[column].split())

    def number(self, column: str, scale: int = 1, blank: tuple[str, ...] = ()) -> str:
        """A whole number from '$1,234.5', '12', '$180B' ... times ``scale``; '' for an empty cell."""
        raw = self.row[column].strip()
        if raw in ("", *blank):
            return ""
        cleaned = "".join(raw.replace("$", "").replace(",", "").split())
        suffix = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}.get(cleaned[-1:].upper(), 1)
        if suffix != 1:
            cleaned = cleaned[:-1]
        try:
            value = Decimal(cleaned) * scale * suffix
        except InvalidOperation:
            raise self.fail(column, "expected a number") from None
        if value < 0:
            raise self.fail(column, "expected a number of at least 0")
        return str(int(value.to_integral_value()))

    def cents(self, column: str) -> str:
        return self.number(column, scale=100)

    def date(self, column: str, formats: tuple[str, ...], blank: tuple[str, ...] = ()) -> str:
        raw = self.row[column].strip()
        if raw in ("", *blank):
            return ""
        for fmt in formats:
            try:
                return dt.datetime.strptime(raw, fmt).date().isoformat()
            except ValueError:
                continue
        raise self.fail(column, f"expected a date ({' or '.join(formats)})")


_SLUG_STRIP = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return _SLUG_STRIP.sub("-", ascii_text).strip("-")[:70].strip("-")


def clean(value: str | None) -> str:
    return " ".join((value or "").split())


_APOSTROPHE_S = re.compile(r"(?<=[a-z])(['’])([A-Z])\b")
_SMALL_WORDS = re.compile(r"(?<= )(Of|And|The|For|In|On|At|To|By|De|Du|Del|La|Da|Y)(?= )")
_CODES = re.compile(r"(/ ?[A-Z][a-z]{1,2}/?$|\b[A-Z][a-z]?&[A-Z]\b)")
"""EDGAR's state or ADR marker at the end (``/DE/``, ``/ADR``), initials joined by ``&`` (``AT&T``)."""


def display_name(value: str) -> str:
    """Collapse whitespace; an all-capitals name (EDGAR's conformed names) in title case, with a possessive's
    ``s`` and the small words inside a name in lower case: ``DICK'S SPORTING GOODS`` -> ``Dick's Sporting
    Goods``, ``BANK OF AMERICA CORP /DE/`` -> ``Bank of America Corp /DE/`` (EDGAR's state marker stays: it
    tells apart registrants of one name), ``AT&T INC.`` -> ``AT&T Inc.``."""
    text = clean(value)
    if not text.isupper():
        return text
    titled = _APOSTROPHE_S.sub(lambda m: m.group(1) + m.group(2).lower(), text.title())
    titled = _CODES.sub(lambda m: m.group(1).upper(), titled)
    return _SMALL_WORDS.sub(lambda m: m.group(1).lower(), titled)


_TICKER = re.compile(r"^[A-Z0-9.\-]{1,10}$")


def ticker(value: str, ctx: Context) -> str:
    """A ticker as the canonical column writes it: IPOScoop's units ``AAC'U`` become ``AAC.U``, a list
    ``GMXR/GMXRW`` keeps its first; anything else that is not a ticker is dropped and counted."""
    text = value.strip().upper().split("/")[0].replace("'", ".").strip(" )(")
    text = ".".join(text.split())
    if text and not _TICKER.match(text):
        ctx.skip("tickers that are not tickers (dropped)")
        return ""
    return text
