"""Precompute every page of every listing route: each filter combination x each sort x each page.

The work is split where each part is cheapest. DuckDB fans every row out to the filter combinations it belongs
to and orders each combination under every sort in one grouped query (``list(... ORDER BY ...)``). Python then
serializes each row once and assembles pages by joining those bytes.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from generator import serialize
from generator.registry import TEXT_PREFIX_MAX, Filter, ListRoute
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


def sql_params(sql: str, info: DatasetInfo) -> dict[str, object]:
    return {"as_of": info.as_of} if "$as_of" in sql else {}


def load_rows(con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo) -> list[bytes]:
    """Materialize the route's rows as temp table ``rows`` (with ``_idx``) and serialize each row once."""
    sql = read_sql(route.rows_sql)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE rows AS SELECT row_number() OVER (ORDER BY {route.key}) - 1 AS _idx, * "
        f"FROM ({sql})",
        sql_params(sql, info),
    )
    fields = list(route.model.model_fields)
    columns = ", ".join(f'"{name}"' for name in fields)
    result = con.execute(f"SELECT {columns} FROM rows ORDER BY _idx")
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
    if flt.kind == "text":
        values = f"list_append({text_prefixes(column)}, NULL)"
    elif flt.kind == "ladder":
        ladder = ", ".join(str(v) for v in flt.domain)
        values = f"list_append(list_filter([{ladder}], lambda t: t <= {column}), NULL)"
    elif flt.kind == "year":
        values = f"CASE WHEN {column} IS NULL THEN [NULL] ELSE [year({column}), NULL] END"
    elif flt.multi:
        values = f"list_append(list_distinct({column}), NULL)"
    else:
        values = f"CASE WHEN {column} IS NULL THEN [NULL] ELSE [{column}, NULL] END"
    return f"unnest({values}) AS m{index}(f{index})"


def text_prefixes(expression: str) -> str:
    """SQL for the distinct word prefixes of a text: lowercased, accents removed, split on non-alphanumerics."""
    words = f"regexp_split_to_array(lower(strip_accents(coalesce({expression}, ''))), '[^a-z0-9]+')"
    return (
        f"list_distinct(flatten(list_transform(list_filter({words}, lambda w: w <> ''), lambda w: "
        f"list_transform(range(1, least(length(w), {TEXT_PREFIX_MAX}) + 1), lambda n: left(w, n::INTEGER)))))"
    )


def domain_values(con: duckdb.DuckDBPyConnection, flt: Filter) -> list[str]:
    """Allowed values of a filter, as the strings that appear in URLs."""
    if flt.kind == "text":
        query = f"SELECT DISTINCT unnest({text_prefixes(flt.column)}) FROM rows"
        values = [v for (v,) in con.execute(query).fetchall()]
    elif isinstance(flt.domain, tuple):
        values = [str(v) for v in flt.domain]
    else:
        values = [str(v) for (v,) in con.execute(flt.domain).fetchall() if v is not None]
    if flt.kind in ("ladder", "year"):
        return sorted(set(values), key=int)
    return sorted(set(values))


def _typed(flt: Filter, value: str) -> str | int:
    return int(value) if flt.kind in ("ladder", "year") else value


def combination_orders(
    con: duckdb.DuckDBPyConnection, route: ListRoute, filters: tuple[Filter, ...]
) -> dict[tuple[str | None, ...], tuple]:
    """For every non-empty combination of ``filters``, the ordered row indexes under each sort."""
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


def _pages(
    route: ListRoute, filters: dict[str, str], typed: dict[str, object], sort: str, ids: list[int],
    rows: list[bytes], meta: dict[str, object],
) -> Iterator[Page]:
    """The pages of one result set under one sort; ``meta`` may carry the set's facets."""
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


def facet_counts(
    route: ListRoute, values: dict[str, list[str | None]], ids: list[int]
) -> dict[str, list[dict[str, object]]]:
    """Value counts of each facet column over a result set: most frequent first, then by value."""
    out: dict[str, list[dict[str, object]]] = {}
    for column in route.facets:
        counts = Counter(values[column][i] for i in ids)
        counts.pop(None, None)
        out[column] = [{"value": v, "count": n} for v, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return out


def render(
    con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo,
    domains_out: dict[str, list[str]] | None = None,
) -> Iterator[Page]:
    """Every page of one listing route: each filter combination of each group, each sort, each page.

    The allowed values of each filter (the ones that have files) go into ``domains_out``."""
    rows = load_rows(con, route, info)
    meta = base_meta(info)
    facet_values = {
        column: [v for (v,) in con.execute(f"SELECT {column} FROM rows ORDER BY _idx").fetchall()]
        for column in route.facets
    }
    empty: tuple = tuple([] for _ in route.sort_values)
    domains: dict[str, list[str | None]] = {}
    done: set[frozenset[tuple[str, str]]] = set()
    for group in route.groups:
        for f in group:
            if f.name not in domains:
                domains[f.name] = [ALL, *domain_values(con, f)]
                if domains_out is not None:
                    domains_out[f.name] = domains[f.name][1:]
        orders = combination_orders(con, route, group)
        for combination in itertools.product(*(domains[f.name] for f in group)):
            applied = [(f, v) for f, v in zip(group, combination, strict=True) if v is not ALL]
            key = frozenset((f.name, v) for f, v in applied)
            if key in done:
                continue  # a combination two groups share (e.g. no filter at all) is written once
            done.add(key)
            active = {f.name: v for f, v in applied}
            typed = {f.name: _typed(f, v) for f, v in applied}
            lists = orders.get(combination, empty)
            page_meta = {**meta, "facets": facet_counts(route, facet_values, lists[0])} if route.facets else meta
            for sort, ids in zip(route.sort_values, lists, strict=True):
                yield from _pages(route, active, typed, sort, ids, rows, page_meta)
