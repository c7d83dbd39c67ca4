"""A listing route's filter combinations, made in DuckDB from its ranked rows (``listing.rank``): the tables
``listing.render`` walks, a batch at a time, to write each combination's pages.

Every table stays in DuckDB (spilling past its memory limit), so that what the task holds in Python does not grow with
the route's rows: ``_combos`` (each non-empty combination, in folder order), ``_members`` (each combination's rows
under each of its sorts that has pages, one list after the other) and ``_facets`` (each combination's refinements one
faceted filter deeper, the most frequent first).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import duckdb

from generator.api.queries import rows_digest
from generator.api.registry import FACET_LIMIT, Filter, ListRoute

ROWS_DIGEST_OF_HASHES = rows_digest("_h", "_g")
"""The digest of rows of ``rows`` from the hashes ``materialize`` made (a route's, a combination's)."""

COMBINATIONS = 1_000
"""Combinations fetched at a time, with their facets (at most ``FACET_LIMIT`` per faceted filter each)."""


def typed(flt: Filter, value: str) -> str | int:
    return flt.kind.typed(value)


def numeric(flt: Filter) -> bool:
    """Whether the filter's values are numbers (ordered as numbers, in its facets and its allowed values)."""
    return isinstance(typed(flt, "0"), int)


class Shape(NamedTuple):
    """What a combination's group and applied filters decide: its sorts (``ListRoute.sorts_for``) and, as indexes
    into ``sort_values`` in that order, those that have pages (beyond the route's ``sort_depth`` filters, or in a
    group with a filter that does not sort, only the default order has)."""

    sorts: tuple[str, ...]
    paged: tuple[int, ...]


def shapes(route: ListRoute) -> list[tuple[tuple[Filter, ...], dict[int, Shape]]]:
    """Each group of combinable filters, those that sort all first, with the ``Shape`` of each set of its filters
    applied (a bit mask: bit i, the group's i-th filter)."""
    everything, published = route.sort_values, route.published_sorts
    out = []
    for group in sorted(route.file_groups, key=lambda g: not all(f.sortable for f in g)):
        sortable = all(f.sortable for f in group)
        found = {}
        for mask in range(1 << len(group)):
            names = {f.name for i, f in enumerate(group) if mask >> i & 1}
            sorts = route.sorts_for(names)
            found[mask] = Shape(sorts, tuple(everything.index(s) for s in sorts if s == route.default_sort or (
                sortable and s in published and len(names) <= route.sort_depth)))
        out.append((group, found))
    return out


def sql_text(value: str) -> str:
    """``value`` as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def _folder_sql(route: ListRoute, values: dict[int, str]) -> str:
    """SQL for ``route.folder`` of a combination: ``values``, each filter's (by its index in ``route.filters``) SQL
    value as in URLs (NULL: not applied)."""
    if not values:
        return sql_text(route.folder({}))
    parts = [f"CASE WHEN {v} IS NOT NULL THEN {sql_text(route.filters[j].name + '=')} || {v} END"
             for j, v in sorted(values.items())]
    return (f"CASE WHEN coalesce({', '.join(values.values())}) IS NULL THEN {sql_text(route.folder({}))} "
            f"ELSE concat_ws('/', {sql_text(route.path)}, {', '.join(parts)}) END")


def combinations(
    con: duckdb.DuckDBPyConnection, route: ListRoute, salt: str = "",
) -> dict[tuple[int, int], Shape]:
    """Make, from ``rows`` ranked by ``rank``, every non-empty combination the route publishes, in folder order
    (``_combos``: ``_c`` its number, ``_v<j>`` the value of ``route.filters[j]`` as in URLs or NULL, ``_n`` its rows,
    ``_key`` a digest of its rows' content and ``salt``: with the code and its folder, it determines its pages),
    its rows under each of its sorts that has pages, one list after the other (``_members``, in ``rowid`` order),
    and its facets (``_facets``); return the ``Shape`` of each (group, bit mask).

    DuckDB fans each row out to every combination of the values it matches, one group of combinable filters after
    the other; a combination two groups share (the unfiltered listing, say) keeps the version with the most sorts,
    else the first group's. Everything stays in DuckDB, which spills past its memory limit."""
    groups = shapes(route)
    width = len(route.filters)
    where = {f.name: j for j, f in enumerate(route.filters)}
    ranks = ", ".join(f"_r{i}" for i in range(len(route.sort_values)))
    fans = []
    for g, (group, _) in enumerate(groups):
        source = "rows"  # each row once per combination of the values it matches: unnest in the select list,
        for i, f in enumerate(group):  # a tenth of the time of a lateral join's unnest
            source = f"(SELECT *, unnest({f.kind.sql_matches(f)}) AS f{i} FROM {source})"
        values = {where[f.name]: f"f{i}::VARCHAR" for i, f in enumerate(group)}
        mask = " + ".join(f"(f{i} IS NOT NULL)::INTEGER * {1 << i}" for i in range(len(group))) or "0"
        columns = "".join(f"{values.get(j, 'NULL::VARCHAR')} AS _v{j}, " for j in range(width))
        fans.append(f"SELECT {g} AS _grp, {mask} AS _mask, {columns}_idx, _h, _g, {ranks} FROM {source}")
    fan = " UNION ALL ".join(fans)
    folder = _folder_sql(route, {j: f"_v{j}" for j in range(width)})
    values = "".join(f"_v{j}, " for j in range(width))
    shape_rows = ", ".join(f"({g}, {m}, {len(s.sorts)}, {_counted(route, s)})"
                           for g, (_, found) in enumerate(groups) for m, s in found.items()) or "(0, 0, 0, false)"
    paged_rows = ", ".join(f"({g}, {m}, {p}, {i})" for g, (_, found) in enumerate(groups) for m, s in found.items()
                           for p, i in enumerate(s.paged)) or "(0, 0, 0, 0)"
    con.execute(f"CREATE OR REPLACE TEMP TABLE _shapes AS FROM (VALUES {shape_rows}) s(_grp, _mask, _sorts, _first)")
    con.execute(f"CREATE OR REPLACE TEMP TABLE _paged AS FROM (VALUES {paged_rows}) s(_grp, _mask, _p, _s)")
    digest = f"left(md5($salt || ':' || {ROWS_DIGEST_OF_HASHES}), 20)"  # 80 bits, made in DuckDB
    # Each group's combinations counted in a statement of its own, then a combination two groups share (the
    # unfiltered listing, say) kept once by an aggregate, then numbered: at 300k companies one statement for all
    # (an aggregate over the groups' union, a window per folder) held more than 64 MB of DuckDB's memory.
    for g, part in enumerate(fans):
        into = "CREATE OR REPLACE TEMP TABLE _counted AS" if g == 0 else "INSERT INTO _counted"
        con.execute(f"{into} SELECT _grp, _mask, {values}count(*) AS _n, {digest} AS _key FROM ({part}) GROUP BY ALL",
                    {"salt": salt})
    kept = ("arg_min({'_grp': _grp, '_mask': _mask, '_n': _n, '_key': _key, '_sorts': _sorts, '_first': _first}, "
            f"_grp - {len(groups)} * _sorts)")  # the version with the most sorts, else the first group's
    con.execute(f"CREATE OR REPLACE TEMP TABLE _kept AS SELECT {values}{kept} AS _k FROM _counted "
                "JOIN _shapes USING (_grp, _mask) GROUP BY ALL")
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _combos AS SELECT row_number() OVER (ORDER BY _folder) - 1 AS _c, * FROM ("
        f"SELECT _k._grp AS _grp, _k._mask AS _mask, {values}{folder} AS _folder, _k._n AS _n, _k._key AS _key, "
        "_k._sorts AS _sorts, _k._first AS _first FROM _kept) ORDER BY _c")
    con.execute("DROP TABLE _kept")
    con.execute("DROP TABLE _counted")
    rank_of = "CASE p._s " + " ".join(f"WHEN {i} THEN f._r{i}" for i in range(len(route.sort_values))) + " END"
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _members AS SELECT f._idx FROM ({fan}) f JOIN _combos c "
        f"ON c._grp = f._grp AND c._folder = {_folder_sql(route, {j: f'f._v{j}' for j in range(width)})} "
        f"JOIN _paged p ON p._grp = c._grp AND p._mask = c._mask ORDER BY c._c, p._p, {rank_of}")
    _facets(con, route)
    return {(g, m): s for g, (_, found) in enumerate(groups) for m, s in found.items()}


def _counted(route: ListRoute, shape: Shape) -> str:
    """SQL true where a combination of this shape counts its rows in the facets: its first sort has pages (the
    count is the length of the first sort's list)."""
    return "true" if route.sort_values.index(shape.sorts[0]) in shape.paged else "false"


def _facets(con: duckdb.DuckDBPyConnection, route: ListRoute) -> None:
    """``_facets``: for each combination (``_pc``), the refinements one faceted filter (``_f``, its index in
    ``route.filters``) deeper that have rows: the value, the row count, the refined combination's folder and shape,
    most frequent first, then by value (a number's as a number), at most ``FACET_LIMIT`` (``_many``: how many there
    are)."""
    width = len(route.filters)
    parts = []
    for j, flt in enumerate(route.filters):
        if not flt.faceted:
            continue
        number = numeric(flt)
        parent = _folder_sql(route, {k: f"ch._v{k}" for k in range(width) if k != j})
        parts.append(
            f"SELECT p._c AS _pc, {j} AS _f, ch._v{j} AS _value, "
            f"{f'TRY_CAST(ch._v{j} AS BIGINT)' if number else 'NULL::BIGINT'} AS _number, "
            f"{'NULL' if number else f'ch._v{j}'} AS _word, CASE WHEN ch._first THEN ch._n ELSE 0 END AS _count, "
            f"ch._folder AS _child, ch._grp AS _cg, ch._mask AS _cm "
            f"FROM _combos ch JOIN _combos p ON p._folder = {parent} WHERE ch._v{j} IS NOT NULL")
    if not parts:
        parts = ["SELECT 0 AS _pc, 0 AS _f, '' AS _value, 0 AS _number, '' AS _word, 0 AS _count, '' AS _child, "
                 "0 AS _cg, 0 AS _cm WHERE false"]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _facets AS SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY _pc, _f "
        "ORDER BY _count DESC, _number, _word) AS _rank, count(*) OVER (PARTITION BY _pc, _f) AS _many FROM ("
        f"{' UNION ALL '.join(parts)})) WHERE _rank <= {FACET_LIMIT} ORDER BY _pc, _f, _rank")


TEMP_TABLES = ("_shapes", "_paged", "_combos", "_members", "_facets")


Refinements = dict[str, tuple[list[tuple[str | int, int, str, Shape]], bool]]
"""Per faceted filter in declaration order: (value, row count, refined combination's folder and shape), most
frequent first, then by value, at most ``FACET_LIMIT``; and whether the list was cut short."""


Domains = dict[str, tuple[int, str]]
"""Each filter's values that have files (those of its one-filter combinations), in value order (a number's as a
number), packed: their count and the values NUL-separated in one string (a filter with a value per company has about
240,000 at 300k companies: as a list of strings in each task and in the build process, about 70 MiB)."""


def pack(values: list[str]) -> tuple[int, str]:
    return len(values), "\0".join(values)


def unpack(packed: tuple[int, str]) -> list[str]:
    count, text = packed
    return text.split("\0") if count else []


def domains(con: duckdb.DuckDBPyConnection, route: ListRoute) -> Domains:
    """The ``Domains`` of ``_combos``, made in DuckDB (a Python object per value held about 74 MiB at 300k)."""
    width = len(route.filters)
    applied = " + ".join(f"(_v{j} IS NOT NULL)::INTEGER" for j in range(width))
    out: Domains = {}
    for j, flt in enumerate(route.filters):
        order = "TRY_CAST(v AS BIGINT), v" if numeric(flt) else "v"
        count, text = con.execute(
            f"SELECT count(*), coalesce(string_agg(v, chr(0) ORDER BY {order}), '') FROM (SELECT DISTINCT _v{j} AS v "
            f"FROM _combos WHERE {applied} = 1 AND _v{j} IS NOT NULL)").fetchone() or (0, "")
        out[flt.name] = (count, text)
    return out


def walk(
    con: duckdb.DuckDBPyConnection, route: ListRoute, found: dict[tuple[int, int], Shape],
    step: int | None = None,
) -> Iterator[tuple[dict[str, str], str, int, str, Shape, Refinements]]:
    """Each combination of ``_combos`` in folder order, ``step`` (``COMBINATIONS``) at a time with their facets: its
    applied filters, folder, row count, key, shape and refinements."""
    step = step or COMBINATIONS
    width = len(route.filters)
    names = [f.name for f in route.filters]
    (total,) = con.execute("SELECT count(*) FROM _combos").fetchone() or (0,)
    values = "".join(f"_v{j}, " for j in range(width))
    for low in range(0, total, step):
        bounds = [low, low + step]
        refinements: dict[int, Refinements] = {}
        for parent, j, value, count, child, group, mask, many in con.execute(
            "SELECT _pc, _f, _value, _count, _child, _cg, _cm, _many FROM _facets WHERE _pc >= $1 AND _pc < $2 "
            "ORDER BY _pc, _f, _rank", bounds).fetchall():
            entry = refinements.setdefault(parent, {}).setdefault(names[j], ([], many > FACET_LIMIT))
            entry[0].append((typed(route.filters[j], value), count, child, found[group, mask]))
        for c, *row in con.execute(
            f"SELECT _c, {values}_folder, _n, _key, _grp, _mask FROM _combos WHERE _c >= $1 AND _c < $2 ORDER BY _c",
            bounds).fetchall():
            key = {names[j]: value for j, value in enumerate(row[:width]) if value is not None}
            folder, count, inputs, group, mask = row[width:]
            yield key, folder, count, inputs, found[group, mask], refinements.get(c, {})
