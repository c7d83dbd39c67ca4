"""Rows written by DuckDB's JSON writer (``serialize.duckdb_rows``) are byte for byte what their model writes, and
every value where the two writers could differ sends the table to pydantic's writer instead."""

from __future__ import annotations

import datetime as dt
import math
import random
import struct

import duckdb
import pytest

from generator.api import exports, listing
from generator.api.registry import LIST_ROUTES
from generator.api.response_base import Out
from generator.dataset import serialize
from generator.dataset.database import quoted
from generator.dataset.schema import TABLES


def _by_model(con: duckdb.DuckDBPyConnection, model: type[Out], source: str, order: str) -> list[bytes]:
    fields = list(model.model_fields)
    columns = ", ".join(f'"{name}"' for name in fields)
    values = con.execute(f"SELECT {columns} FROM {source} ORDER BY {order}").fetchall()
    return [serialize.row(model.model_validate(dict(zip(fields, row, strict=True)))) for row in values]


THROUGH_THE_MODEL = {"changes": "a changed field's old and new values are an integer, a text or null"}
"""Routes whose rows DuckDB cannot write as their model does (a field of several JSON types): pydantic writes them."""


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_listing_rows_are_the_models_bytes(embedded_db, route) -> None:  # type: ignore[no-untyped-def]
    con, info = embedded_db
    listing.materialize(con, route, info)
    made = serialize.duckdb_rows(con, route.model, "rows", "_idx")
    expected = _by_model(con, route.model, "rows", "_idx")
    if route.name in THROUGH_THE_MODEL:
        assert made is None and len(expected) > 0
        assert listing.load_rows(con, route) == expected
        return
    assert made is not None and len(made) > 0  # every other route (trending: doubles inside its components)
    assert made == expected
    assert listing.load_rows(con, route) == made


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_export_rows_are_the_models_bytes(embedded_db, table) -> None:  # type: ignore[no-untyped-def]
    con, _ = embedded_db
    order = quoted(*table.key)  # provenance has a column named table
    made = serialize.duckdb_rows(con, table.model, table.name, order)
    assert made is not None  # every table of the dataset (financials' doubles are within range)
    assert made == _by_model(con, table.model, table.name, order)
    assert [row for batch in exports._json_batches(con, table) for row in batch] == made


class Row(Out):
    n: int
    x: float | None
    d: dt.date | None
    s: str | None
    tags: list[str]


def _table(rows: list[tuple[object, ...]]) -> duckdb.DuckDBPyConnection:
    """Table ``t`` of ``Row``'s columns holding ``rows`` (made from one list per column: quick for many rows)."""
    con = duckdb.connect(config={"threads": 1})
    columns = list(zip(*rows, strict=True)) if rows else [()] * 5
    con.execute("CREATE TABLE t AS SELECT unnest($n::BIGINT[]) AS n, unnest($x::DOUBLE[]) AS x, "
                "unnest($d::DATE[]) AS d, unnest($s::VARCHAR[]) AS s, unnest($tags::VARCHAR[][]) AS tags",
                dict(zip(("n", "x", "d", "s", "tags"), map(list, columns), strict=True)))
    return con


def test_every_character_but_escaped_controls_is_written_alike() -> None:
    """Every code point, in strings of a thousand; a string with a control character other than \\b \\t \\n \\f \\r
    (escaped as \\u00XX, upper-case hex in DuckDB) sends the table to pydantic."""
    points = [c for c in range(0x20, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    texts = ["".join(map(chr, points[i:i + 1000])) for i in range(0, len(points), 1000)]
    texts += ["\b\t\n\f\r", 'quote " backslash \\ slash /', "\u2028\u2029\x7f"]
    con = _table([(i, None, None, text, [text[:3]]) for i, text in enumerate(texts)])
    made = serialize.duckdb_rows(con, Row, "t", "n")
    assert made is not None
    assert made == _by_model(con, Row, "t", "n")
    for control in [*range(1, 8), 0x0B, *range(0x0E, 0x20)]:
        con = _table([(1, None, None, "a", []), (2, None, None, f"x{chr(control)}y", [])])
        assert serialize.duckdb_rows(con, Row, "t", "n") is None, control
        con = _table([(1, None, None, "a", [f"{chr(control)}"])])
        assert serialize.duckdb_rows(con, Row, "t", "n") is None, control
    con = _table([(1, None, None, "the text \\u001B, not an escape", [])])  # refused too: harmless, and rare
    assert serialize.duckdb_rows(con, Row, "t", "n") is None


def test_doubles_within_range_are_written_alike() -> None:
    rng = random.Random(7)
    values: list[float] = [0.0, -0.0, 1e-5, 9.999999999999998e15, 5.0, 0.1, 2.0**53]
    for exponent in range(-5, 16):
        values += [rng.uniform(1, 10) * 10.0**exponent for _ in range(300)]
        values += [round(rng.uniform(1, 10) * 10.0**exponent, rng.randint(0, 8)) for _ in range(300)]
    values = [v for v in values + [-v for v in values] if v == 0 or 1e-5 <= abs(v) < 1e16]
    con = _table([(i, v, None, None, []) for i, v in enumerate(values)])
    made = serialize.duckdb_rows(con, Row, "t", "n")
    assert made is not None
    assert made == _by_model(con, Row, "t", "n")


@pytest.mark.parametrize("value", [1e16, -1e16, 9.99e-6, 1e300, 5e-324, math.inf, -math.inf, math.nan])
def test_a_double_out_of_range_goes_to_pydantic(value: float) -> None:
    con = _table([(1, 1.5, None, None, []), (2, value, None, None, [])])
    assert serialize.duckdb_rows(con, Row, "t", "n") is None


def test_random_doubles_are_checked() -> None:
    """Random bit patterns (every magnitude): refused together, written alike where within range."""
    rng = random.Random(11)
    values = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(20000)]
    assert serialize.duckdb_rows(_table([(i, v, None, None, []) for i, v in enumerate(values)]), Row, "t", "n") is None
    within = [v for v in values if v == 0 or 1e-5 <= abs(v) < 1e16]
    assert len(within) > 200
    con = _table([(i, v, None, None, []) for i, v in enumerate(within)])
    made = serialize.duckdb_rows(con, Row, "t", "n")
    assert made is not None
    assert made == _by_model(con, Row, "t", "n")


def test_dates_and_nulls() -> None:
    con = _table([(1, None, dt.date(1, 1, 1), None, []), (2, None, dt.date(9999, 12, 31), "", ["", "b"]),
                  (3, None, None, None, [])])
    made = serialize.duckdb_rows(con, Row, "t", "n")
    assert made is not None
    assert made == _by_model(con, Row, "t", "n")
    con.execute("INSERT INTO t VALUES (4, NULL, DATE '10000-01-01', NULL, [])")  # no Python date holds it
    assert serialize.duckdb_rows(con, Row, "t", "n") is None


def test_a_row_too_large_for_duckdbs_memory_goes_to_pydantic() -> None:
    """DuckDB writes a row's text in one piece of its memory: a row larger than its limit leaves room for is written
    by the model instead, the same bytes (an industry lists every company of its sector)."""
    con = _table([(1, 0.5, None, "a", ["x"]), (2, None, None, None, [f"company-{i:07d}" for i in range(200_000)])])
    expected = _by_model(con, Row, "t", "n")
    assert serialize.duckdb_rows(con, Row, "t", "n") == expected  # within the default limit, DuckDB writes it
    con.execute("SET memory_limit = '24MB'")  # DuckDB's writer needs more than this, the values less
    assert serialize.duckdb_rows(con, Row, "t", "n") is None
    assert serialize.table_rows(con, Row, "t", "n") == expected


def test_columns_that_do_not_fit_go_to_pydantic() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE a AS SELECT 1 AS n, 1.5::DECIMAL(4,1) AS x, NULL::DATE AS d, 's' AS s, ['t'] AS tags")
    assert serialize.duckdb_rows(con, Row, "a", "n") is None  # a DECIMAL
    con.execute("CREATE TABLE b AS SELECT 1 AS n, 1.5::FLOAT AS x, NULL::DATE AS d, 's' AS s, ['t'] AS tags")
    assert serialize.duckdb_rows(con, Row, "b", "n") is None  # a 4-byte float
    con.execute("CREATE TABLE c AS SELECT 1 AS n, 1.5::DOUBLE AS x, NULL::DATE AS d, 's' AS s, [1] AS tags")
    assert serialize.duckdb_rows(con, Row, "c", "n") is None  # integers where strings go


class Part(Out):
    x: float | None
    d: dt.date | None


class Nested(Out):
    n: int
    days: list[dt.date] | None
    parts: list[Part]
    part: Part | None


def _nested(days: str, x: str, d: str) -> tuple[duckdb.DuckDBPyConnection, list[bytes] | None]:
    """A one-row table of ``Nested`` with these SQL values, and what ``duckdb_rows`` makes of it."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT 1 AS n, {days} AS days, [{{'x': {x}, 'd': {d}}}, {{'x': 2.5, 'd': NULL}}] "
                f"AS parts, {{'x': {x}, 'd': {d}}} AS part")
    return con, serialize.duckdb_rows(con, Nested, "t", "n")


@pytest.mark.parametrize("days, x, d", [
    ("[DATE '2024-01-01', DATE '1999-12-31']", "0.25::DOUBLE", "DATE '0001-01-01'"),
    ("[]::DATE[]", "NULL::DOUBLE", "NULL::DATE"),
    ("NULL::DATE[]", "-1e15::DOUBLE", "DATE '9999-12-31'"),
])
def test_doubles_and_dates_inside_lists_and_structs_are_written_alike(days: str, x: str, d: str) -> None:
    con, made = _nested(days, x, d)
    assert made is not None
    assert made == _by_model(con, Nested, "t", "n")


@pytest.mark.parametrize("days, x, d", [
    ("[DATE '10000-01-01']", "0.25::DOUBLE", "NULL::DATE"),
    ("[]::DATE[]", "1e16::DOUBLE", "NULL::DATE"),
    ("[]::DATE[]", "'nan'::DOUBLE", "NULL::DATE"),
    ("[]::DATE[]", "0.25::DOUBLE", "DATE '10000-01-01'"),
    ("[]::DATE[]", "0.25::FLOAT", "NULL::DATE"),
])
def test_a_nested_value_out_of_range_goes_to_pydantic(days: str, x: str, d: str) -> None:
    assert _nested(days, x, d)[1] is None


class Notes(Out):
    n: int
    notes: dict[str, str]
    ratios: dict[str, float | None]


@pytest.mark.parametrize("notes, ratios, alike", [
    ("{'b': 'x\"y', 'a': 'ünï'}", "{'z': 0.5::DOUBLE, 'y': NULL::DOUBLE}", True),
    ("{'a': ''}", "{'z': 1e-7::DOUBLE}", False),  # a double out of range, inside the object
    ("{'a': 1}", "{'z': 0.5::DOUBLE}", False),  # an integer where a string goes
    ("MAP {'a': 'b'}", "{'z': 0.5::DOUBLE}", False),  # a MAP: not a struct
])
def test_an_object_of_str_keys_is_a_struct_in_key_order(notes: str, ratios: str, alike: bool) -> None:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT 1 AS n, {notes} AS notes, {ratios} AS ratios")
    made = serialize.duckdb_rows(con, Notes, "t", "n")
    assert (made is not None) == alike
    if alike:
        assert made == _by_model(con, Notes, "t", "n")
        assert made == [b'{"n":1,"notes":{"b":"x\\"y","a":"\xc3\xbcn\xc3\xaf"},"ratios":{"z":0.5,"y":null}}']


def _batched(con: duckdb.DuckDBPyConnection, model: type[Out], batch: int) -> list[bytes]:
    batches = list(serialize.table_row_batches(con, model, "t", "n", batch))
    assert all(0 < len(rows) <= batch for rows in batches)
    return [row for rows in batches for row in rows]


@pytest.mark.parametrize("rows", [
    [(i, i / 4, dt.date(2020, 1, 1 + i % 28), f"s{i}", [f"t{i}"]) for i in range(7)],  # DuckDB's writer
    [(i, None, None, "\x1b" if i == 5 else "a", []) for i in range(7)],  # escaped: pydantic's, from the first row
    [(i, None, None, None, ["\x0b"] if i == 6 else []) for i in range(7)],  # in a list, in the last batch
    [(1, None, None, "the text \\u001B, not an escape", [])],
    [(i, 1e16 if i == 3 else 1.0, None, None, []) for i in range(7)],  # a double out of range
    [],
], ids=["duckdb", "control", "control-in-list", "escape-text", "double", "empty"])
def test_batches_are_the_whole_tables_rows(rows: list[tuple[object, ...]]) -> None:
    """``table_row_batches`` gives ``table_rows``' bytes, a batch at a time; a value DuckDB would write otherwise
    (found before the first row is fetched) sends every row to pydantic, as ``table_rows`` does."""
    con = _table(rows)
    whole = serialize.table_rows(con, Row, "t", "n")
    assert whole == _by_model(con, Row, "t", "n")
    assert _batched(con, Row, 2) == whole
    assert _batched(con, Row, 10_000) == whole


def test_batches_of_columns_that_do_not_fit() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range AS n, 1.5::DECIMAL(4,1) AS x, NULL::DATE AS d, 's' AS s, ['t'] AS tags "
                "FROM range(5)")
    assert _batched(con, Row, 2) == serialize.table_rows(con, Row, "t", "n") == _by_model(con, Row, "t", "n")


@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_an_envelope_in_pieces_is_the_envelope(count: int) -> None:
    rows = [serialize.dumps({"n": i}) for i in range(count)]
    body: dict[str, object] = {"meta": {"rows": count}, "links": {"self": "/x"}}
    for size in (1, 2, 3, 10):
        batches = [rows[i:i + size] for i in range(0, count, size)]
        envelope = serialize.Envelope(body)
        pieces = [envelope.head, *(piece for batch in [[], *batches, []] for piece in envelope.rows(batch)),
                  envelope.end()]
        assert b"".join(pieces) == serialize.envelope(body, rows)
        assert b"".join(serialize.json_lines(batch) for batch in batches) == serialize.json_lines(rows)
