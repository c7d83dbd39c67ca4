"""Single resources: the company, investor and industry profiles.

Each detail route's query (``DetailRoute.rows_sql``) makes one row per resource holding its whole body: the model's
fields in its order, its parts as structs and lists of structs in theirs. The rows are serialized as a table
(``serialize.table_rows``: by DuckDB's JSON writer where that writes the model's bytes, else through the model),
so no row is turned into Python values unless it has to be.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import duckdb

from generator.api.queries import base_meta, read_sql, sql_params
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

_PARAMETERS = {"methodology": ANALYSIS_METHODOLOGY}


@contextlib.contextmanager
def _rows(con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo) -> Iterator[str]:
    """The route's query as a temporary table (its name), one row per resource."""
    sql = read_sql(route.rows_sql)
    params = sql_params(sql, info) | {name: value for name, value in _PARAMETERS.items() if f"${name}" in sql}
    source = f"{route.name}_details"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {source} AS {sql}", params)
    try:
        yield source
    finally:
        con.execute(f"DROP TABLE IF EXISTS {source}")


def bodies(con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo) -> Iterator[tuple[tuple, bytes]]:
    """Every resource of ``route`` in its order: its keys (``route.key_names``: id first, or slug) and its body (the
    ``data`` of its file), over the loaded tables and views."""
    with _rows(con, route, info) as source:
        keys = con.execute(f"SELECT {', '.join(route.key_names)} FROM {source} ORDER BY {route.order}").fetchall()
        yield from zip(keys, serialize.table_rows(con, route.model, source, route.order), strict=True)


def detail_files(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo, files: StagedFiles,
) -> list[str]:
    """Write every resource of ``route``, each carried over from the previous output where its unit
    ``<route>/<first key>`` has the same key: two 64-bit DuckDB hashes of its row (its whole body) and the dataset's
    metadata; only the rows that render are serialized. Return the first resource's URLs (by each key), the docs'
    example."""
    meta = base_meta(info)
    about = info.model_dump_json()
    first = route.key_names[0]
    with _rows(con, route, info) as source:
        found = con.execute(f"SELECT {', '.join(route.key_names)}, hash(r)::VARCHAR || ':' || hash(r, 1)::VARCHAR "
                            f"FROM {source} r ORDER BY {route.order}").fetchall()
        examples = [f"{route.path}/{key}" for key in found[0][:-1]] if found else []
        todo = [row[:-1] for row in found if files.render(f"{route.name}/{row[0]}", unit_key(about, row[-1]))]
        if len(todo) < len(found):  # a rebuild: only the rows that render
            con.execute(f"DELETE FROM {source} WHERE NOT list_contains($keys, {first})",
                        {"keys": [keys[0] for keys in todo]})
        for keys, data in zip(todo, serialize.table_rows(con, route.model, source, route.order), strict=True):
            names = [str(key) for key in keys]
            unit = f"{route.name}/{names[0]}"
            body = serialize.resource(data, {"meta": meta, "links": {"self": route.file_path(names[-1])}})
            files.write(route.file_path(names[0]), body, unit)
            for name in names[1:]:  # the same file under its other names (a profile by id and by slug)
                files.alias(route.file_path(name), route.file_path(names[0]), unit)
    return examples
