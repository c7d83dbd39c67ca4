"""Build guarantees: deterministic bytes, no-op rebuilds rewrite nothing, failed or killed builds change nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.api.routes import ListRoute
from generator.cli import main
from generator.dataset.load import DataError
from generator.output.writer import OutputError, OutputWriter
from generator.pipeline.build import BuildConfig, build
from generator.pipeline.connections import TASK_LIMITS
from generator.pipeline.failures import TaskError

from .conftest import ROOT, TINY


def tree(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under root."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def inodes(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def test_two_builds_are_byte_identical(tmp_path: Path, tiny_build: Path) -> None:
    other = tmp_path / "again"
    build(BuildConfig(TINY, other))
    assert tree(other) == tree(tiny_build)


def test_noop_rebuild_rewrites_no_file(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    first = build(BuildConfig(TINY, out))
    before = inodes(out)
    second = build(BuildConfig(TINY, out, force=True))  # the full pipeline, not the unchanged-inputs shortcut
    assert second.written == 0 and second.files == first.files
    assert inodes(out) == before
    assert not (tmp_path / ".dist.staging").exists(), "staging folder left behind"
    assert tree(tmp_path / ".dist.retired") == tree(out), "the previous output is kept whole until the next build"


def test_unchanged_inputs_skip_the_build_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    first = build(BuildConfig(TINY, out))
    before = inodes(out)
    skipped = build(BuildConfig(TINY, out))
    assert list(skipped.stages) == ["unchanged"] and skipped.written == 0 and skipped.files == first.files
    forced = build(BuildConfig(TINY, out, force=True))
    assert "listings" in forced.stages and forced.written == 0 and forced.files == first.files
    assert inodes(out) == before


def test_changed_company_rewrites_only_changed_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    out = tmp_path / "dist"
    build(BuildConfig(data, out))
    before = tree(out)
    companies = data / "companies.csv"
    companies.write_text(companies.read_text().replace("Collaborative design software.", "Design tools."))
    report = build(BuildConfig(data, out))
    after = tree(out)
    changed = {path for path in after if before.get(path) != after[path]}
    profiles = {"api/companies/10.json", "api/companies/figma.json"}
    exports = {f"api/export/{f}/companies.{f}" for f in ("json", "csv", "parquet", "jsonl")}
    manifests = {"api/export/json/dataset.zip", "api/export/csv/dataset.zip", "api/export/parquet/dataset.zip",
                 "api/export/jsonl/dataset.zip",
                 "api/export/index.json", ".company-ipo-api",  # the marker records the inputs' fingerprint
                 ".company-ipo-api.digests", ".company-ipo-api.units",
                 "api/query-space.json", "_headers"}  # the snapshot's name (Dataset-Snapshot): another dataset
    assert profiles | exports <= changed <= profiles | exports | manifests
    assert report.written == len(changed)
    assert report.changes is not None and not report.changes.added and not report.changes.removed
    assert set(report.changes.changed) == {p for p in changed if not p.startswith(".")}


def test_bad_data_leaves_previous_output_untouched(tmp_path: Path, tiny_build: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    out = tmp_path / "dist"
    build(BuildConfig(data, out))
    before = inodes(out)
    (data / "ipos.csv").write_text((data / "ipos.csv").read_text().replace("listed,nasdaq", "listed,nowhere", 1))
    with pytest.raises(DataError, match=r"ipos.csv:2: column exchange"):
        build(BuildConfig(data, out))
    assert inodes(out) == before
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(out)])
    assert result.exit_code == 1 and "ipos.csv:2: column exchange" in result.output
    assert inodes(out) == before


def _processes_with(token: str) -> set[int]:
    """Processes whose environment holds ``token`` (workers inherit the build's environment)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "environ").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


@pytest.mark.parametrize(("workers", "engine"), [(0, "local"), (2, "local"), (2, "threads")])
def test_killed_build_leaves_previous_output_whole(tmp_path: Path, tiny_build: Path, workers: int, engine: str) -> None:
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    expected = tree(out)
    token = f"KILLED_BUILD_TEST={os.getpid()}-{workers}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KILLED_BUILD_TEST": token.partition("=")[2]}
    mid_build = 0  # kills that left a staging folder (each build removes what the one before left)
    staging = tmp_path / ".dist.staging"
    for delay in (0.3, 0.6, 0.9, 1.2):
        left_before = _inode(staging)
        child = subprocess.Popen(
            [sys.executable, "-m", "generator", "build", "--data", str(TINY), "--out", str(out), "--quiet",
             "--force", "--workers", str(workers), "--engine", engine],  # --force: the same inputs would skip it
            env=env, cwd=tmp_path,
        )
        # Kill once the build writes (its own staging folder exists, not the one the last kill left, and with
        # workers, they run): a fixed delay from the start would land before the first write on a busy machine,
        # where imports alone take over a second.
        deadline = time.monotonic() + 30
        while child.poll() is None and time.monotonic() < deadline and not (
            _inode(staging) not in (None, left_before) and len(_processes_with(token)) >= 1 + workers
        ):
            time.sleep(0.02)
        time.sleep(delay / 4)
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert tree(out) == expected, f"output changed after kill at {delay}s"
        mid_build += staging.exists()
        deadline = time.monotonic() + 10
        while (left := _processes_with(token)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, "a worker outlived the killed build"
    assert mid_build, "no kill happened during a build"
    build(BuildConfig(TINY, out, force=True))  # and the next build cleans up what the killed ones left
    assert tree(out) == expected
    # the lock file stays (unlocked), and the previous output until the next build
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dist.lock", ".dist.retired", "dist"]


def test_worker_processes_write_the_same_bytes(tmp_path: Path, tiny_build: Path) -> None:
    out = tmp_path / "dist"
    report = build(BuildConfig(TINY, out, workers=2))
    assert tree(out) == tree(tiny_build)
    assert report.files == len(tree(out)) and report.written == report.files
    assert sum(report.files_by_endpoint.values()) == report.files
    before = inodes(out)
    again = build(BuildConfig(TINY, out, workers=2, force=True))
    assert (again.files, again.written) == (report.files, 0)
    assert inodes(out) == before


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_forked_and_spawned_workers_carry_the_same_units(
    tmp_path: Path, tiny_build: Path, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forked worker inherits the previous manifest the build process read; a spawned one (a build called
    from a program running threads) reads it again. Either way a forced rebuild carries every unit over."""
    from generator.pipeline import fanout

    if threading.active_count() == 1 and sys.platform.startswith("linux"):
        assert fanout._start_method() == "fork"
    monkeypatch.setattr(fanout, "_start_method", lambda: method)
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out, workers=2))
    before = inodes(out)
    again = build(BuildConfig(TINY, out, workers=2, force=True))
    assert again.written == 0 and inodes(out) == before
    assert tree(out) == tree(tiny_build)
    # the third build recycles the first one's output; its listing thread starts after the pool
    threads: list[int] = []
    start_pool = fanout.start_pool
    monkeypatch.setattr(fanout, "start_pool",
                        lambda *args: threads.append(threading.active_count()) or start_pool(*args))
    third = build(BuildConfig(TINY, out, workers=2, force=True))
    assert third.written == 0 and tree(out) == tree(tiny_build) and threads == [threading.active_count()]


def test_refuses_to_replace_a_folder_it_did_not_build(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="not an output of this generator"):
        build(BuildConfig(TINY, precious))
    assert (precious / "notes.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["precious"]


@pytest.mark.parametrize("path", ["../escape.json", "/api/../../x.json", "api/x\x00.json", "", "a\\b.json"])
def test_writer_refuses_paths_outside_the_output(tmp_path: Path, path: str) -> None:
    writer = OutputWriter(tmp_path / "dist")
    try:
        with pytest.raises(OutputError):
            writer.write(path, b"{}")
    finally:
        writer.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_writer_refuses_a_second_write_to_one_file(tmp_path: Path) -> None:
    writer = OutputWriter(tmp_path / "dist")
    writer.write("/api/a.json", b"1")
    with pytest.raises(OutputError, match="two writes"):
        writer.write("api/a.json", b"2")
    writer.abort()


def test_build_command_reports_a_summary(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(tmp_path / "dist")])
    assert result.exit_code == 0, result.output
    assert "files" in result.output and "api/companies" in result.output
    assert "python -m generator serve --dir" in result.output


def test_rebuild_uses_the_digest_manifest_and_repairs_hand_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.output import staged as writer_module

    out = tmp_path / "dist"
    build(BuildConfig(TINY, out))
    listed = (out / ".company-ipo-api.digests").read_text().splitlines()
    assert len(listed) == len(tree(out)) - 1  # every file but the manifest itself
    read_back: list[str] = []
    original = writer_module.same_file_content

    def spy(path: str, data: bytes) -> bool:
        read_back.append(path)
        return original(path, data)

    monkeypatch.setattr(writer_module, "same_file_content", spy)
    before = inodes(out)
    assert build(BuildConfig(TINY, out, force=True)).written == 0
    assert inodes(out) == before
    assert [Path(p).name for p in read_back] == [".company-ipo-api.digests"]  # nothing else was read back
    # a file edited by hand after the build (same size, other bytes) is compared byte by byte and repaired
    profile = out / "api" / "companies" / "figma.json"
    expected = profile.read_bytes()
    time.sleep(0.05)
    profile.write_bytes(expected.replace(b"Figma", b"FIGMA"))
    report = build(BuildConfig(TINY, out, force=True))
    assert profile.read_bytes() == expected and report.written == 2  # by slug and by id: one file, two names
    assert report.changes is not None and report.changes.changed == ["api/companies/10.json",
                                                                      "api/companies/figma.json"]
    assert (out / "api" / "companies" / "10.json").samefile(profile)


OUT_OF_MEMORY = "Out of Memory Error: failed to allocate data of size 16.0 MiB (301.2 MiB/305.1 MiB used)"


def _fail_listing(monkeypatch: pytest.MonkeyPatch, route: str, before: Callable[[], None] = lambda: None) -> None:
    """Make ``route``'s rows table run out of DuckDB memory (in this process, or a worker forked from it)."""
    import duckdb

    from generator.api import listing
    from generator.pipeline import fanout

    original = listing.materialize

    def materialize(con: duckdb.DuckDBPyConnection, listed: ListRoute, info: object) -> str:
        if listed.name == route:
            before()
            raise duckdb.OutOfMemoryException(OUT_OF_MEMORY + "\n\nPossible solutions: ...")
        return original(con, listed, info)

    monkeypatch.setattr(listing, "materialize", materialize)
    monkeypatch.setattr(fanout, "_start_method", lambda: "fork")  # a spawned worker would not see the patch


@pytest.mark.parametrize("workers", [0, 2])
def test_a_failed_render_task_is_named_first_and_the_output_stays_whole(
    tmp_path: Path, tiny_build: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    build(BuildConfig(TINY, out, force=True))  # a retired output beside it: the failing build recycles it
    before = inodes(out)
    _fail_listing(monkeypatch, "companies")
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--force",
                                       "--workers", str(workers)])
    assert result.exit_code == 1, result.output
    error = ("Error: render task /api/companies (listing route `companies`, all its pages) failed: "
             f"duckdb.OutOfMemoryException: {OUT_OF_MEMORY} (DuckDB's memory limit in each worker's database is ")
    assert error in result.stderr and f"; the previous output in {out} is intact\n" in result.stderr
    assert (f"is {TASK_LIMITS[0]} while a task runs, raised to {' and then '.join(TASK_LIMITS[1:])} for a task that "
            "runs out of it)") in result.stderr
    assert "Traceback" not in result.output and "Possible solutions" not in result.output
    lines = result.stderr.splitlines()
    reported = next(i for i, line in enumerate(lines) if line.startswith("Error: "))
    moved = next(i for i, line in enumerate(lines) if "moved the staging folder aside" in line)
    assert reported < moved, "the error comes before the cleanup"
    assert inodes(out) == before
    retired = tmp_path / ".dist.retired"
    assert not (tmp_path / ".dist.staging").exists() and (retired / ".company-ipo-api.discarded").is_file()
    monkeypatch.undo()
    build(BuildConfig(TINY, out, force=True))  # recycles the failed build's staging folder, or removes it
    assert tree(out) == tree(tiny_build) and tree(retired) == tree(out)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_failed_export_task_is_named_as_the_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """The exports are a render task (in a worker, or inline without workers): its failure names them."""
    import duckdb

    from generator.api import exports
    from generator.pipeline import fanout

    def write_exports(*_: object) -> None:
        raise duckdb.OutOfMemoryException(OUT_OF_MEMORY)

    monkeypatch.setattr(exports, "write_exports", write_exports)
    monkeypatch.setattr(fanout, "_start_method", lambda: "fork")  # a spawned worker would not see the patch
    out = tmp_path / "dist"
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--workers", str(workers)])
    assert result.exit_code == 1, result.output
    assert ("Error: render task /api/export (the exports: every table in every format, the archives and the "
            f"manifest) failed: duckdb.OutOfMemoryException: {OUT_OF_MEMORY}") in result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_a_failed_task_stops_the_other_workers(
    tmp_path: Path, tiny_build: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other worker's task is killed, not waited for: it would finish only once the test lets it (never)."""
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    before = inodes(out)
    started, finished = tmp_path / "news-started", tmp_path / "news-finished"

    def wait_for(path: Path) -> None:
        deadline = time.monotonic() + 60
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    from generator.api import listing

    original = listing.materialize

    def slow(con: object, route: ListRoute, info: object) -> str:
        if route.name == "news":
            started.touch()
            wait_for(tmp_path / "never")
            finished.touch()
        return original(con, route, info)

    monkeypatch.setattr(listing, "materialize", slow)
    _fail_listing(monkeypatch, "companies", before=lambda: wait_for(started))  # while news renders
    messages: list[str] = []
    with pytest.raises(TaskError, match="/api/companies") as failure:
        build(BuildConfig(TINY, out, force=True, workers=2), messages.append, lambda e: messages.append(f"! {e}"))
    assert started.exists() and not finished.exists()
    assert messages.index(f"! {failure.value}") < next(i for i, m in enumerate(messages) if "staging" in m)
    assert inodes(out) == before and not (tmp_path / ".dist.staging").exists()


def test_a_results_filter_values_come_back_as_they_were_packed() -> None:
    """A finished task hands its filter values back packed (one string per filter): unpacked, they are the lists."""
    from generator.api.combinations import pack
    from generator.pipeline.render import RouteResult

    values = {"company": ["acme", "beta-co", "zeta"], "tag": [], "blank": [""], "sector": ["fintech"]}
    result = RouteResult("news", domains={name: pack(list(found)) for name, found in values.items()})
    assert result.values() == values
    assert all(isinstance(text, str) for _, text in result.domains.values())
