"""A listing's query index: what a resolver needs to answer, in few file reads, a query that has no file of its own
(a ladder value between rungs, filters that do not combine, a sort the combination does not publish).

One binary file per route (``ListRoute.index_file``, ``/api/query-index/<route>.bin``), written with the route's
pages: the magic ``QIX1``, the length of a JSON header (4 bytes, little-endian), the header, then little-endian
arrays each at a multiple of 8 bytes. The header says where each array lies (``[offset, width, count]``, width 1, 2
or 4 bytes an unsigned integer, 8 a float64)::

    {"route": "/api/companies", "rows": 359, "per_page": 50, "order": "-valuation",
     "filters": {"sector": {"values": ["biotech", ...], "codes": [...]},
                 "tags": {"values": [...], "starts": [...], "lists": [...]},
                 "minValuation": {"table": [...], "codes": [...]}, "maxValuation": "minValuation", ...},
     "orders": {"name": [...], "valuation": [...]}, "scattered": 2}

Rows are numbered by their position in the route's default order (``order``). Per indexed filter, as its kind
encodes it (``generator.api.kinds``): a category's values and each row's code into them plus one (0: the row has
none); a filter of several values (a text's word beginnings too) each row's codes, ``lists[starts[i]:starts[i+1]]``;
a bound's or year's numbers as codes into its sorted distinct numbers (``table``, float64: every number of the
dataset is an integer below 2^53); or the name of an earlier filter whose entry is the same (two bounds on one
column). Per other sort (front-door-only sorts too): the row numbers in that sort's order. ``scattered``: how many
files hold the answers of pages whose rows the published pages spread over many (``api.scattered``). Nothing is
parsed but the header (a few KB): the arrays are read where they lie (a typed array in JavaScript), so a new edge
isolate pays for the bytes it reads, not for parsing them; ``decode`` gives both resolvers the same entries (the
JavaScript twin is ``parseIndex`` in ``frontdoor.mjs``). From it a resolver finds every row of the answer, its
total, and where each row of the asked page sits in any published combination's pages; it then reads only those
pages.
"""

from __future__ import annotations

import array
import json
import struct
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb

from generator.api.compact import Codes, Lists, Numbers
from generator.api.registry import Filter, ListRoute

BATCH = 10_000
"""Rows read from DuckDB at a time."""


def column(con: duckdb.DuckDBPyConnection, query: str) -> Iterator[Any]:
    """Each row's value of a one-column query, read a batch at a time."""
    found = con.execute(query)
    while batch := found.fetchmany(BATCH):
        yield from (value for (value,) in batch)


def _filter(con: duckdb.DuckDBPyConnection, flt: Filter, order: str) -> dict[str, object]:
    return flt.kind.index_entry(flt, column(con, f"SELECT {flt.kind.sql_value(flt)} FROM rows ORDER BY {order}"))


def filter_entries(con: duckdb.DuckDBPyConnection, route: ListRoute) -> dict[str, object]:
    """Each indexed filter's entry, its rows in the route's default order (temp table ``rows`` ranked, see
    ``listing.rank``); a filter whose entry is an earlier one's (a lower and an upper bound on one column) gets
    that filter's name instead."""
    order = f"_r{route.sort_values.index(route.default_sort)}"
    out: dict[str, object] = {}
    for flt in route.indexed_filters:
        entry = _filter(con, flt, order)
        out[flt.name] = next((name for name, found in out.items() if found == entry), entry)
    return out


def query_index(con: duckdb.DuckDBPyConnection, route: ListRoute, entries: dict[str, object],
                scattered: int = 0) -> bytes | None:
    """The route's index from its ranked rows (temp table ``rows`` with ``_r<i>``, see ``listing.rank``) and its
    filters' ``entries`` (``filter_entries``), or None when the route has none; ``scattered``: how many files hold
    its scattered pages' answers (``api.scattered``)."""
    if route.index_file is None:
        return None
    ranks = {sort: f"_r{i}" for i, sort in enumerate(route.sort_values)}
    default = ranks[route.default_sort]
    orders = {
        sort: array.array("q", column(con, f"SELECT {default} FROM rows ORDER BY {rank}"))
        for sort, rank in ranks.items() if sort != route.default_sort
    }
    (rows,) = con.execute("SELECT count(*) FROM rows").fetchone() or (0,)
    return encode({
        "route": route.path, "rows": rows, "per_page": route.per_page, "order": route.default_sort,
        "filters": entries,
        "orders": orders, "scattered": scattered,
    })


MAGIC = b"QIX1"
TYPECODES = {1: "B", 2: "H", 4: "I", 8: "d"}


def _width(largest: int) -> int:
    return next(w for w in (1, 2, 4) if largest < 256**w)


class _Arrays:
    """The arrays after the header, each at a multiple of 8 bytes; ``add`` gives its place for the header."""

    def __init__(self) -> None:
        self.body = bytearray()

    def add(self, values: Sequence[int] | Sequence[float], width: int | None = None) -> list[int]:
        width = width or _width(max(values, default=0))
        found = array.array(TYPECODES[width], values)
        if sys.byteorder == "big":
            found.byteswap()
        self.body += b"\0" * (-len(self.body) % 8)
        place = [len(self.body), width, len(values)]
        self.body += found.tobytes()
        return place


def _entry(entry: dict[str, Any] | str, arrays: _Arrays) -> dict[str, Any] | str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry.get("numbers"), Numbers):
        numbers = entry["numbers"]
        return {"table": arrays.add([float(n) for n in numbers.table], 8), "codes": arrays.add(numbers.plus_one)}
    if "numbers" in entry:  # a plain list (tests/test_compact.py's oracle)
        table = sorted({n for n in entry["numbers"] if n is not None})
        code = {n: i + 1 for i, n in enumerate(table)}
        return {"table": arrays.add([float(n) for n in table], 8),
                "codes": arrays.add([0 if n is None else code[n] for n in entry["numbers"]])}
    codes = entry["codes"]
    if isinstance(codes, Lists) and len(codes):
        return {"values": entry["values"], "starts": arrays.add(codes.starts), "lists": arrays.add(codes.flat)}
    if isinstance(codes, Codes):
        return {"values": entry["values"], "codes": arrays.add(codes.plus_one)}
    if any(isinstance(c, list) for c in codes):
        starts = [0]
        for found in codes:
            starts.append(starts[-1] + len(found))
        return {"values": entry["values"], "starts": arrays.add(starts),
                "lists": arrays.add([c for found in codes for c in found])}
    return {"values": entry["values"], "codes": arrays.add([0 if c is None else c + 1 for c in codes])}


def encode(index: dict[str, Any]) -> bytes:
    """The index's file from its entries (as ``decode`` gives them back)."""
    arrays = _Arrays()
    header = {**index, "filters": {n: _entry(e, arrays) for n, e in index["filters"].items()},
              "orders": {sort: arrays.add(order) for sort, order in index["orders"].items()}}
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    text += b" " * (-(len(text) + 8) % 8)
    return MAGIC + struct.pack("<I", len(text)) + text + bytes(arrays.body)


def _array(raw: bytes, start: int, place: list[int]) -> list[Any]:
    offset, width, count = place
    found = array.array(TYPECODES[width])
    found.frombytes(raw[start + offset: start + offset + width * count])
    if sys.byteorder == "big":
        found.byteswap()
    return found.tolist()


def decode(raw: bytes) -> dict[str, Any]:
    """The index's entries from its file: per filter its values with each row's code (None: none) or codes (a list
    per row), or its numbers (None: none), or the name of the filter whose entry it shares; per sort its order."""
    if raw[:4] != MAGIC:
        raise ValueError("not a query index")
    (length,) = struct.unpack_from("<I", raw, 4)
    header = json.loads(raw[8: 8 + length])
    start = 8 + length
    filters: dict[str, Any] = {}
    for name, entry in header["filters"].items():
        if isinstance(entry, str):
            filters[name] = entry
        elif "table" in entry:
            table = [int(n) for n in _array(raw, start, entry["table"])]
            filters[name] = {"numbers": [table[c - 1] if c else None for c in _array(raw, start, entry["codes"])]}
        elif "starts" in entry:
            starts, lists = _array(raw, start, entry["starts"]), _array(raw, start, entry["lists"])
            filters[name] = {"values": entry["values"],
                             "codes": [lists[a:b] for a, b in zip(starts, starts[1:], strict=False)]}
        else:
            filters[name] = {"values": entry["values"],
                             "codes": [c - 1 if c else None for c in _array(raw, start, entry["codes"])]}
    return {**header, "filters": filters,
            "orders": {sort: _array(raw, start, place) for sort, place in header["orders"].items()}}
