"""Tables loaded through a JSON file (``database.load_into`` with a scratch path) hold exactly the values loaded from
Python lists: every type of column, extreme and awkward values included, and no file is left behind."""

from __future__ import annotations

import datetime as dt
import functools
import os
import random
import struct
from pathlib import Path

import duckdb
import pytest

from generator.dataset.database import _columns, load_into
from generator.dataset.load import ParsedTable, validate
from generator.dataset.schema import TABLES

from .conftest import EMBEDDED, TINY


def _loaded(tables: dict[str, ParsedTable], scratch: Path | None) -> dict[str, list[tuple]]:
    con = duckdb.connect(config={"threads": 1})
    load_into(con, tables, functools.partial(os.path.join, str(scratch)) if scratch else None)
    return {name: con.execute(f"SELECT * FROM {name}").fetchall() for name in tables}


@pytest.mark.parametrize("data", [TINY, EMBEDDED], ids=["tiny", "embedded"])
def test_the_dataset_loads_alike_through_json(data: Path, tmp_path: Path) -> None:
    _, tables = validate(data)
    through_json = _loaded(tables, tmp_path)
    assert through_json == _loaded(tables, None)
    assert all(through_json[t.name] for t in TABLES if (data / t.file_name).exists())  # provenance: tiny only
    assert list(tmp_path.iterdir()) == []  # the JSON files are removed


def _awkward(kind: str, rng: random.Random) -> object:
    texts = ["", "a;b", 'quote " and \\ backslash', "\x00\x01\x1b\x7f", "\u2028\u2029 é 😀 𝔘", "=SUM(A1)", " pad "]
    if kind == "BIGINT":
        return rng.choice([0, -1, 2**53 - 1, -(2**53 - 1), rng.randint(-(2**53), 2**53)])
    if kind == "DOUBLE":
        while True:
            value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if value == value and abs(value) != float("inf"):
                return rng.choice([value, 0.1, -0.0, 1e-7, 1e16, 5e-324, 1.7976931348623157e308])
    if kind == "BOOLEAN":
        return rng.choice([True, False])
    if kind == "DATE":
        return rng.choice([dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 2, 29)])
    if kind == "VARCHAR[]":
        return rng.sample(texts, rng.randint(0, 3))
    point = rng.randint(1, 0x10FFFF - 0x800)
    return rng.choice([*texts, chr(point if point < 0xD800 else point + 0x800)])  # no lone surrogate


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_awkward_values_load_alike_through_json(table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(table.name)
    rows = []
    for i in range(300):
        row = {name: (None if rng.random() < 0.1 else _awkward(kind, rng)) for name, kind in _columns(table)}
        for n, key in enumerate(table.key):  # distinct keys, so that the order is the same
            kind = dict(_columns(table))[key]
            row[key] = {"BIGINT": i, "DATE": dt.date(2000, 1, 1) + dt.timedelta(i)}.get(kind, f"k{i:04d}{n}")
        rows.append(row)
    tables = {table.name: ParsedTable(table, rows, list(range(len(rows))))}
    assert _loaded(tables, tmp_path) == _loaded(tables, None)
