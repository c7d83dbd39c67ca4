"""Precompute every page of every listing route: each filter combination x each sort x each page.

The work is split where each part is cheapest. DuckDB fans every row out to the filter combinations it belongs
to and orders each combination under every sort in one grouped query (``list(... ORDER BY ...)``). Python then
serializes each row once and assembles pages by joining those bytes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from generator import serialize
from generator.registry import Filter, ListRoute
from generator.schema import DatasetInfo

SQL_DIR = Path(__file__).parent / "sql"
ALL = None  # a filter that is not applied


def read_sql(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Page:
    path: str
    body: bytes


def base_meta(info: DatasetInfo) -> dict[str, object]:
    return {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer}


def load_rows(con: duckdb.DuckDBPyConnection, route: ListRoute) -> list[bytes]:
    """Materialize the route's rows as temp table ``rows`` (with ``_idx``) and serialize each row once."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE rows AS SELECT row_number() OVER (ORDER BY {route.key}) - 1 AS _idx, * "
        f"FROM ({read_sql(route.rows_sql)})"
    )
    fields = list(route.model.model_fields)
    result = con.execute(f"SELECT {', '.join(fields)} FROM rows ORDER BY _idx")
    model = route.model
    out: list[bytes] = []
    while batch := result.fetchmany(10_000):
        out.extend(serialize.row(model.model_validate(dict(zip(fields, values, strict=True)))) for values in batch)
    return out


def _order_by(route: ListRoute, sort_value: str) -> str:
    field, descending = route.sort_field(sort_value)
    return f"{field.expression} {'DESC' if descending else 'ASC'} NULLS LAST, {route.key}"


def _sort_lists(route: ListRoute) -> str:
    return ", ".join(f"list(_idx ORDER BY {_order_by(route, s)}) AS s{i}" for i, s in enumerate(route.sort_values))


def _membership(index: int, flt: Filter) -> str:
    """Lateral unnest giving, per row, every value of ``flt`` the row matches, plus NULL (= filter not applied)."""
    column = flt.column
    if flt.kind == "ladder":
        ladder = ", ".join(str(v) for v in flt.domain)
        values = f"list_append(list_filter([{ladder}], lambda t: t <= {column}), NULL)"
    elif flt.kind == "year":
        values = f"CASE WHEN {column} IS NULL THEN [NULL] ELSE [year({column}), NULL] END"
    elif flt.multi:
        values = f"list_append(list_distinct({column}), NULL)"
    else:
        values = f"CASE WHEN {column} IS NULL THEN [NULL] ELSE [{column}, NULL] END"
    return f"unnest({values}) AS m{index}(f{index})"


def domain_values(con: duckdb.DuckDBPyConnection, flt: Filter) -> list[str]:
    """Allowed values of a filter, as the strings that appear in URLs."""
    if isinstance(flt.domain, tuple):
        values = [str(v) for v in flt.domain]
    else:
        values = [str(v) for (v,) in con.execute(flt.domain).fetchall() if v is not None]
    if flt.kind in ("ladder", "year"):
        return sorted(set(values), key=int)
    return sorted(set(values))


def _typed(flt: Filter, value: str) -> str | int:
    return int(value) if flt.kind in ("ladder", "year") else value


def combination_orders(con: duckdb.DuckDBPyConnection, route: ListRoute) -> dict[tuple[str | None, ...], tuple]:
    """For every non-empty filter combination, the ordered row indexes under each sort."""
    filters = route.filters
    joins = "".join(f", {_membership(i, f)}" for i, f in enumerate(filters))
    keys = ", ".join(f"f{i}::VARCHAR AS f{i}" for i in range(len(filters)))
    select_keys = f"{keys}, " if filters else ""
    group = "GROUP BY ALL" if filters else ""
    query = f"SELECT {select_keys}{_sort_lists(route)} FROM rows{joins} {group}"
    orders: dict[tuple[str | None, ...], tuple] = {}
    for record in con.execute(query).fetchall():
        n = len(filters)
        orders[tuple(record[:n])] = tuple(record[n:])
    return orders


def text_orders(con: duckdb.DuckDBPyConnection, route: ListRoute) -> dict[str, tuple]:
    """For every word prefix of the text columns, the ordered row indexes under each sort."""
    assert route.text is not None
    text = " || ' ' || ".join(f"coalesce({c}::VARCHAR, '')" for c in route.text.columns)
    query = f"""
        WITH words AS (
            SELECT _idx, unnest(regexp_split_to_array(lower(strip_accents({text})), '[^a-z0-9]+')) AS word FROM rows
        ), prefixes AS (
            SELECT DISTINCT _idx, left(word, unnest(range(1, length(word) + 1))::INTEGER) AS prefix
            FROM words WHERE word <> ''
        )
        SELECT prefix, {_sort_lists(route)} FROM prefixes JOIN rows USING (_idx) GROUP BY prefix
    """
    return {record[0]: tuple(record[1:]) for record in con.execute(query).fetchall()}


def _pages(
    route: ListRoute, filters: dict[str, str], typed: dict[str, object], sort: str, ids: list[int],
    rows: list[bytes], meta: dict[str, object],
) -> Iterator[Page]:
    per_page = route.per_page
    total = len(ids)
    pages = max(1, math.ceil(total / per_page))

    def link(page: int) -> str:
        return route.file_path(filters, sort, page)

    for page in range(1, pages + 1):
        chunk = ids[(page - 1) * per_page : page * per_page]
        body = {
            "meta": {
                "total": total, "page": page, "per_page": per_page, "pages": pages, "sort": sort,
                "filters": typed, **meta,
            },
            "links": {
                "self": link(page), "first": link(1),
                "prev": link(page - 1) if page > 1 else None,
                "next": link(page + 1) if page < pages else None,
                "last": link(pages),
            },
        }
        yield Page(link(page), serialize.envelope(body, [rows[i] for i in chunk]))


def render(con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo) -> Iterator[Page]:
    """Every page of one listing route, for every filter combination, sort and text prefix."""
    rows = load_rows(con, route)
    meta = base_meta(info)
    domains = [[ALL, *domain_values(con, f)] for f in route.filters]
    orders = combination_orders(con, route)
    empty: tuple = tuple([] for _ in route.sort_values)
    for combination in itertools.product(*domains):
        active = {f.name: v for f, v in zip(route.filters, combination, strict=True) if v is not ALL}
        typed = {f.name: _typed(f, v) for f, v in zip(route.filters, combination, strict=True) if v is not ALL}
        lists = orders.get(combination, empty)
        for sort, ids in zip(route.sort_values, lists, strict=True):
            yield from _pages(route, active, typed, sort, ids, rows, meta)
    if route.text is not None:
        param = route.text.param
        for prefix, lists in sorted(text_orders(con, route).items()):
            for sort, ids in zip(route.sort_values, lists, strict=True):
                yield from _pages(route, {param: prefix}, {param: prefix}, sort, ids, rows, meta)
