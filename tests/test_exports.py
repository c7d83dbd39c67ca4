"""The exports are written a batch of rows and a block of bytes at a time, never a table or an archive whole in
memory, and their bytes are those of the whole-table functions: each table's json and jsonl file is
``serialize.envelope`` and ``serialize.json_lines`` of ``serialize.table_rows``, each dataset archive the zip
``ZipFile.writestr`` makes of the whole files (the archives' bytes and digests are published), and the manifests
list what the files hold."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import duckdb
import pytest

from generator.api import exports
from generator.api.registry import EXPORT_ROUTE
from generator.dataset import serialize
from generator.dataset.schema import TABLES, DatasetInfo
from generator.output import streams
from generator.output.staged import StagedFiles
from generator.output.writer import OutputWriter
from generator.pipeline import reload
from tests.conftest import EMBEDDED

ROUTE = EXPORT_ROUTE


def _export(
    con: duckdb.DuckDBPyConnection, info: DatasetInfo, out: Path, sources: dict[str, str] | None = None,
) -> OutputWriter:
    """The exports alone, into ``out`` (committed, with their bookkeeping)."""
    writer = OutputWriter(out, "code")
    try:
        writer.ready({ROUTE.path})
        exports.write_exports(con, info, writer.scratch, writer, sources or reload.source_keys(EMBEDDED))
        writer.write_units()
        writer.write_digests()
    except BaseException:
        writer.abort()
        raise
    writer.commit()
    return writer


def _files(out: Path) -> dict[str, bytes]:
    folder = out / ROUTE.path.lstrip("/")
    return {"/" + str(path.relative_to(out)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def _whole_archive(members: list[tuple[str, bytes]], compress: int) -> bytes:
    """A dataset archive as it was made before it was streamed: in memory, each member at once."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            member = zipfile.ZipInfo(name, date_time=exports.ARCHIVE_MEMBER_DATE)
            member.compress_type = compress
            member.create_system = 3
            member.external_attr = 0o100644 << 16
            archive.writestr(member, data, compresslevel=9 if compress == zipfile.ZIP_DEFLATED else None)
    return buffer.getvalue()


def _describe(path: str, rows: int, data: bytes) -> dict[str, object]:
    return {"url": path, "rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


@pytest.fixture
def tiny_batches(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Batches of 2 rows, archives copied 5 bytes at a time; every piece written into a streamed file, recorded."""
    monkeypatch.setattr(exports, "EXPORT_BATCH_ROWS", 2)
    monkeypatch.setattr(exports, "COPY_BLOCK", 5)
    pieces: list[bytes] = []
    write = streams.StreamedFile.write

    def recorded(self: streams.StreamedFile, data: bytes) -> None:
        pieces.append(bytes(data))
        write(self, data)

    monkeypatch.setattr(streams.StreamedFile, "write", recorded)
    return pieces


def test_batched_exports_are_the_whole_tables_bytes(
    embedded_db, tmp_path: Path, tiny_batches: list[bytes], monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    con, info = embedded_db
    whole = {t.name: serialize.table_rows(con, t.model, t.name, exports._order(t)) for t in TABLES}
    counts = {name: len(rows) for name, rows in whole.items()}
    assert max(counts.values()) > 2 * exports.EXPORT_BATCH_ROWS  # several batches
    as_bytes: list[str] = []
    monkeypatch.setattr(serialize, "table_rows", lambda *args: pytest.fail("a whole table fetched"))
    monkeypatch.setattr(serialize, "duckdb_rows", lambda *args: pytest.fail("a whole table fetched"))
    monkeypatch.setattr(OutputWriter, "write", lambda self, path, *args: as_bytes.append(path) or
                        StagedFiles.write(self, path, *args))
    out = tmp_path / "dist"
    _export(con, info, out)
    files = _files(out)

    # no piece written holds more than a batch of rows (rows are one line each), no file came whole as bytes
    assert [path for path in as_bytes if path.startswith("/api/")] == [ROUTE.index_path()]
    assert max(piece.count(b"\n") for piece in tiny_batches) <= exports.EXPORT_BATCH_ROWS

    meta = {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer, "license": info.license}
    for table in TABLES:
        path = ROUTE.file_path("json", table.name)
        body = {"meta": {**meta, "table": table.name, "rows": counts[table.name]}, "links": {"self": path}}
        assert files[path] == serialize.envelope(body, whole[table.name])
        assert files[ROUTE.file_path("jsonl", table.name)] == serialize.json_lines(whole[table.name])

    # the archives and the manifests, as they were made from whole files
    datasets, manifests = {}, {}
    for export_format in ROUTE.formats:
        paths = {t.name: ROUTE.file_path(export_format, t.name) for t in TABLES}
        manifests[export_format] = [{"table": t, **_describe(p, counts[t], files[p])} for t, p in paths.items()]
        inner = serialize.document({"data": {"format": export_format, "files": manifests[export_format]},
                                    "meta": meta})
        compress = zipfile.ZIP_STORED if export_format == "parquet" else zipfile.ZIP_DEFLATED
        members = [(f"{t}.{export_format}", files[p]) for t, p in paths.items()]
        archive = _whole_archive([*members, (exports.ARCHIVE_MANIFEST, inner)], compress)
        assert files[ROUTE.dataset_path(export_format)] == archive, export_format
        datasets[export_format] = _describe(ROUTE.dataset_path(export_format), sum(counts.values()), archive)
    assert files[ROUTE.index_path()] == serialize.document({
        "data": {"formats": [{"format": f, "dataset": datasets[f], "files": manifests[f]} for f in ROUTE.formats],
                 "tables": counts, "snapshot": exports.snapshot(info.as_of.isoformat(), datasets["csv"]["sha256"])},
        "meta": meta, "links": {"self": ROUTE.index_path()},
    })


def test_batch_size_does_not_change_a_byte(embedded_db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    con, info = embedded_db
    one_batch = _files(_export(con, info, tmp_path / "whole").out)
    monkeypatch.setattr(exports, "EXPORT_BATCH_ROWS", 1)
    monkeypatch.setattr(exports, "COPY_BLOCK", 1)
    assert _files(_export(con, info, tmp_path / "single").out) == one_batch


def test_archives_are_made_from_carried_files(embedded_db, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A rebuild where one table's source changed renders that table again and the dataset files from the files
    of every table, the others carried over (hard links, read back from the staging folder): the same bytes,
    and, the bytes being the previous output's, not one export file rewritten."""
    con, info = embedded_db
    out = tmp_path / "dist"
    sources = reload.source_keys(EMBEDDED)
    _export(con, info, out, sources)
    before = _files(out)
    inodes = {path: os.stat(out / path.lstrip("/")).st_ino for path in before}
    writer = _export(con, info, out, {**sources, "news": "changed"})
    assert writer.carried("export/companies") and not writer.carried("export/news")
    assert _files(out) == before
    assert {path: os.stat(out / path.lstrip("/")).st_ino for path in before} == inodes


def test_a_failed_export_leaves_no_file(embedded_db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """An error half-way through a table's rows: its streamed files are dropped from the scratch space, none is
    placed."""
    con, info = embedded_db
    monkeypatch.setattr(exports, "EXPORT_BATCH_ROWS", 2)

    def failing(*args: object) -> object:
        yield [b"{}"]
        raise RuntimeError("stopped")

    monkeypatch.setattr(serialize, "table_row_batches", failing)
    writer = OutputWriter(tmp_path / "dist", "code")
    writer.ready({ROUTE.path})
    with pytest.raises(RuntimeError, match="stopped"):
        exports.write_exports(con, info, writer.scratch, writer, reload.source_keys(EMBEDDED))
    staging = Path(writer.staging)
    assert not writer.digests and [p for p in staging.rglob("*") if p.is_file()] == []
    writer.abort()
