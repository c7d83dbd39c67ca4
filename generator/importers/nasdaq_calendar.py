"""Nasdaq IPO calendar, one month as its API answers it: the JSON of
``https://api.nasdaq.com/api/ipo/calendar?date=YYYY-MM`` that ``python -m generator fetch nasdaq`` keeps as
``api.nasdaq.com/api/ipo/calendar/YYYY-MM.json`` (the shape, and where it was established: docs/sources.md).

    {"data": {"priced":    {"headers": {...}, "rows": [...] or null},
              "upcoming":  {"upcomingTable": {"headers": {...}, "rows": [...] or null}, "lastUpdatedTime": "..."},
              "filed":     {"headers": {...}, "rows": [...] or null},
              "withdrawn": {"headers": {...}, "rows": [...] or null},
              "month": 6, "year": 2024, "totalResults": 8},
     "message": null, "status": {"rCode": 200, "bCodeMessage": [...] or null, "developerMessage": null}}

Every row goes through ``nasdaq.deal``, the normalisation of the CSV importer: a priced deal is a listed IPO
(``pricedDate``), a filed one a filed IPO (``filedDate``), an upcoming one an upcoming IPO (``expectedPriceDate``,
its proposed price as the price range), a withdrawn one a withdrawn IPO (``withdrawDate``, with its filing date).
Deals are read in the order a deal lives them: filed, upcoming, priced, withdrawn. Values are strings or null
(null is an empty cell); keys a row lacks fail the file, keys it adds are ignored. A document that is not a
calendar (an HTML page, an error answer with ``data`` null) fails naming the file and why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generator.importers import nasdaq
from generator.importers.base import Cells, Context, Fact, Source, SourceError

SOURCE = Source("nasdaq-calendar", "exchange-data",
                "Nasdaq IPO calendar: monthly priced, upcoming, filed and withdrawn deals (api.nasdaq.com)")
SECTIONS: tuple[tuple[tuple[str, ...], str, list[str]], ...] = (
    (("filed",), "filed", nasdaq.FILINGS),
    (("upcoming", "upcomingTable"), "upcoming", nasdaq.UPCOMING),
    (("priced",), "listed", nasdaq.PRICINGS),
    (("withdrawn",), "withdrawn", nasdaq.WITHDRAWN),
)
"""Where each table sits under ``data``, the IPO status its deals get, and the keys each of its rows has."""
RANK = 21
"""After the CSV files of the same calendar (``nasdaq``, 20): the newer downloads are applied last."""
_MONTH_FILE = re.compile(r"^\d{4}-\d{2}\.json$")
_HEAD = 4096


def detect(path: Path) -> int | None:
    """A month as ``fetch`` names it (``calendar/YYYY-MM.json``), or any JSON file that opens as a calendar."""
    if path.suffix != ".json":
        return None
    if _MONTH_FILE.match(path.name) and path.parent.name == "calendar":
        return RANK
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return None
    return RANK if re.match(rb'\s*\{\s*"data"\s*:\s*\{\s*"priced"\s*:', head) else None


def load(path: Path) -> dict[str, Any]:
    """The ``data`` object of a calendar document; ``SourceError`` naming the file and what is wrong."""
    raw = path.read_bytes()
    try:
        document = json.loads(raw)
    except UnicodeDecodeError as error:
        raise SourceError(path, 0, f"not valid UTF-8 (byte {error.start})") from None
    except json.JSONDecodeError as error:
        start = raw.lstrip()[:1]
        what = "an HTML page" if start == b"<" else "empty" if not start else "malformed JSON"
        raise SourceError(path, 0, f"not a calendar: {what} ({error})") from None
    if not isinstance(document, dict) or "data" not in document:
        found = ", ".join(sorted(document)) if isinstance(document, dict) else type(document).__name__
        raise SourceError(path, 0, f"not a calendar: expected an object with data (found {found or 'no keys'})")
    data = document["data"]
    if data is None:
        raise SourceError(path, 0, f"no calendar in the answer: data is null ({_status(document)})")
    if not isinstance(data, dict):
        raise SourceError(path, 0, f"data: expected an object (found {type(data).__name__})")
    missing = [key for key, *_ in SECTIONS if key[0] not in data]
    if missing:
        raise SourceError(path, 0, f"data: expected the tables priced, upcoming, filed and withdrawn (missing "
                          f"{', '.join(key[0] for key in missing)})")
    return data


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    data = load(path)
    for keys, status, columns in SECTIONS:
        where = "data." + ".".join(keys) + ".rows"
        for index, row in enumerate(_rows(path, data, keys, where)):
            place = f"{where}[{index}]"
            with ctx.record(path, place):
                yield nasdaq.deal(Cells(f"{path}: {place}", 0, _cells(path, place, row, columns)), ctx, status)


def _rows(path: Path, data: dict[str, Any], keys: tuple[str, ...], where: str) -> list[Any]:
    table: Any = data
    for depth, key in enumerate(keys):
        if table is None:
            return []
        if not isinstance(table, dict) or (depth and key not in table):
            raise SourceError(path, 0, f"data.{'.'.join(keys[:depth + 1])}: expected an object with {key}")
        table = table[key]
    if table is None:
        return []
    if not isinstance(table, dict):
        raise SourceError(path, 0, f"{where.removesuffix('.rows')}: expected an object (found "
                          f"{type(table).__name__})")
    rows = table.get("rows")
    if rows is None:
        return []
    if not isinstance(rows, list):
        raise SourceError(path, 0, f"{where}: expected a list or null (found {type(rows).__name__})")
    return rows


def _cells(path: Path, place: str, row: Any, columns: list[str]) -> dict[str, str]:
    if not isinstance(row, dict):
        raise SourceError(path, 0, f"{place}: expected an object (found {type(row).__name__})")
    missing = [column for column in columns if column not in row]
    if missing:
        raise SourceError(path, 0, f"{place}: missing {', '.join(missing)} (a row has {', '.join(columns)})")
    cells: dict[str, str] = {}
    for column in columns:
        value = row[column]
        if value is not None and not isinstance(value, str):
            raise SourceError(path, 0, f"{place}: {column}: expected text or null (found {value!r})")
        cells[column] = value or ""
    return cells


def _status(document: dict[str, Any]) -> str:
    """What the answer's ``message`` and ``status`` say, on one line."""
    status = document.get("status") if isinstance(document.get("status"), dict) else {}
    said = [str(document["message"])] if document.get("message") else []
    codes = status.get("bCodeMessage")
    for item in codes if isinstance(codes, list) else [codes] if isinstance(codes, dict) else []:
        if isinstance(item, dict) and item.get("errorMessage"):
            said.append(str(item["errorMessage"]))
    if status.get("developerMessage"):
        said.append(str(status["developerMessage"]))
    code = status.get("rCode", "none")
    return f"status rCode {code}" + (": " + "; ".join(said) if said else "")
