"""The bulk export: every input table as json, csv (DuckDB COPY, RFC 4180), parquet (DuckDB COPY) and JSON Lines
(the json export's rows, one per line).

The whole dataset per format: one deterministic zip of every table's file plus its manifest (json too: one JSON
document of every table would be a third copy of every row beside the json and jsonl tables, 27 MB at 10k
companies and 270 MB at 100k, more than most tools load at once). ``/api/export`` (the manifest) lists every file
of every format with rows, bytes and sha256.
CSV text cells are guarded against spreadsheet formula injection.

No file is held whole in memory, so what the stage holds in Python does not grow with the dataset: rows come from
DuckDB a batch at a time into files written in pieces, DuckDB writes the csv and parquet files itself, the archives
are made from the staged files a block at a time, and every digest is counted on the way. (DuckDB sorts each table
for its files within its own memory limit, spilling beyond it.)
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import IO, Protocol

import duckdb

from generator.api.registry import EXPORT_ROUTE
from generator.dataset import serialize
from generator.dataset.database import PARQUET, duckdb_type, quoted
from generator.dataset.schema import TABLES, DatasetInfo, Table
from generator.output.manifest import unit_key
from generator.output.streams import StreamedFile, Written

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


EXPORT_BATCH_ROWS = 10_000
"""Rows fetched from DuckDB and serialized at a time: a table's json and jsonl files are written a batch at a time,
never whole in memory (10,000 news rows: about 4 MB of JSON)."""
COPY_BLOCK = 1 << 20
"""Bytes read at a time from a table's file into a dataset archive."""


def _json_batches(con: duckdb.DuckDBPyConnection, table: Table) -> Iterator[list[bytes]]:
    """The table's rows in key order, each serialized as its model writes it, ``EXPORT_BATCH_ROWS`` at a time
    (``serialize.table_row_batches``)."""
    return serialize.table_row_batches(con, table.model, table.name, _order(table), EXPORT_BATCH_ROWS)


ARCHIVE_MEMBER_DATE = (1980, 1, 1, 0, 0, 0)
ARCHIVE_MANIFEST = "manifest.json"


def _add_member(archive: zipfile.ZipFile, name: str, source: IO[bytes], size: int, compress: int) -> Written:
    """Copy ``size`` bytes of ``source`` into ``archive`` as member ``name``, a block at a time; their sha256.

    The bytes are those ``ZipFile.writestr`` writes with the whole file at once (the dataset archives' bytes and
    digests are published): fixed date, permissions and creator system, the size given before the member (it
    decides whether the member needs zip64 fields), and deflate's output, which does not depend on how its input
    is cut."""
    member = zipfile.ZipInfo(name, date_time=ARCHIVE_MEMBER_DATE)
    member.compress_type = compress
    member.create_system = 3
    member.external_attr = 0o100644 << 16
    member.file_size = size
    if compress == zipfile.ZIP_DEFLATED:
        # deflate level 9: the three archives of 10k companies take 6.3 MB instead of level 6's 6.6 MB (1's
        # 8.7 MB), for 1.8 s more CPU than level 6: the bytes count against the budget, the seconds do not.
        # ZipInfo has no public way to take a level (writestr's argument sets this; Python 3.13 names it
        # compress_level)
        setattr(member, "compress_level" if hasattr(member, "compress_level") else "_compresslevel", 9)
    hasher, copied = hashlib.sha256(), 0
    with archive.open(member, "w") as out:
        while block := source.read(COPY_BLOCK):
            hasher.update(block)
            out.write(block)
            copied += len(block)
    if copied != size:
        raise RuntimeError(f"{name}: {copied} bytes read, {size} expected")
    return Written(hasher.hexdigest(), size)


class Staging(Protocol):
    """Where the exports go (``OutputWriter``): decides which units render (``render``, see
    ``StagedFiles.render``), takes files as bytes (``write``), a piece at a time (``create``) or made by DuckDB in
    the scratch space (``place``), and opens a file already staged (``open``: written, or carried over from the
    previous output), which the whole-dataset files are made from."""

    def render(self, unit: str, key: str) -> bool: ...

    def write(self, path: str, data: bytes, unit: str = "") -> None: ...

    def create(self, path: str, unit: str = "") -> AbstractContextManager[StreamedFile]: ...

    def place(self, path: str, source: str, unit: str = "") -> Written: ...

    def open(self, path: str) -> IO[bytes]: ...


def write_exports(
    con: duckdb.DuckDBPyConnection, info: DatasetInfo, scratch: Callable[[str], str], staging: Staging,
    sources: dict[str, str],
) -> None:
    """Write every export file, archive and manifest into ``staging``; ``scratch(name)`` gives a temporary path
    inside the output folder; ``sources``: table name -> the key of the file it was loaded from and the
    dataset's metadata (``reload.source_keys``), which determine the loaded table.

    Each table's files (one per format) are the unit ``export/<table>``, keyed by its source: a table that did not
    change is carried over. The whole-dataset files (``export/dataset``) are made again, from the staged files
    of every table, only when some table changed."""
    meta = {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer, "license": info.license}
    about = info.model_dump_json()
    counts = {t.name: con.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0] for t in TABLES}  # type: ignore[index]
    keys = {t.name: unit_key(about, sources[t.name]) for t in TABLES}
    for table in TABLES:
        unit = f"export/{table.name}"
        if staging.render(unit, keys[table.name]):
            _write_table(con, table, meta, counts[table.name], scratch, staging, unit)
    if staging.render("export/dataset", unit_key(*keys.values())):
        _write_dataset(meta, counts, scratch, staging)


def _write_table(
    con: duckdb.DuckDBPyConnection, table: Table, meta: dict[str, object], rows: int, scratch: Callable[[str], str],
    staging: Staging, unit: str,
) -> None:
    """One table's json, jsonl, csv and parquet files (``rows``: its row count)."""
    route = EXPORT_ROUTE
    path = route.file_path("json", table.name)
    envelope = serialize.Envelope({"meta": {**meta, "table": table.name, "rows": rows}, "links": {"self": path}})
    written = 0
    with staging.create(path, unit) as json_file, staging.create(route.file_path("jsonl", table.name), unit) as lines:
        json_file.write(envelope.head)
        for batch in _json_batches(con, table):
            json_file.writelines(envelope.rows(batch))
            lines.write(serialize.json_lines(batch))  # the same bytes per row: data tools read it without the envelope
            written += len(batch)
        json_file.write(envelope.end())
    if written != rows:
        raise RuntimeError(f"{table.name}: {written} rows exported, {rows} counted")
    for export_format, options in (("csv", "FORMAT csv, HEADER, NEW_LINE '\r\n'"),
                                   ("parquet", PARQUET)):
        made = scratch(f"{table.name}.{export_format}")
        select = _csv_select(table) if export_format == "csv" else (
            f"SELECT * FROM {table.name} ORDER BY {_order(table)}")
        quoted = made.replace("'", "''")
        con.execute(f"COPY ({select}) TO '{quoted}' ({options})")
        staging.place(route.file_path(export_format, table.name), made, unit)


SNAPSHOT_ARCHIVE = "/api/snapshots/{id}/dataset-csv.zip"
"""Where object storage keeps each snapshot's CSV archive for good (``scripts/deploy-s3`` copies it there once and
never deletes it): an address that does not change, for research to cite."""


def snapshot(as_of: str, sha256: str) -> dict[str, str]:
    """A snapshot's name: its as-of date and the sha256 of its CSV dataset archive (the dataset as a whole, every
    table's file and the manifest), ``id`` the two together, short; ``archive`` the address that keeps it."""
    name = f"{as_of}.{sha256[:12]}"
    return {"id": name, "as_of": as_of, "sha256": sha256, "archive": SNAPSHOT_ARCHIVE.format(id=name)}


def _write_dataset(
    meta: dict[str, object], counts: dict[str, int], scratch: Callable[[str], str], staging: Staging,
) -> None:
    """The whole dataset per format (a zip of every table's file and their manifest, made from the staged files)
    and ``/api/export``, the manifest of every file."""
    route, unit = EXPORT_ROUTE, "export/dataset"
    total = sum(counts.values())
    manifests: dict[str, list[dict[str, object]]] = {}
    datasets: dict[str, dict[str, object]] = {}
    for export_format in route.formats:
        compress = zipfile.ZIP_STORED if export_format == "parquet" else zipfile.ZIP_DEFLATED  # parquet: compressed
        made = scratch(f"dataset.{export_format}.zip")
        files: list[dict[str, object]] = []
        with open(made, "wb") as handle, zipfile.ZipFile(handle, "w") as archive:
            for table, rows in counts.items():
                path = route.file_path(export_format, table)
                with staging.open(path) as source:
                    found = _add_member(archive, f"{table}.{export_format}", source, os.fstat(source.fileno()).st_size,
                                        compress)
                files.append({"table": table, "url": path, "rows": rows, "bytes": found.size, "sha256": found.sha256})
            inner = serialize.document({"data": {"format": export_format, "files": files}, "meta": meta})
            _add_member(archive, ARCHIVE_MANIFEST, io.BytesIO(inner), len(inner), compress)
        archive_path = route.dataset_path(export_format)
        placed = staging.place(archive_path, made, unit)
        datasets[export_format] = {"url": archive_path, "rows": total, "bytes": placed.size, "sha256": placed.sha256}
        manifests[export_format] = files
    staging.write(route.index_path(), serialize.document({
        "data": {"formats": [{"format": f, "dataset": datasets[f], "files": manifests[f]} for f in route.formats],
                 "tables": counts, "snapshot": snapshot(str(meta["as_of"]), str(datasets["csv"]["sha256"]))},
        "meta": meta, "links": {"self": route.index_path()},
    }), unit)
