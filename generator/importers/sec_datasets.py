"""SEC Financial Statement Data Sets: one zip a quarter (``2009q3.zip`` ...) of every filer's XBRL statements, read
for the annual figures of ``sec_financials`` (see there for the rules).

Recognised by content: a zip whose members include ``sub.txt`` and ``num.txt`` (tab-separated, UTF-8, a header
row). ``sub.txt`` has a row a filing (adsh, cik, name, form, period, fy, filed ...); ``num.txt`` a row a value
(adsh, tag, version, ddate, qtrs, uom, [segments,] coreg, value, footnote: the SEC's re-issues added
``segments``, so columns are found by the header, not by position). Dates are ``YYYYMMDD``; ``ddate`` is rounded
by the SEC to the nearest month end, so the ``period_end`` of a year read here is that month end (the companyfacts
reader gives the exact day; importing both, the one imported first for a filing stays).

Streamed, never loaded: ``sub.txt`` gives the annual filings, then ``num.txt`` (400 MB in a recent quarter) is
read a line at a time, keeping only rows of those filings, of the concepts read (standard taxonomy tags: a
company's own tag of the same name is not the concept), without ``segments`` or ``coreg`` (a part of the company,
not the whole). A member larger than ``MAX_MEMBER_BYTES`` uncompressed (a zip bomb, or not the SEC's data) fails
the file before it is read on, as does a member reading longer than its header says. A row the SEC got wrong (a
value that is no number, a date that is not one) is skipped and counted with its ``file[member]:line``.

Each company is named by the filing: ``CompanyFact(name, cik=..., create=False)``; a CIK no company list made is
counted in the report, not created.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
import zlib
from collections.abc import Container, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

from generator.importers.base import CompanyFact, Context, Fact, FinancialFact, Source, SourceError, display_name
from generator.importers.sec_financials import ANNUAL_FORMS, CONCEPTS, Filing, Observation, annual_rows, figures_filing

SOURCE = Source("sec-financial-statements", "sec-filing", "SEC Financial Statement Data Sets (sec.gov, quarterly)")
DETECT_RANK = 51
"""After the company lists, and after companyfacts (which gives exact period ends) for the same filing."""
MEMBERS = ("sub.txt", "num.txt")
MAX_MEMBER_BYTES = 2 << 30
"""The most bytes a member is read to uncompressed (2 GiB; the largest ``num.txt`` are about 0.5 GB)."""
SUB_COLUMNS = ("adsh", "cik", "name", "form", "fy", "filed")
NUM_COLUMNS = ("adsh", "tag", "version", "ddate", "qtrs", "uom", "value")
TAXONOMY = {"us-gaap": "us-gaap", "ifrs": "ifrs-full", "ifrs-full": "ifrs-full", "dei": "dei"}
"""``version`` prefix (``us-gaap/2009``, ``ifrs/2019``, ``dei/2009``) -> taxonomy; a custom tag's is its adsh."""
_TAGS = frozenset(c for _, c in CONCEPTS)
BAD_ROW = "sec-financial-statements: rows with a value, date, CIK or field count that is not one (skipped)"


def detect(path: Path) -> int | None:
    if path.suffix.lower() != ".zip":
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return None
    return DETECT_RANK if set(MEMBERS) <= names else None


class _Capped(io.RawIOBase):
    """A member's bytes, failing once more than ``limit`` come out (a zip's sizes are the writer's word)."""

    def __init__(self, raw: io.BufferedIOBase, limit: int, where: str) -> None:
        self.raw, self.limit, self.where, self.count = raw, limit, where, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        self.count += len(data)
        if self.count > self.limit:
            raise SourceError(self.where, 0, f"more than {self.limit:,} bytes uncompressed: not read further "
                              "(a zip bomb, or not the SEC's data sets)")
        buffer[:len(data)] = data
        return len(data)


def _rows(archive: zipfile.ZipFile, path: Path, member: str, needed: tuple[str, ...],
          only: dict[str, Container[str]] | None = None) -> Iterator[tuple[str, int, dict[str, str]]]:
    """(where, line, row) of a tab-separated member, streamed; its header must name ``needed``. ``only``: rows
    whose value in each named column is not among those given are passed over unread (most of ``num.txt``); a row of
    the wrong field count comes as an empty row."""
    where = f"{path}[{member}]"
    info = archive.getinfo(member)
    if info.file_size > MAX_MEMBER_BYTES:
        raise SourceError(where, 0, f"{info.file_size:,} bytes uncompressed: more than the {MAX_MEMBER_BYTES:,} "
                          "this importer reads")
    with archive.open(info) as raw:
        text = io.TextIOWrapper(io.BufferedReader(_Capped(raw, min(info.file_size, MAX_MEMBER_BYTES), where)),
                                encoding="utf-8", newline="")
        reader = csv.reader(text, delimiter="\t", quoting=csv.QUOTE_NONE, strict=True)
        try:
            header = [h.strip().lstrip("\ufeff") for h in next(reader, [])]
            if not set(needed) <= set(header):
                raise SourceError(where, 1, f"header must name {', '.join(needed)} (found {', '.join(header)})")
            checks = [(header.index(column), allowed) for column, allowed in (only or {}).items()]
            width = len(header)
            for values in reader:
                if len(values) != width:
                    if values:
                        yield where, reader.line_num, {}
                    continue
                if all(values[i] in allowed for i, allowed in checks):
                    yield where, reader.line_num, dict(zip(header, values, strict=True))
        except UnicodeDecodeError as error:
            raise SourceError(where, reader.line_num + 1, f"not valid UTF-8 (byte 0x{error.object[error.start]:02x})") \
                from None
        except csv.Error as error:
            raise SourceError(where, reader.line_num, f"malformed: {error}") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as error:
            raise SourceError(where, reader.line_num, f"damaged zip member: {error}") from None


def _day(text: str) -> str:
    """``YYYYMMDD`` as an ISO date; '' for anything else."""
    text = text.strip()
    try:
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:])).isoformat() if len(text) == 8 else ""
    except ValueError:
        return ""


def filings(archive: zipfile.ZipFile, path: Path, ctx: Context,
            forms: frozenset[str] | None = ANNUAL_FORMS) -> dict[str, tuple[Filing, str, str]]:
    """adsh -> (filing, cik, name) of the filings of ``forms`` (None: all) in ``sub.txt``."""
    found: dict[str, tuple[Filing, str, str]] = {}
    for where, line, row in _rows(archive, path, "sub.txt", SUB_COLUMNS):
        if not row:
            ctx.skip(BAD_ROW, where=f"{where}:{line}")
            continue
        form = row["form"].strip()
        if forms is not None and form not in forms:
            continue
        filed, cik, fy = _day(row["filed"]), row["cik"].strip(), row["fy"].strip()
        if not filed or not cik.isdigit() or int(cik) == 0:
            ctx.skip(BAD_ROW, where=f"{where}:{line}")
            continue
        year = int(fy) if fy.isdigit() else None
        found[row["adsh"].strip()] = (Filing(row["adsh"].strip(), form, filed, year), str(int(cik)),
                                      display_name(row["name"]))
    return found


def observations(archive: zipfile.ZipFile, path: Path, wanted: set[str], ctx: Context) -> list[Observation]:
    """The observations of ``num.txt`` of the filings ``wanted``, for the concepts read, without segments or
    coregistrant."""
    found = []
    for where, line, row in _rows(archive, path, "num.txt", NUM_COLUMNS, {"adsh": wanted, "tag": _TAGS}):
        if not row:
            ctx.skip(BAD_ROW, where=f"{where}:{line}")
            continue
        if row.get("segments") or row.get("coreg"):
            continue
        taxonomy = TAXONOMY.get(row["version"].split("/")[0])
        if taxonomy is None or (taxonomy, row["tag"]) not in CONCEPTS:
            continue
        end, quarters = _day(row["ddate"]), row["qtrs"].strip()
        try:
            value = Decimal(row["value"])
        except InvalidOperation:
            value = Decimal("NaN")
        if not end or not quarters.isdigit() or not value.is_finite():
            ctx.skip(BAD_ROW, where=f"{where}:{line}")
            continue
        days = round(int(quarters) * 365.2425 / 4) if int(quarters) else None
        found.append(Observation(taxonomy, row["tag"], row["uom"], end, days, value, row["adsh"], f"{where}:{line}"))
    return found


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise SourceError(path, 0, f"not a readable zip: {error}") from None
    with archive:
        missing = [m for m in MEMBERS if m not in archive.namelist()]
        if missing:
            raise SourceError(path, 0, f"a Financial Statement Data Sets zip holds {' and '.join(MEMBERS)} (missing "
                              f"{', '.join(missing)})")
        annual = filings(archive, path, ctx)
        found = observations(archive, path, set(annual), ctx)
    by_company: dict[str, list[Observation]] = {}
    for obs in found:
        by_company.setdefault(annual[obs.accession][1], []).append(obs)
    reports: dict[str, dict[str, Filing]] = {}
    names: dict[str, tuple[tuple[str, str], str]] = {}
    for accession, (filing, cik, name) in annual.items():
        reports.setdefault(cik, {})[accession] = filing
        names[cik] = min(names.get(cik, (filing.order, name)), (filing.order, name))
    for cik in sorted(by_company, key=int):
        for fields in annual_rows(by_company[cik], reports[cik], ctx, f"{path.name}: CIK {cik}"):
            ctx.at(figures_filing(fields))
            yield FinancialFact(CompanyFact(names[cik][1], cik=cik, create=False), fields)
