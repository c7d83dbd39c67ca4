"""Files that come to the output writer as a stream (``create``) or as a file written in its scratch space
(``place``: DuckDB's COPY) keep what a file given as bytes has: the same digest manifest line, a hard link to the
previous output's file where the bytes are equal (a no-op rebuild rewrites no file), one write per path, nothing
left behind by a failed write, and a recycled folder's file replaced, never written into."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path

import pytest

from generator.dataset import serialize
from generator.output import manifest
from generator.output.manifest import DIGESTS_FILE, UNITS_FILE, unit_run, units_pieces
from generator.output.staged import OutputError, StagedFiles
from generator.output.writer import OutputWriter

BODY = b'{"data":[1,2,3]}\n' * 1000


def _write_three_ways(writer: OutputWriter, body: bytes) -> list[tuple[str, int]]:
    """``body`` at three paths: as bytes, streamed in pieces and placed from a scratch file; each (sha256, size)
    the writer returned."""
    writer.write("/api/bytes.json", body, "unit/a")
    with writer.create("/api/streamed.json", "unit/a") as out:
        for start in range(0, len(body), 333):
            out.write(body[start:start + 333])
    made = writer.scratch("made.json")
    Path(made).write_bytes(body)
    placed = writer.place("/api/placed.json", made, "unit/a")
    assert not os.path.exists(made)
    assert out.written is not None
    return [tuple(out.written), tuple(placed)]  # type: ignore[list-item]


def _commit(writer: OutputWriter) -> None:
    writer.write_units()
    writer.write_digests()
    writer.commit()


def _manifest(out: Path) -> dict[str, list[str]]:
    lines = (out / DIGESTS_FILE).read_text(encoding="utf-8").splitlines()
    return {fields[0]: fields[1:] for fields in (line.split("\t") for line in lines)}


def test_streamed_and_placed_files_are_written_as_bytes_are(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    writer = OutputWriter(out, "code")
    assert _write_three_ways(writer, BODY) == [(hashlib.sha256(BODY).hexdigest(), len(BODY))] * 2
    assert writer.stats.written == 3
    _commit(writer)
    manifest = _manifest(out)
    assert manifest["api/streamed.json"] == manifest["api/placed.json"] == manifest["api/bytes.json"]
    assert {(out / "api" / name).read_bytes() for name in ("bytes.json", "streamed.json", "placed.json")} == {BODY}
    assert not list((out).rglob(".scratch"))


def test_equal_bytes_are_linked_from_the_previous_output(tmp_path: Path) -> None:
    """Twice the same bytes: the second build links every file from the first (same inode, nothing rewritten);
    then changed bytes are written afresh."""
    out = tmp_path / "dist"
    first = OutputWriter(out, "code")
    _write_three_ways(first, BODY)
    _commit(first)
    inodes = {name: os.stat(out / "api" / name).st_ino for name in ("bytes.json", "streamed.json", "placed.json")}
    again = OutputWriter(out, "code")
    _write_three_ways(again, BODY)
    assert again.stats.written == 0
    _commit(again)
    assert {name: os.stat(out / "api" / name).st_ino for name in inodes} == inodes
    changed = OutputWriter(out, "code")  # recycles the first output as its staging folder
    assert changed.recycled
    _write_three_ways(changed, BODY + b"\n")
    assert changed.stats.written == 3
    _commit(changed)
    for name, inode in inodes.items():
        assert (out / "api" / name).read_bytes() == BODY + b"\n"
        assert os.stat(out / "api" / name).st_ino != inode
    assert (tmp_path / ".dist.retired" / "api" / "placed.json").read_bytes() == BODY  # replaced, not written into


def test_a_file_edited_since_the_manifest_is_compared_byte_by_byte(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    first = OutputWriter(out, "code")
    _write_three_ways(first, BODY)
    _commit(first)
    for name in ("streamed.json", "placed.json"):  # same size, other bytes, written after the manifest
        path = out / "api" / name
        path.write_bytes(BODY.replace(b"1", b"9"))
    again = OutputWriter(out, "code")
    _write_three_ways(again, BODY)
    assert again.stats.written == 2 and again.rewritten == {"api/streamed.json", "api/placed.json"}
    again.abort()


def test_a_failed_stream_leaves_nothing(tmp_path: Path) -> None:
    writer = OutputWriter(tmp_path / "dist", "code")
    with pytest.raises(RuntimeError, match="stopped"), writer.create("/api/a.json") as out:
        out.write(b"half of it")
        raise RuntimeError("stopped")
    assert [p for p in writer.staging.rglob("*") if p.is_file()] == []
    with writer.create("/api/a.json") as out:  # the path was never claimed
        out.write(b"{}")
    assert (writer.staging / "api" / "a.json").read_bytes() == b"{}"
    writer.abort()


def test_one_write_per_path_and_only_from_the_scratch_space(tmp_path: Path) -> None:
    writer = OutputWriter(tmp_path / "dist", "code")
    writer.write("/api/a.json", b"1")
    with pytest.raises(OutputError, match="two writes"), writer.create("/api/a.json") as out:
        out.write(b"2")
    made = writer.scratch("b.json")
    Path(made).write_bytes(b"2")
    with pytest.raises(OutputError, match="two writes"):
        writer.place("api/a.json", made)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(b"3")
    with pytest.raises(OutputError, match="scratch space"):
        writer.place("/api/c.json", str(elsewhere))
    with pytest.raises(OutputError, match="outside the output"):
        writer.create("/api/../../x.json").__enter__()
    assert elsewhere.read_bytes() == b"3" and writer.read("/api/a.json") == b"1"
    with writer.open("/api/a.json") as handle:
        assert handle.read() == b"1"
    writer.abort()


def test_a_worker_streams_into_the_shared_staging_folder(tmp_path: Path) -> None:
    """A ``StagedFiles`` of its own (a worker process's) streams into the same staging folder's scratch space."""
    writer = OutputWriter(tmp_path / "dist", "code")
    files = StagedFiles(str(writer.staging), None)
    with files.create("/api/w.json", "unit/w") as out:
        out.write(b"[]")
    files.detach()
    writer.merge(files)
    _commit(writer)
    assert (tmp_path / "dist" / "api" / "w.json").read_bytes() == b"[]"
    assert _manifest(tmp_path / "dist")["api/w.json"][2] == "unit/w"


def test_a_detached_worker_travels_light(tmp_path: Path) -> None:
    """What a worker's ``StagedFiles`` carries back to the build process: its counts, unit keys and run files, not the
    folders it made in a new staging folder nor its units' kinds; its unit keys move into the writer it merges into."""
    writer = OutputWriter(tmp_path / "dist", "code")
    files = StagedFiles(str(writer.staging), None)
    files.unit_keys["unit/w"] = "key"
    files.write("/api/a/b/w.json", b"[]", "unit/w")
    files.detach()
    assert not files.folders() and files.runs and files.stats.files == 1
    assert len(pickle.dumps(files)) < 1_000
    assert not files.unit_keys and files.unit_runs
    writer.merge(files)
    _commit(writer)
    assert (tmp_path / "dist" / "api" / "a" / "b" / "w.json").read_bytes() == b"[]"
    assert json.loads((tmp_path / "dist" / UNITS_FILE).read_bytes())["units"] == [["unit/w", "key"]]


def test_the_units_file_is_merged_from_runs(tmp_path: Path) -> None:
    """The units file made from run files and a dict, in pieces (``UNITS_AT_A_TIME`` units at a time), is the JSON
    document of every unit sorted by name."""
    keys = {f"company/{i}": f"k{i}" for i in range(25)} | {"company": "c", "company/1/x": "y", "listing:é": "z"}
    names = sorted(keys)
    runs = [unit_run({n: keys[n] for n in names[i::3]}, str(tmp_path)) for i in range(2)]
    mine = {n: keys[n] for n in names[2::3]}
    expected = serialize.document({"code": "c0", "units": sorted(keys.items())})
    for at_a_time in (1, 7, 10_000):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(manifest, "UNITS_AT_A_TIME", at_a_time)
            assert b"".join(units_pieces("c0", mine, runs)) == expected
    assert b"".join(units_pieces("c0", {}, [])) == serialize.document({"code": "c0", "units": []})
