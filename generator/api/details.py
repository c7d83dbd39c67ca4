"""Single resources: the company, investor and industry profiles.

Each detail route's query (``DetailRoute.rows_sql``) makes one row per resource holding its whole body: the model's
fields in its order, its parts as structs and lists of structs in theirs. The rows are serialized as a table
(``serialize.table_rows``: by DuckDB's JSON writer where that writes the model's bytes, else through the model),
so no row is turned into Python values unless it has to be.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb

from generator.api.queries import base_meta, staged_by_batch
from generator.api.routes import DetailRoute
from generator.dataset import serialize
from generator.dataset.schema import DatasetInfo
from generator.output.manifest import unit_key
from generator.output.staged import StagedFiles

ANALYSIS_METHODOLOGY = {
    "valuation_to_revenue": "current valuation_usd divided by revenue_usd of the latest fiscal year with revenue; "
    "null without positive revenue or without a current valuation",
    "revenue_growth": "latest fiscal-year revenue divided by the previous fiscal year's revenue, minus 1",
    "sector_rank": "rank by current valuation_usd (highest = 1) among companies of the same sector with one",
    "sector_percentile": "share of the sector's valued companies whose valuation is at or below this one",
    "months_since_last_round": "whole calendar months from the latest funding round to the dataset's as_of date",
    "secondary_premium_to_last_round": "latest monthly secondary implied valuation divided by the latest "
    "disclosed round post-money valuation, minus 1",
}
"""The company profile's ``analysis.methodology`` (``$methodology`` of its query)."""

QUERY_PARAMETERS = {"methodology": ANALYSIS_METHODOLOGY}
"""The parameters the detail routes' queries may name beside ``queries.sql_params``'s."""


BATCH = 5_000
"""Resources made at a time: the route's query is run for one batch of its order at a time
(``_source``), and the Python side of a detail route holds one batch of bodies, whatever the dataset's size (the
rows themselves stay in DuckDB, which spills past its memory limit)."""


def _source(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo, shard: tuple[int, int] = (0, 1),
) -> tuple[str, int, int]:
    """The resources of ``shard`` (``shard_range``) as a temporary table (its name), one row per resource with
    ``_n``, its position in the route's order, stored in that order; and the positions ``[low, high)`` it holds.

    The route's query is run for ``BATCH`` positions of its order at a time (DuckDB pushes the range into the
    query's aggregates, so what it holds is that batch's, whatever the route's size or the shard's), after the keys
    of the route's table of resources (``DetailRoute.resources``) gave the ranges. A query over a whole shard of 20,000
    companies held about 500 MB of DuckDB's memory (its joins' hash tables built on the profiles' rows: a shard failed
    at 300k companies under a limit of 256 MB, and runs within 128 MB a batch at a time, its parts over every company
    staged in a table first: ``queries.staged``). Each join and aggregate of a plan holds a few MB however few its
    rows: the company profile's (about forty) held more than 64 MB for a batch of 1,000; so a file may stage parts
    per batch too (``queries.staged_by_batch``: the stages naming ``$_first`` and ``$_last``, run before each batch's
    rows with its first and last key)."""
    batched, (sql, params) = staged_by_batch(con, route.rows_sql, info, QUERY_PARAMETERS)
    order = route.order
    (total,) = con.execute(f"SELECT count({order}) FROM {route.resources}").fetchone()  # type: ignore[misc]
    low, high = shard_range(total, shard)
    source = f"{route.name}_details"
    con.execute(f"DROP TABLE IF EXISTS {source}")
    for stage, values in batched:  # empty, so that the rows' query binds
        con.execute(stage, values | {"_first": None, "_last": None})
    con.execute(f"CREATE TEMP TABLE {source} AS SELECT {low}::BIGINT AS _n, * FROM ({sql}) WHERE false", params)
    if low >= high:
        return source, low, high
    bounds = dict(con.execute(  # the keys at each batch's first and last position
        f"SELECT _n, {order} FROM (SELECT {order}, row_number() OVER (ORDER BY {order}) - 1 AS _n "
        f"FROM {route.resources}) "
        f"WHERE _n >= {low} AND _n < {high} AND ((_n - {low}) % {BATCH} IN (0, {BATCH - 1}) OR _n = {high - 1})"
    ).fetchall())
    for start in range(low, high, BATCH):
        end = min(start + BATCH, high)
        batch = {"_first": bounds[start], "_last": bounds[end - 1]}
        for stage, values in batched:
            con.execute(stage, values | batch)
        con.execute(f"INSERT INTO {source} SELECT row_number() OVER (ORDER BY {order}) - 1 + {start} AS _n, * "
                    f"FROM ({sql}) WHERE {order} >= $_first AND {order} <= $_last ORDER BY _n", params | batch)
    return source, low, high


def drop(con: duckdb.DuckDBPyConnection, route: DetailRoute) -> None:
    """Drop the route's temporary table (``_source``)."""
    con.execute(f"DROP TABLE IF EXISTS {route.name}_details")


def bodies(con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo) -> Iterator[tuple[tuple, bytes]]:
    """Every resource of ``route`` in its order: its keys (``route.key_names``: id first, or slug) and its body (the
    ``data`` of its file), over the loaded tables and views."""
    try:
        source, _, _ = _source(con, route, info)
        keys = con.execute(f"SELECT {', '.join(route.key_names)} FROM {source} ORDER BY {route.order}").fetchall()
        yield from zip(keys, serialize.table_rows(con, route.model, source, route.order), strict=True)
    finally:
        drop(con, route)


SERIALIZED = 1_000
"""Resources serialized at a time: a batch's text is held whole, in DuckDB's result and in Python (a company-profile
shard at 300k companies: max RSS 218 MiB 5,000 at a time, 161 MiB 1,000 at a time)."""


def _serialized(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, source: str, batch: str, positions: tuple[int, int],
    keep: str, todo: list[tuple],
) -> Iterator[bytes]:
    """The bodies of the resources at ``positions`` of ``source`` (those of ``todo`` where ``keep`` says so), in
    order, serialized ``SERIALIZED`` at a time through the table ``batch``."""
    keys = {"keys": [keys[0] for keys in todo]} if keep else {}
    for low in range(positions[0], positions[1], SERIALIZED):
        high = min(low + SERIALIZED, positions[1])
        con.execute(f"CREATE OR REPLACE TEMP TABLE {batch} AS SELECT * FROM {source} WHERE _n >= $low "
                    f"AND _n < $high{keep} ORDER BY _n", {"low": low, "high": high} | keys)
        yield from serialize.table_rows(con, route.model, batch, route.order)


def shard_range(total: int, shard: tuple[int, int]) -> tuple[int, int]:
    """The positions ``[low, high)`` of shard ``i`` of ``n`` over ``total`` resources: contiguous, in order."""
    number, count = shard
    return total * number // count, total * (number + 1) // count


def detail_files(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo, files: StagedFiles,
    shard: tuple[int, int] = (0, 1),
) -> list[str]:
    """Write every resource of ``route`` in ``shard`` (``i`` of ``n``: a contiguous range of the route's order),
    ``BATCH`` at a time, each carried over from the previous output where its unit ``<route>/<first key>`` has the
    same key: two 64-bit DuckDB hashes of its row (its whole body) and the dataset's metadata; only the rows that
    render are serialized. Return the first resource's URLs (by each key), the docs' example, from shard 0."""
    meta = base_meta(info)
    about = info.model_dump_json()
    first = route.key_names[0]
    source, low, high = _source(con, route, info, shard)
    examples: list[str] = []
    batch = f"{route.name}_batch"
    for start in range(low, high, BATCH):
        end = min(start + BATCH, high)
        found = con.execute(f"SELECT {', '.join(route.key_names)}, hash(r)::VARCHAR || ':' || hash(r, 1)::VARCHAR "
                            f"FROM (SELECT * EXCLUDE (_n) FROM {source} WHERE _n >= $1 AND _n < $2 ORDER BY _n) r",
                            [start, end]).fetchall()
        if start == 0 and found:
            examples = [f"{route.path}/{key}" for key in found[0][:-1]]
        todo = [row[:-1] for row in found if files.render(f"{route.name}/{row[0]}", unit_key(about, row[-1]))]
        if not todo:
            continue
        keep = "" if len(todo) == len(found) else f" AND list_contains($keys, {first})"  # a rebuild: what renders
        for keys, data in zip(todo, _serialized(con, route, source, batch, (start, end), keep, todo), strict=True):
            names = [str(key) for key in keys]
            unit = f"{route.name}/{names[0]}"
            body = serialize.resource(data, {"meta": meta, "links": {"self": route.file_path(names[-1])}})
            files.write(route.file_path(names[0]), body, unit)
            for name in names[1:]:  # the same file under its other names (a profile by id and by slug)
                files.alias(route.file_path(name), route.file_path(names[0]), unit)
    con.execute(f"DROP TABLE IF EXISTS {batch}")
    drop(con, route)
    return examples
