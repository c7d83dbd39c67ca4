"""A listing's query index: what a resolver needs to answer, in few file reads, a query that has no file of its own
(a ladder value between rungs, filters that do not combine, a sort the combination does not publish).

One JSON file per route (``ListRoute.index_file``), written with the route's pages::

    {"route": "/api/companies", "rows": 359, "per_page": 50, "order": "-valuation",
     "filters": {"sector": {"values": ["biotech", ...], "codes": [1, 0, null, ...]},
                 "minValuation": {"numbers": [350000000000, null, ...]}, ...},
     "orders": {"name": [12, 3, ...], "valuation": [...]}}

Rows are numbered by their position in the route's default order (``order``). Per indexed filter: a category's
values and each row's code into them (null: the row has none; a list for a filter of several values), or a
ladder's or year's number per row. Per other sort: the row numbers in that sort's order. From it a resolver finds
every row of the answer, its total, and where each row of the asked page sits in any published combination's pages;
it then reads only those pages.
"""

from __future__ import annotations

import duckdb

from generator.api.registry import WORD_MAX, Filter, ListRoute
from generator.dataset import serialize


def text_terms(expression: str, prefixes: tuple[int, int] | None) -> str:
    """SQL for the distinct indexed terms of a text: lowercased, accents removed, split on non-alphanumerics;
    whole words (``prefixes`` None), or every prefix of a word of ``prefixes`` (shortest, longest) characters
    (a word shorter than the shortest: the word)."""
    words = (f"list_filter(regexp_split_to_array(lower(strip_accents(coalesce({expression}, ''))), '[^a-z0-9]+'), "
             f"lambda w: w <> '' AND length(w) <= {WORD_MAX})")
    if prefixes is None:
        return f"list_distinct({words})"
    shortest, longest = prefixes
    return (
        f"list_distinct(flatten(list_transform({words}, lambda w: "
        f"list_transform(range(least(length(w), {shortest}), least(length(w), {longest}) + 1), "
        "lambda n: left(w, n::INTEGER)))))"
    )


def _column(flt: Filter) -> str:
    if flt.kind == "text":  # the first two characters of each word (the word, when shorter)
        return text_terms(flt.column, (2, 2))
    return f"year({flt.column})" if flt.kind == "year" else flt.column


def _filter(con: duckdb.DuckDBPyConnection, flt: Filter, order: str) -> dict[str, object]:
    found = [value for (value,) in con.execute(f"SELECT {_column(flt)} FROM rows ORDER BY {order}").fetchall()]
    if flt.kind in ("ladder", "year"):
        return {"numbers": [None if v is None else int(v) for v in found]}
    if flt.multi or flt.kind == "text":
        values = sorted({str(v) for vs in found if vs for v in vs})
        code = {v: i for i, v in enumerate(values)}
        return {"values": values, "codes": [sorted({code[str(v)] for v in vs}) if vs else [] for vs in found]}
    values = sorted({str(v) for v in found if v is not None})
    code = {v: i for i, v in enumerate(values)}
    return {"values": values, "codes": [None if v is None else code[str(v)] for v in found]}


def query_index(con: duckdb.DuckDBPyConnection, route: ListRoute) -> bytes | None:
    """The route's index from its ranked rows (temp table ``rows`` with ``_r<i>``, see ``listing.rank``), or None
    when the route has none."""
    if route.index_file is None:
        return None
    ranks = {sort: f"_r{i}" for i, sort in enumerate(route.sort_values)}
    default = ranks[route.default_sort]
    orders = {
        sort: [n for (n,) in con.execute(f"SELECT {default} FROM rows ORDER BY {rank}").fetchall()]
        for sort, rank in ranks.items() if sort != route.default_sort
    }
    (rows,) = con.execute("SELECT count(*) FROM rows").fetchone() or (0,)
    return serialize.document({
        "route": route.path, "rows": rows, "per_page": route.per_page, "order": route.default_sort,
        "filters": {flt.name: _filter(con, flt, default) for flt in route.indexed_filters},
        "orders": orders,
    })
