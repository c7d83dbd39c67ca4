"""How a download is checked before its run is kept: by the importer that will read it where one exists, else by
the shape its publisher documents (or public clients established, for Nasdaq), read strictly.

A check fails with a one-line ``ValueError`` (the run prefixes the URL). It checks what the importer relies on and
no more: a row the importer would skip and report (an unreadable value, a NaN deep in a companyfacts document) does
not fail the night; a document of the wrong kind does (an HTML page from a bot filter, an error answer, another
company's document, a damaged zip).

- ``edgar-tickers``, ``edgar-daily-index``: ``generator.importers.edgar`` reads every entry and every line.
- ``edgar-submissions``: a JSON object with ``cik``, ``name`` and ``filings``, then read by the same importer.
- ``edgar-companyfacts``: a JSON object (``generator.importers.jsondoc``: strict, size-bounded) with ``cik`` (the
  CIK of its URL, a number or a zero-padded string), ``entityName`` and ``facts`` (an object), none given twice
  with two values.
- ``edgar-financial-statements``: a zip whose members' checksums hold, with ``sub.txt``, ``num.txt``, ``tag.txt``
  and ``pre.txt``, ``sub.txt`` opening with its documented header.
- ``nasdaq-calendar``: ``generator.importers.nasdaq_calendar`` reads the shape and every row.
- ``nasdaq-screener``: ``{"data": {"rows": [...]}}`` with at least one row, each an object with the keys the
  importer reads (``symbol``, ``name``, ``lastsale``, ``netchange``, ``pctchange``, ``marketCap``, ``country``,
  ``ipoyear``, ``volume``, ``sector``, ``industry``): without one the importer fails the file. An odd value in a
  row (not text, given twice) is the importer's to skip and report, not a reason to drop the night.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

from generator.fetch import sources
from generator.importers import edgar, jsondoc, nasdaq_calendar
from generator.importers.base import Context, SourceError

_SUBMISSION_KEYS = ("cik", "name", "filings")
_FACTS_KEYS = ("cik", "entityName", "facts")
_STATEMENT_FILES = ("sub.txt", "num.txt", "tag.txt", "pre.txt")
_SUB_HEADER = b"adsh\tcik\tname\t"
_ROW_KEYS = ("symbol", "name", "lastsale", "netchange", "pctchange", "marketCap", "country", "ipoyear", "volume",
             "sector", "industry")
_CIK_FILE = re.compile(r"^CIK(\d{10})\.json$")


def verify(path: Path, source: str) -> None:
    """Raises ``ValueError`` (one line) unless the file is what its source says, complete."""
    checks = {sources.TICKERS: _edgar, sources.DAILY_INDEX: _edgar, sources.SUBMISSIONS: _submissions,
              sources.FACTS: _companyfacts, sources.FSDS: _statements, sources.CALENDAR: _calendar,
              sources.SCREENER: _screener}
    if source not in checks:
        raise ValueError(f"no check for a download of {source or 'no source'}")
    checks[source](path)


def _edgar(path: Path) -> None:
    """Read by the ``edgar`` importer: every entry of a ticker list, every line of an index, a submissions document."""
    if path.suffix == ".json" and jsondoc.head(path, 64).startswith(b"<"):
        raise ValueError("not JSON: an HTML page")
    try:
        for _ in edgar.read(path, Context()):
            pass
    except SourceError as error:
        line, _, reason = str(error).removeprefix(f"{path}:").partition(": ")
        raise ValueError(f"line {line}: {reason}" if line.isdigit() else _reason(error, path)) from None
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"unexpected content ({type(error).__name__}: {error})") from None


def _submissions(path: Path) -> None:
    document = _json(path, "submissions document")
    missing = [key for key in _SUBMISSION_KEYS if not isinstance(document, dict) or key not in document]
    if missing:
        raise ValueError(f"a submissions document needs the keys {', '.join(_SUBMISSION_KEYS)} "
                         f"(missing {', '.join(missing)})")
    _edgar(path)


def _calendar(path: Path) -> None:
    try:
        for _ in nasdaq_calendar.read(path, Context()):
            pass
    except SourceError as error:
        raise ValueError(_reason(error, path)) from None


def _reason(error: SourceError, path: Path) -> str:
    return str(error).removeprefix(f"{path}: ").removeprefix(f"{path}:")


def _json(path: Path, what: str) -> Any:
    """The document, read strictly; an HTML page (a bot filter's answer) or an empty body says so."""
    start = jsondoc.head(path, 64)
    if start.startswith(b"<"):
        raise ValueError(f"not a {what}: an HTML page")
    if not start:
        raise ValueError(f"not a {what}: empty")
    try:
        return jsondoc.read(path)
    except SourceError as error:
        raise ValueError(f"not a {what}: {_reason(error, path)}") from None


def _repeated(document: jsondoc.JsonObject, keys: tuple[str, ...]) -> list[str]:
    """Which of ``keys`` the object gives twice with two different values."""
    repeated = getattr(document, "repeated", frozenset())
    return [key for key in keys if key in repeated and len({repr(v) for k, v in document.pairs if k == key}) > 1]


def _companyfacts(path: Path) -> None:
    document = _json(path, "companyfacts document")
    if not isinstance(document, dict):
        raise ValueError(f"not a companyfacts document: expected an object (found {type(document).__name__})")
    missing = [key for key in _FACTS_KEYS if key not in document]
    if missing:
        found = ", ".join(list(document)[:6]) or "no keys"
        raise ValueError(f"a companyfacts document needs the keys {', '.join(_FACTS_KEYS)} (missing "
                         f"{', '.join(missing)}; found {found})")
    twice = _repeated(document, _FACTS_KEYS)
    if twice:
        raise ValueError(f"{', '.join(twice)} given twice with different values")
    cik, wanted = document["cik"], _CIK_FILE.match(path.name)
    number = cik if isinstance(cik, int) and not isinstance(cik, bool) else \
        int(cik) if isinstance(cik, str) and cik.isdigit() else None
    if number is None:
        raise ValueError(f"cik: expected a number or digits (found {cik!r})")
    if wanted is not None and number != int(wanted.group(1)):
        raise ValueError(f"cik {number} is not the CIK asked for ({int(wanted.group(1))})")
    if not isinstance(document["entityName"], str) or not isinstance(document["facts"], dict):
        raise ValueError("entityName: expected text, facts: expected an object (found "
                         f"{type(document['entityName']).__name__}, {type(document['facts']).__name__})")


def _screener(path: Path) -> None:
    document = _json(path, "screener answer")
    if not isinstance(document, dict) or "data" not in document:
        found = ", ".join(document) if isinstance(document, dict) else type(document).__name__
        raise ValueError(f"not a screener answer: expected an object with data (found {found or 'no keys'})")
    data = document["data"]
    if data is None:
        raise ValueError(f"no screener table in the answer: data is null ({_status(document)})")
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        found = (f"data: {type(data).__name__}" if not isinstance(data, dict) else f"data holds {', '.join(data)}"
                 if "rows" not in data else "an empty list" if rows == [] else f"rows: {type(rows).__name__}")
        raise ValueError(f"data.rows: expected a list of at least one row (found {found})")
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"data.rows[{n}]: expected an object (found {type(row).__name__})")
        missing = [key for key in _ROW_KEYS if key not in row]
        if missing:
            raise ValueError(f"data.rows[{n}]: missing {', '.join(missing)} (a row has {', '.join(_ROW_KEYS)})")


def _status(document: dict[str, Any]) -> str:
    status = document.get("status")
    messages = status.get("bCodeMessage") if isinstance(status, dict) else None
    texts = [str(m.get("errorMessage")) for m in messages or [] if isinstance(m, dict)]
    code = status.get("rCode") if isinstance(status, dict) else None
    return f"status rCode {code}: {'; '.join(texts) or 'no message'}"


def _statements(path: Path) -> None:
    if jsondoc.head(path, 64).startswith(b"<"):
        raise ValueError("not a zip: an HTML page")
    try:
        with zipfile.ZipFile(path) as archive:
            names = {name.rsplit("/", 1)[-1] for name in archive.namelist()}
            missing = [name for name in _STATEMENT_FILES if name not in names]
            if missing:
                raise ValueError(f"a Financial Statement Data Set holds {', '.join(_STATEMENT_FILES)} (missing "
                                 f"{', '.join(missing)})")
            broken = archive.testzip()
            if broken is not None:
                raise ValueError(f"{broken}: its checksum does not hold (a damaged download)")
            sub = next(name for name in archive.namelist() if name.rsplit("/", 1)[-1] == "sub.txt")
            with archive.open(sub) as handle:
                header = handle.read(len(_SUB_HEADER))
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
        raise ValueError(f"not a zip ({error})") from None
    if header != _SUB_HEADER:
        raise ValueError(f"sub.txt: expected a header opening {_SUB_HEADER.decode()!r} (found {header!r})")
