"""The bulk export: every input table as json, csv (DuckDB COPY, RFC 4180) and parquet (DuckDB COPY).

Each format has a manifest listing its files with row counts, byte sizes and sha256; ``/api/export`` lists
all formats. CSV text cells are guarded against spreadsheet formula injection.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator

import duckdb

from generator import serialize
from generator.load import duckdb_type
from generator.registry import EXPORT_DATASET, EXPORT_ROUTE
from generator.schema import TABLES, DatasetInfo, Table

FORMULA_PREFIXES = "=+-@\t\r"


def _order(table: Table) -> str:
    return ", ".join(table.key)


def _csv_select(table: Table) -> str:
    """The table's columns as CSV cells: lists joined by ';', text starting like a formula prefixed with '."""
    columns = []
    for name, info in table.model.model_fields.items():
        kind = duckdb_type(info.annotation)
        if kind == "VARCHAR[]":
            columns.append(f"array_to_string({name}, ';') AS {name}")
        elif kind == "VARCHAR":
            columns.append(
                f"CASE WHEN left({name}, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) "
                f"THEN '''' || {name} ELSE {name} END AS {name}"
            )
        else:
            columns.append(name)
    return f"SELECT {', '.join(columns)} FROM {table.name} ORDER BY {_order(table)}"


def _json_rows(con: duckdb.DuckDBPyConnection, table: Table) -> list[dict]:
    result = con.execute(f"SELECT * FROM {table.name} ORDER BY {_order(table)}")
    names = [d[0] for d in result.description]
    return [dict(zip(names, values, strict=True)) for values in result.fetchall()]


def export_files(
    con: duckdb.DuckDBPyConnection, info: DatasetInfo, scratch: Callable[[str], str]
) -> Iterator[tuple[str, bytes]]:
    """Every export file and manifest; ``scratch(name)`` gives a temporary path inside the output folder."""
    route = EXPORT_ROUTE
    meta = {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer, "license": info.license}
    manifests: dict[str, list[dict[str, object]]] = {f: [] for f in route.formats}

    def entry(export_format: str, table: str, rows: int, data: bytes) -> tuple[str, bytes]:
        path = route.file_path(export_format, table)
        manifests[export_format].append({
            "table": table, "url": path, "rows": rows, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        })
        return path, data

    counts = {t.name: con.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0] for t in TABLES}  # type: ignore[index]
    everything: dict[str, list[dict]] = {}
    for table in TABLES:
        rows = _json_rows(con, table)
        everything[table.name] = rows
        body = {"meta": {**meta, "table": table.name, "rows": len(rows)}}
        yield entry("json", table.name, len(rows), serialize.envelope(body, [serialize.dumps(r) for r in rows]))
    dataset = serialize.document({"meta": {**meta, "tables": counts}, "tables": everything})
    yield entry("json", EXPORT_DATASET, sum(counts.values()), dataset)
    del everything, dataset

    for export_format, options in (("csv", "FORMAT csv, HEADER, NEW_LINE '\r\n'"), ("parquet", "FORMAT parquet")):
        for table in TABLES:
            path = scratch(f"{table.name}.{export_format}")
            select = _csv_select(table) if export_format == "csv" else (
                f"SELECT * FROM {table.name} ORDER BY {_order(table)}")
            quoted = path.replace("'", "''")
            con.execute(f"COPY ({select}) TO '{quoted}' ({options})")
            with open(path, "rb") as handle:
                data = handle.read()
            os.remove(path)
            yield entry(export_format, table.name, counts[table.name], data)

    for export_format, files in manifests.items():
        yield route.index_path(export_format), serialize.document({
            "data": {"format": export_format, "files": files}, "meta": meta,
            "links": {"self": route.index_path(export_format)},
        })
    yield route.index_path(), serialize.document({
        "data": {"formats": [{"format": f, "url": route.index_path(f), "files": len(manifests[f])}
                             for f in route.formats],
                 "tables": counts},
        "meta": meta, "links": {"self": route.index_path()},
    })
