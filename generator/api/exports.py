"""The bulk export: every input table as json, csv (DuckDB COPY, RFC 4180), parquet (DuckDB COPY) and JSON Lines
(the json export's rows, one per line).

The whole dataset per format: one deterministic zip of every table's file plus its manifest (json too: one JSON
document of every table would be a third copy of every row beside the json and jsonl tables, 27 MB at 10k
companies and 270 MB at 100k, more than most tools load at once). ``/api/export`` (the manifest) lists every file
of every format with rows, bytes and sha256.
CSV text cells are guarded against spreadsheet formula injection.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Callable, Iterator
from typing import Protocol

import duckdb

from generator.api.registry import EXPORT_ROUTE
from generator.dataset import serialize
from generator.dataset.database import duckdb_type, quoted
from generator.dataset.schema import TABLES, DatasetInfo, Table
from generator.output.manifest import unit_key

FORMULA_PREFIXES = "=+-@\t\r"


def _order(table: Table) -> str:
    return quoted(*table.key)


def _csv_select(table: Table) -> str:
    """The table's columns as CSV cells: lists joined by ';', text starting like a formula prefixed with '."""
    columns = []
    for column, info in table.model.model_fields.items():
        kind, name = duckdb_type(info.annotation), quoted(column)
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


def _json_rows(con: duckdb.DuckDBPyConnection, table: Table) -> list[bytes]:
    """The table's rows in key order, each serialized as its model writes it (``serialize.table_rows``)."""
    return serialize.table_rows(con, table.model, table.name, _order(table))


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
            # deflate level 9: the three archives of 10k companies take 6.3 MB instead of level 6's 6.6 MB (1's
            # 8.7 MB), for 1.8 s more CPU than level 6: the bytes count against the budget, the seconds do not
            archive.writestr(member, data, compresslevel=9 if compress == zipfile.ZIP_DEFLATED else None)
    return buffer.getvalue()


def _describe(path: str, rows: int, data: bytes) -> dict[str, object]:
    return {"url": path, "rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


class Staging(Protocol):
    """Where the exports go: decides which tables render (``render``, see ``OutputWriter.render``) and reads back
    a file carried over from the previous output (``read``), which the whole-dataset files are made from."""

    def render(self, unit: str, key: str) -> bool: ...

    def read(self, path: str) -> bytes: ...


def export_files(
    con: duckdb.DuckDBPyConnection, info: DatasetInfo, scratch: Callable[[str], str], staging: Staging,
    sources: dict[str, str],
) -> Iterator[tuple[str, bytes, str]]:
    """Every export file, archive and manifest as (path, body, unit); ``scratch(name)`` gives a temporary path
    inside the output folder; ``sources``: table name -> the key of the file it was loaded from and the
    dataset's metadata (``reload.source_keys``), which determine the loaded table.

    Each table's files (one per format) are the unit ``export/<table>``, keyed by its source: a table that did not
    change is carried over and its files read back for the whole-dataset files (``export/dataset``), which are made
    again only when some table changed."""
    route = EXPORT_ROUTE
    meta = {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer, "license": info.license}
    about = info.model_dump_json()
    counts = {t.name: con.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0] for t in TABLES}  # type: ignore[index]
    keys = {t.name: unit_key(about, sources[t.name]) for t in TABLES}
    members: dict[str, dict[str, bytes]] = {f: {} for f in route.formats}
    for table in TABLES:
        unit = f"export/{table.name}"
        if staging.render(unit, keys[table.name]):
            for export_format, data in _table_files(con, table, meta, scratch):
                members[export_format][table.name] = data
                yield route.file_path(export_format, table.name), data, unit
        else:
            for export_format in route.formats:
                members[export_format][table.name] = staging.read(route.file_path(export_format, table.name))
    if staging.render("export/dataset", unit_key(*keys.values())):
        yield from ((path, data, "export/dataset") for path, data in _dataset_files(meta, counts, members))


def _table_files(
    con: duckdb.DuckDBPyConnection, table: Table, meta: dict[str, object], scratch: Callable[[str], str]
) -> Iterator[tuple[str, bytes]]:
    """One table's json, jsonl, csv and parquet files, as (format, body)."""
    route = EXPORT_ROUTE
    rows = _json_rows(con, table)
    path = route.file_path("json", table.name)
    body = {"meta": {**meta, "table": table.name, "rows": len(rows)}, "links": {"self": path}}
    yield "json", serialize.envelope(body, rows)
    yield "jsonl", serialize.json_lines(rows)  # the same bytes per row: data tools read it without the envelope
    for export_format, options in (("csv", "FORMAT csv, HEADER, NEW_LINE '\r\n'"), ("parquet", "FORMAT parquet")):
        path = scratch(f"{table.name}.{export_format}")
        select = _csv_select(table) if export_format == "csv" else (
            f"SELECT * FROM {table.name} ORDER BY {_order(table)}")
        quoted = path.replace("'", "''")
        con.execute(f"COPY ({select}) TO '{quoted}' ({options})")
        with open(path, "rb") as handle:
            data = handle.read()
        os.remove(path)
        yield export_format, data


SNAPSHOT_ARCHIVE = "/api/snapshots/{id}/dataset-csv.zip"
"""Where object storage keeps each snapshot's CSV archive for good (``scripts/deploy-s3`` copies it there once and
never deletes it): an address that does not change, for research to cite."""


def snapshot(as_of: str, sha256: str) -> dict[str, str]:
    """A snapshot's name: its as-of date and the sha256 of its CSV dataset archive (the dataset as a whole, every
    table's file and the manifest), ``id`` the two together, short; ``archive`` the address that keeps it."""
    name = f"{as_of}.{sha256[:12]}"
    return {"id": name, "as_of": as_of, "sha256": sha256, "archive": SNAPSHOT_ARCHIVE.format(id=name)}


def _dataset_files(
    meta: dict[str, object], counts: dict[str, int], members: dict[str, dict[str, bytes]]
) -> Iterator[tuple[str, bytes]]:
    """The whole dataset per format (a zip of the table files and their manifest) and ``/api/export``, the
    manifest of every file."""
    route = EXPORT_ROUTE
    total = sum(counts.values())
    manifests = {
        f: [{"table": t, **_describe(route.file_path(f, t), counts[t], data)} for t, data in members[f].items()]
        for f in route.formats
    }
    datasets: dict[str, dict[str, object]] = {}
    for export_format in route.formats:
        inner = serialize.document({"data": {"format": export_format, "files": manifests[export_format]},
                                    "meta": meta})
        compress = zipfile.ZIP_STORED if export_format == "parquet" else zipfile.ZIP_DEFLATED  # parquet: compressed
        files = [(f"{table}.{export_format}", data) for table, data in members[export_format].items()]
        archive = _archive([*files, (ARCHIVE_MANIFEST, inner)], compress)
        archive_path = route.dataset_path(export_format)
        datasets[export_format] = _describe(archive_path, total, archive)
        yield archive_path, archive
    yield route.index_path(), serialize.document({
        "data": {"formats": [{"format": f, "dataset": datasets[f], "files": manifests[f]} for f in route.formats],
                 "tables": counts, "snapshot": snapshot(str(meta["as_of"]), str(datasets["csv"]["sha256"]))},
        "meta": meta, "links": {"self": route.index_path()},
    })
