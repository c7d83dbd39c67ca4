"""Listing rows written straight from DuckDB's values are the bytes their response model writes, and the model
still refuses what it refuses."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest
from pydantic import ValidationError

from generator.api import listing
from generator.api.registry import LIST_ROUTES
from generator.api.response_base import Out
from generator.dataset import serialize


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_every_row_is_written_as_its_model_writes_it(embedded_db, route) -> None:  # type: ignore[no-untyped-def]
    con, info = embedded_db
    listing.materialize(con, route, info)
    fields = list(route.model.model_fields)
    result = con.execute("SELECT " + ", ".join(f'"{name}"' for name in fields) + " FROM rows ORDER BY _idx")
    write = serialize.row_writer(route.model, result.description)
    rows = result.fetchall()
    assert rows
    for values in rows:
        assert write(values) == serialize.row(route.model.model_validate(dict(zip(fields, values, strict=True))))


def test_most_routes_skip_the_model(embedded_db) -> None:  # type: ignore[no-untyped-def]
    """The straight path is taken where the column types allow it (the benefit this module exists for)."""
    con, info = embedded_db
    straight = []
    for route in LIST_ROUTES:
        listing.materialize(con, route, info)
        result = con.execute("SELECT " + ", ".join(f'"{n}"' for n in route.model.model_fields) + " FROM rows")
        straight.append(serialize.row_writer(route.model, result.description).__name__ == "write")
    assert sum(straight) >= len(LIST_ROUTES) - 2


class Inner(Out):
    a: int
    b: str | None


class Sample(Out):
    n: int
    x: float | None
    d: dt.date
    tags: list[str]
    inner: Inner
    items: list[Inner]


SAMPLE_SQL = ("SELECT 5 AS n, {x} AS x, DATE '2024-02-29' AS d, ['p', 'q'] AS tags, {{'a': 1, 'b': 'é\"'}} AS inner, "
              "[{{'a': 2, 'b': NULL::VARCHAR}}] AS items")


def _written(sql: str) -> tuple[str, bytes]:
    result = duckdb.connect().execute(sql)
    write = serialize.row_writer(Sample, result.description)
    return write.__name__, write(result.fetchone())  # type: ignore[arg-type]


@pytest.mark.parametrize("x", ["1.5::DOUBLE", "NULL::DOUBLE", "1e300::DOUBLE", "7.0::DOUBLE"])
def test_straight_values_equal_the_model(x: str) -> None:
    kind, body = _written(SAMPLE_SQL.format(x=x))
    values = duckdb.connect().execute(SAMPLE_SQL.format(x=x))
    names = [c[0] for c in values.description]
    assert kind == "write"
    assert body == serialize.row(Sample.model_validate(dict(zip(names, values.fetchone(), strict=True))))


@pytest.mark.parametrize("x", ["1.5::DECIMAL(3,1)", "7", "'7.5'"])
def test_other_column_types_go_through_the_model(x: str) -> None:
    """A DECIMAL or an integer where the field is a float would not come out as the model writes it."""
    kind, body = _written(SAMPLE_SQL.format(x=x))
    assert kind == "<lambda>"
    assert b'"x":7.0' in body or b'"x":1.5' in body or b'"x":7.5' in body


@pytest.mark.parametrize("x", ["'nan'::DOUBLE", "'inf'::DOUBLE"])
def test_a_value_the_model_refuses_is_refused(x: str) -> None:
    with pytest.raises(ValidationError):
        _written(SAMPLE_SQL.format(x=x))


def test_a_struct_out_of_field_order_goes_through_the_model() -> None:
    swapped = SAMPLE_SQL.format(x="NULL").replace("{'a': 1, 'b'", "{'b'").replace("'é\"'}", "'é\"', 'a': 1}")
    kind, body = _written(swapped)
    assert kind == "<lambda>"
    assert b'"inner":{"a":1,"b":"\xc3\xa9\\""}' in body
