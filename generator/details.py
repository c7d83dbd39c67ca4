"""Single resources: the company, investor and industry profiles.

Each detail route's query (``DetailRoute.rows_sql``) makes one row per resource holding its whole body: the model's
fields in its order, its parts as structs and lists of structs in theirs. The rows are serialized as a table
(``serialize.table_rows``: by DuckDB's JSON writer where that writes the model's bytes, else through the model),
so no row is turned into Python values unless it has to be.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb

from generator import serialize
from generator.manifest import unit_key
from generator.queries import base_meta, read_sql
from generator.routes import DetailRoute
from generator.schema import DatasetInfo
from generator.staged import StagedFiles

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

_PARAMETERS = {"methodology": ANALYSIS_METHODOLOGY}


def bodies(con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo) -> Iterator[tuple[tuple, bytes]]:
    """Every resource of ``route`` in its order: its keys (``route.key_names``: id first, or slug) and its body (the
    ``data`` of its file), over the loaded tables and views."""
    sql = read_sql(route.rows_sql)
    params = {name: value for name, value in (("as_of", info.as_of), *_PARAMETERS.items()) if f"${name}" in sql}
    source = f"{route.name}_details"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {source} AS {sql}", params)
    try:
        keys = con.execute(f"SELECT {', '.join(route.key_names)} FROM {source} ORDER BY {route.order}").fetchall()
        yield from zip(keys, serialize.table_rows(con, route.model, source, route.order), strict=True)
    finally:
        con.execute(f"DROP TABLE {source}")


def detail_files(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo, files: StagedFiles,
) -> list[str]:
    """Write every resource of ``route`` (each carried over from the previous output where its unit
    ``<route>/<first key>`` has the same body and dataset metadata); return the first one's URLs (by each key),
    the docs' example."""
    meta = base_meta(info)
    about = info.model_dump_json()
    examples: list[str] = []
    for keys, data in bodies(con, route, info):
        names = [str(key) for key in keys]
        if not examples:
            examples = [f"{route.path}/{name}" for name in names]
        unit = f"{route.name}/{names[0]}"
        if not files.render(unit, unit_key(about, data)):
            continue
        body = serialize.resource(data, {"meta": meta, "links": {"self": route.file_path(names[-1])}})
        files.write(route.file_path(names[0]), body, unit)
        for name in names[1:]:  # the same file under its other names (a profile by id and by slug)
            files.alias(route.file_path(name), route.file_path(names[0]), unit)
    return examples
