"""Precompute every listing page that has content: each non-empty filter combination x each sort x each page.

The work is split where each part is cheapest. DuckDB fans every row out to the filter combinations it belongs
to and orders each combination under every sort in one grouped query (``list(... ORDER BY ...)``); a
combination without rows never appears, so no empty page is written. Python serializes each row once,
assembles pages by joining those bytes, and derives every page's facets from the combinations one filter
deeper (their row counts are the facet counts, their first pages the facet URLs).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import NamedTuple

import duckdb

from generator.api.prefix_answers import prefix_answers
from generator.api.queries import base_meta, read_sql, rows_digest, sql_params
from generator.api.query_index import query_index
from generator.api.registry import FACET_LIMIT, Filter, ListRoute
from generator.dataset import serialize
from generator.dataset.schema import DatasetInfo
from generator.output.manifest import unit_key

ROWS_DIGEST_OF_HASHES = rows_digest("_h", "_g")
"""The digest of rows of ``rows`` from the hashes ``materialize`` made (a route's, a combination's)."""

Combination = frozenset[tuple[str, str]]
"""Applied filters as (name, value-as-in-URLs) pairs; the empty set is the unfiltered listing."""


class Page(NamedTuple):
    path: str
    body: bytes
    inputs: str = ""
    """Key of the combination the page belongs to (see ``render``)."""


Reuse = Callable[[str, str], bool]
"""``reuse(folder, key)``: carry over the previous output's pages of the combination in ``folder`` if they were
rendered from the inputs ``key`` (and say so), else do nothing and return False."""


def materialize(con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo) -> str:
    """Create the route's rows as temp table ``rows`` (with ``_idx``, the position in key order, and ``_h`` and
    ``_g``, two 64-bit DuckDB hashes of the row's content); return a digest of its rows' content (``rows_digest``
    of those hashes; their order follows from it), which with the dataset's metadata and the code determines
    every page of the route."""
    sql = read_sql(route.rows_sql)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE rows AS SELECT row_number() OVER (ORDER BY {route.key}) - 1 AS _idx, "
        f"hash(s)::HUGEINT AS _h, hash(s, 1) AS _g, * FROM ({sql}) s",
        sql_params(sql, info),
    )
    found = con.execute(f"SELECT {ROWS_DIGEST_OF_HASHES} FROM rows").fetchone()
    return str(found[0]) if found else ""


def rank(con: duckdb.DuckDBPyConnection, route: ListRoute) -> None:
    """Add ``_r<i>`` to ``rows``: each row's position under the route's i-th sort value (only a route that renders
    needs them)."""
    ranks = ", ".join(f"row_number() OVER (ORDER BY {_order_by(route, sort)}) - 1 AS _r{i}"
                      for i, sort in enumerate(route.sort_values))
    con.execute(f"CREATE OR REPLACE TEMP TABLE rows AS SELECT *, {ranks} FROM rows")


def load_rows(con: duckdb.DuckDBPyConnection, route: ListRoute) -> list[bytes]:
    """Each row of ``rows`` (see ``materialize``) serialized once, in ``_idx`` order (``serialize.table_rows``)."""
    return serialize.table_rows(con, route.model, "rows", "_idx")


def _order_by(route: ListRoute, sort_value: str) -> str:
    field, descending = route.sort_field(sort_value)
    return f"{field.expression} {'DESC' if descending else 'ASC'} NULLS LAST, {route.key}"


def _typed(flt: Filter, value: str) -> str | int:
    return flt.kind.typed(value)


class Combo(NamedTuple):
    """One non-empty filter combination: the sorts it publishes, per sort its rows' positions under that sort
    (``_r<i>`` of ``rank``) in order, and its key: a digest of its rows' content (``ROWS_DIGEST_OF_HASHES``) and
    of ``combinations``' ``salt``. With the code and its folder (its filters, hence its sorts), the key determines
    its pages: the orders and the facet counts follow from the rows' content."""

    sorts: tuple[str, ...]
    lists: tuple[list[int], ...]
    key: str


def combinations(con: duckdb.DuckDBPyConnection, route: ListRoute, salt: str = "") -> dict[Combination, Combo]:
    """Every non-empty combination the route publishes: its sort values and, per sort, its rows in that order
    (``rows`` ranked by ``rank``), and its key (``Combo.key``; ``salt``: what else its pages depend on).

    Each group of combinable filters is one grouped query; the orders a combination does not publish (every
    sort but the default past the route's ``sort_depth`` filters) are not computed. A combination two groups share (the
    unfiltered listing, say) keeps the version with the most sorts."""
    out: dict[Combination, Combo] = {}
    everything = route.sort_values
    published = route.published_sorts
    for group in sorted(route.file_groups, key=lambda g: not all(f.sortable for f in g)):
        sortable = all(f.sortable for f in group)
        applied = " + ".join(f"(f{i} IS NOT NULL)::INTEGER" for i in range(len(group))) or "0"
        source = "rows"  # each row once per combination of the values it matches: unnest in the select list,
        for i, f in enumerate(group):  # a tenth of the time of a lateral join's unnest
            source = f"(SELECT *, unnest({f.kind.sql_matches(f)}) AS f{i} FROM {source})"
        keys = "".join(f"f{i}::VARCHAR AS f{i}, " for i in range(len(group)))
        lists = ", ".join(  # sorting each list of positions: half the time of an ordered aggregate per group
            f"list_sort(list(_r{i})"
            + ("" if s == route.default_sort else
               f" FILTER (WHERE {applied} <= {route.sort_depth})" if sortable and s in published
               else " FILTER (WHERE false)")
            + f") AS s{i}"
            for i, s in enumerate(everything)
        )
        mask = " + ".join(f"(f{i} IS NOT NULL)::INTEGER * {1 << i}" for i in range(len(group))) or "0"
        digest = f"left(md5($salt || ':' || {ROWS_DIGEST_OF_HASHES}), 20)"  # 80 bits, made in DuckDB
        query = f"SELECT {keys}{digest}, {mask}, {lists} FROM {source} {'GROUP BY ALL' if group else ''}"
        default, size, names = everything.index(route.default_sort), len(group), [f.name for f in group]
        applied_sets: dict[int, tuple[list[int], tuple[str, ...], list[int]]] = {}
        """Bit mask of the filters applied -> their positions, the sorts published and the positions of those."""
        for record in con.execute(query, {"salt": salt}).fetchall():
            orders = record[size + 2:]
            if not orders[default]:
                continue  # no rows at all: an aggregate without GROUP BY still answers one (empty) record
            bits = record[size + 1]
            found = applied_sets.get(bits)
            if found is None:
                positions = [i for i in range(size) if bits >> i & 1]
                sorts = route.sorts_for({names[i] for i in positions})
                found = applied_sets[bits] = (positions, sorts, [everything.index(s) for s in sorts])
            positions, sorts, published = found
            key = frozenset([(names[i], record[i]) for i in positions])
            if key in out and len(out[key].sorts) >= len(sorts):
                continue
            out[key] = Combo(sorts, tuple([orders[i] for i in published]), record[size])
    return out


def facets(
    route: ListRoute, combos: dict[Combination, Combo]
) -> dict[Combination, dict[str, tuple[list[tuple[str | int, int, Combination]], bool]]]:
    """For each combination, the refinements one faceted filter deeper that have rows, per filter in declaration
    order: (value, row count, refined combination) most frequent first, then by value, at most ``FACET_LIMIT``,
    and whether the list was cut short."""
    by_name = {f.name: f for f in route.filters if f.faceted}
    found: dict[Combination, dict[str, list[tuple[str | int, int, Combination]]]] = defaultdict(
        lambda: defaultdict(list))
    for key, combo in combos.items():
        for name, value in key:
            if name in by_name:
                found[key - {(name, value)}][name].append((_typed(by_name[name], value), len(combo.lists[0]), key))
    out = {}
    for key, refinements in found.items():
        ordered = {}
        for name in by_name:
            if name in refinements:
                values = sorted(refinements[name], key=lambda vnk: (-vnk[1], vnk[0]))
                ordered[name] = (values[:FACET_LIMIT], len(values) > FACET_LIMIT)
        out[key] = ordered
    return out


NO_FACETS = b'"facets":{},"facets_truncated":[]'


def _value(value: str | int) -> bytes:
    """A filter value as ``serialize.dumps`` writes it (``_typed``: ladder and year values are numbers)."""
    return str(value).encode() if isinstance(value, int) else serialize.string(value)


def _facet_meta(
    route: ListRoute, sort: str, refinements: dict[str, tuple[list[tuple[str | int, int, Combination]], bool]],
    combos: dict[Combination, Combo], folders: dict[Combination, str],
) -> bytes:
    """The members ``"facets":{...},"facets_truncated":[...]`` of page 1's meta, serialized (as ``serialize.dumps``
    writes them): per faceted filter, each refinement's value, count and URL under this sort (or the default
    order, where the refinement does not publish it); the names of the facets cut short."""
    if not refinements:
        return NO_FACETS
    facets = []
    for name, (values, _) in refinements.items():
        refined_sort = sort if sort in combos[values[0][2]].sorts else route.default_sort
        page = f"/{route.page_file(refined_sort, 1)}"
        entries = b",".join([
            b'{"value":%s,"count":%d,"url":%s}' % (_value(value), count, serialize.string(folders[refined] + page))
            for value, count, refined in values
        ])
        facets.append(serialize.string(name) + b":[" + entries + b"]")
    cut = b",".join([serialize.string(name) for name, (_, short) in refinements.items() if short])
    return b'"facets":{' + b",".join(facets) + b'},"facets_truncated":[' + cut + b"]"


def _filters(route: ListRoute, active: dict[str, str]) -> bytes:
    """The page meta's ``filters`` object, serialized (as ``serialize.dumps`` writes it): the applied filters in
    declaration order, ladder and year values as numbers."""
    return b"{" + b",".join([
        serialize.string(f.name) + b":" + _value(_typed(f, active[f.name])) for f in route.filters if f.name in active
    ]) + b"}"


def _pages(
    route: ListRoute, folder: str, filters: bytes, sort: str, ids: list[int],
    rows: list[bytes], meta: bytes, first_page_meta: bytes, inputs: str = "",
) -> list[Page]:
    """The pages of one non-empty result set (in ``folder``) under one sort (``ids``: positions in ``rows``, the
    serialized rows in that sort's order); page 1 also carries ``first_page_meta``.

    Each page is ``{"data", "meta": {total, page, per_page, pages, sort, filters, **meta, **first_page_meta},
    "links"}``, assembled from fragments serialized once per result set (``meta``: the members of the route's
    constant meta object, and ``first_page_meta``, already serialized members); each carries ``inputs``."""
    per_page = route.per_page
    total = len(ids)
    pages = -(-total // per_page)
    tail = b"," + meta if meta else b""
    first = b"," + first_page_meta if first_page_meta else b""
    paths = [f"{folder}/{route.page_file(sort, page)}" for page in range(1, pages + 1)]
    links = [serialize.string(path) for path in paths]
    common = b'"per_page":%d,"pages":%d,"sort":%s,"filters":%s' % (
        per_page, pages, serialize.string(sort), filters) + tail
    out = []
    for page in range(1, pages + 1):
        chunk = ids[(page - 1) * per_page : page * per_page]
        out.append(Page(paths[page - 1], b"".join((
            b'{"data":[\n', b",\n".join([rows[i] for i in chunk]), b'\n],"meta":{"total":%d,"page":%d,' % (total, page),
            common, first if page == 1 else b"",
            b'},"links":{"self":', links[page - 1], b',"first":', links[0],
            b',"prev":', links[page - 2] if page > 1 else b"null",
            b',"next":', links[page] if page < pages else b"null",
            b',"last":', links[-1], b"}}\n",
        )), inputs))
    return out


def _domains(route: ListRoute, single: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each filter's values that have files, in value order, from the (filter, value) of every one-filter
    combination."""
    by_name = {f.name: f for f in route.filters}
    return {
        flt.name: sorted({v for n, v in single if n == flt.name}, key=lambda v: (_typed(by_name[flt.name], v), v))
        for flt in route.filters
    }


def domains_of(route: ListRoute, paths: list[str]) -> dict[str, list[str]]:
    """``_domains`` from the route's page paths (output-relative): a one-filter combination is the folder
    ``<route>/<filter>=<value>`` right above a page."""
    prefix = route.path.lstrip("/") + "/"
    single = []
    for path in paths:
        parts = path[len(prefix):].split("/") if path.startswith(prefix) else []
        if len(parts) == 2 and "=" in parts[0]:
            name, _, value = parts[0].partition("=")
            single.append((name, value))
    return _domains(route, single)


def render(
    con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo,
    domains_out: dict[str, list[str]] | None = None, reuse: Reuse | None = None,
) -> Iterator[Page]:
    """Every page of one listing route that has rows: each non-empty combination, each of its sorts, each page,
    from the rows ``materialize`` made.

    Each combination's pages are determined by its folder (its filters, hence its sorts) and its key
    (``Combo.key``: a digest of its rows' content, from which the order under each sort and every facet count
    follow, and of the dataset's metadata). ``reuse`` may carry a
    combination's pages over instead (a rebuild where few rows changed renders few combinations); the pages
    rendered carry the key in ``Page.inputs``. The values each filter takes alone (the ones that have files) go into
    ``domains_out``."""
    rows = load_rows(con, route)
    rank(con, route)
    index = query_index(con, route)
    if index is not None and route.index_file is not None:
        yield Page(route.index_file, index)
        yield from (Page(path, body) for path, body in prefix_answers(con, route, rows))
    ranked = {  # the serialized rows in each sort's order
        sort: [rows[i] for (i,) in con.execute(f"SELECT _idx FROM rows ORDER BY _r{n}").fetchall()]
        for n, sort in enumerate(route.sort_values)
    }
    meta = serialize.members(base_meta(info))
    combos = combinations(con, route, unit_key(meta))
    refinements = facets(route, combos)
    if domains_out is not None:
        domains_out.update(_domains(route, [next(iter(key)) for key in combos if len(key) == 1]))
    folders = {key: route.folder(dict(key)) for key in combos}
    for key in sorted(combos, key=folders.__getitem__):  # in folder order: one order whatever the query's
        sorts, lists, inputs = combos[key]
        folder = folders[key]
        if reuse is not None and reuse(folder, inputs):
            continue
        filters = _filters(route, dict(key))
        for sort, ids in zip(sorts, lists, strict=True):
            first = _facet_meta(route, sort, refinements.get(key, {}), combos, folders)
            yield from _pages(route, folder, filters, sort, ids, ranked[sort], meta, first,
                              inputs if reuse is not None else "")
