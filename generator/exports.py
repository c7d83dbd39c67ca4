"""The bulk export: every input table as json, csv (DuckDB COPY, RFC 4180) and parquet (DuckDB COPY).

The whole dataset per format: json one document, csv and parquet one deterministic zip of every table plus
its manifest. ``/api/export`` (the manifest) lists every file of every format with rows, bytes and sha256.
CSV text cells are guarded against spreadsheet formula injection.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Callable, Iterator

import duckdb

from generator import serialize
from generator.load import duckdb_type
from generator.registry import EXPORT_ROUTE
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


ARCHIVE_MEMBER_DATE = (1980, 1, 1, 0, 0, 0)
ARCHIVE_MANIFEST = "manifest.json"


def _archive(members: list[tuple[str, bytes]], compress: int) -> bytes:
    """A deterministic zip: members in the given order, fixed dates, permissions and creator system."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            member = zipfile.ZipInfo(name, date_time=ARCHIVE_MEMBER_DATE)
            member.compress_type = compress
            member.create_system = 3
            member.external_attr = 0o100644 << 16
            archive.writestr(member, data, compresslevel=9 if compress == zipfile.ZIP_DEFLATED else None)
    return buffer.getvalue()


def _describe(path: str, rows: int, data: bytes) -> dict[str, object]:
    return {"url": path, "rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def export_files(
    con: duckdb.DuckDBPyConnection, info: DatasetInfo, scratch: Callable[[str], str]
) -> Iterator[tuple[str, bytes]]:
    """Every export file, archive and manifest; ``scratch(name)`` gives a temporary path inside the output folder."""
    route = EXPORT_ROUTE
    meta = {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer, "license": info.license}
    manifests: dict[str, list[dict[str, object]]] = {f: [] for f in route.formats}
    datasets: dict[str, dict[str, object]] = {}

    def entry(export_format: str, table: str, rows: int, data: bytes) -> tuple[str, bytes]:
        path = route.file_path(export_format, table)
        manifests[export_format].append({"table": table, **_describe(path, rows, data)})
        return path, data

    counts = {t.name: con.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0] for t in TABLES}  # type: ignore[index]
    total = sum(counts.values())
    everything: dict[str, list[dict]] = {}
    for table in TABLES:
        rows = _json_rows(con, table)
        everything[table.name] = rows
        path = route.file_path("json", table.name)
        body = {"meta": {**meta, "table": table.name, "rows": len(rows)}, "links": {"self": path}}
        yield entry("json", table.name, len(rows), serialize.envelope(body, [serialize.dumps(r) for r in rows]))
    dataset_path = route.dataset_path("json")
    dataset = serialize.document({"meta": {**meta, "tables": counts}, "tables": everything,
                                  "links": {"self": dataset_path}})
    datasets["json"] = _describe(dataset_path, total, dataset)
    yield dataset_path, dataset
    del everything, dataset

    for export_format, options in (("csv", "FORMAT csv, HEADER, NEW_LINE '\r\n'"), ("parquet", "FORMAT parquet")):
        members: list[tuple[str, bytes]] = []
        for table in TABLES:
            path = scratch(f"{table.name}.{export_format}")
            select = _csv_select(table) if export_format == "csv" else (
                f"SELECT * FROM {table.name} ORDER BY {_order(table)}")
            quoted = path.replace("'", "''")
            con.execute(f"COPY ({select}) TO '{quoted}' ({options})")
            with open(path, "rb") as handle:
                data = handle.read()
            os.remove(path)
            members.append((f"{table.name}.{export_format}", data))
            yield entry(export_format, table.name, counts[table.name], data)
        inner = serialize.document({"data": {"format": export_format, "files": manifests[export_format]},
                                    "meta": meta})
        compress = zipfile.ZIP_DEFLATED if export_format == "csv" else zipfile.ZIP_STORED
        archive = _archive([*members, (ARCHIVE_MANIFEST, inner)], compress)
        del members
        archive_path = route.dataset_path(export_format)
        datasets[export_format] = _describe(archive_path, total, archive)
        yield archive_path, archive

    yield route.index_path(), serialize.document({
        "data": {"formats": [{"format": f, "dataset": datasets[f], "files": manifests[f]} for f in route.formats],
                 "tables": counts},
        "meta": meta, "links": {"self": route.index_path()},
    })
