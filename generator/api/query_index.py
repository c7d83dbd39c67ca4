"""A listing's query index: what a resolver needs to answer, in few file reads, a query that has no file of its own
(a ladder value between rungs, filters that do not combine, a sort the combination does not publish).

One JSON file per route (``ListRoute.index_file``), written with the route's pages::

    {"route": "/api/companies", "rows": 359, "per_page": 50, "order": "-valuation",
     "filters": {"sector": {"values": ["biotech", ...], "codes": [1, 0, null, ...]},
                 "minValuation": {"numbers": [350000000000, null, ...]}, ...},
     "orders": {"name": [12, 3, ...], "valuation": [...]}}

Rows are numbered by their position in the route's default order (``order``). Per indexed filter, as its kind
encodes it (``generator.api.kinds``): a category's values and each row's code into them (null: the row has none; a
list for a filter of several values), a text's word beginnings likewise, or a bound's or year's number per row
(or the name of an earlier filter whose entry is the same: two bounds on one column).
Per other sort (front-door-only sorts too): the row numbers in that sort's order. From it a resolver finds every row
of the answer, its total, and where each row of the asked page sits in any published combination's pages; it then
reads only those pages.
"""

from __future__ import annotations

import duckdb

from generator.api.registry import Filter, ListRoute
from generator.dataset import serialize


def _filter(con: duckdb.DuckDBPyConnection, flt: Filter, order: str) -> dict[str, object]:
    query = f"SELECT {flt.kind.sql_value(flt)} FROM rows ORDER BY {order}"
    found = [value for (value,) in con.execute(query).fetchall()]
    return flt.kind.index_entry(flt, found)


def _filters(con: duckdb.DuckDBPyConnection, route: ListRoute, order: str) -> dict[str, object]:
    """Each indexed filter's entry; a filter whose entry is an earlier one's (a lower and an upper bound on one
    column) gets that filter's name instead."""
    out: dict[str, object] = {}
    for flt in route.indexed_filters:
        entry = _filter(con, flt, order)
        out[flt.name] = next((name for name, found in out.items() if found == entry), entry)
    return out


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
        "filters": _filters(con, route, default),
        "orders": orders,
    })
