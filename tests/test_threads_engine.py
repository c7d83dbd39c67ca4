"""The render stage on threads of the build process (``build --engine threads``): the worker processes validate the
tables and stop; the build process's threads render the same bytes as the processes, each task on its own DuckDB
database, and a failed task is named and leaves the previous output whole."""

from __future__ import annotations

import multiprocessing
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.pipeline import fanout
from generator.pipeline.build import BuildConfig, build
from tests.conftest import ipos_out_of_memory, tree_digests

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def test_threads_render_the_bytes_of_the_processes_in_the_build_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = build(BuildConfig(DATA, tmp_path / "local", workers=2))
    seen: list[tuple[int, str, int]] = []  # (process, thread, live child processes) of each task
    left: list[str] = []  # temporary tables in a thread's database after a task (the next task's would start with)
    run_task = fanout.run_task

    def recording(*args: object) -> object:
        seen.append((os.getpid(), threading.current_thread().name, len(multiprocessing.active_children())))
        done = run_task(*args)  # type: ignore[arg-type]
        con = fanout._connections[threading.get_ident()][1]
        left.extend(t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall())
        return done

    monkeypatch.setattr(fanout, "run_task", recording)
    messages: list[str] = []
    report = build(BuildConfig(DATA, tmp_path / "threads", workers=2, engine="threads"), messages.append)
    assert report.files == local.files and report.bytes == local.bytes
    assert tree_digests(tmp_path / "threads") == tree_digests(tmp_path / "local")
    assert any("tasks on 2 threads" in m for m in messages)
    assert seen and {pid for pid, _, _ in seen} == {os.getpid()}  # not a worker process's
    assert {name.split("_")[0] for _, name, _ in seen} == {"render"} and len({n for _, n, _ in seen}) <= 2
    assert {children for _, _, children in seen} == {0}  # the validating processes stopped first
    assert left == []  # each task drops the tables it made (``render.render_task``)
    assert not fanout._connections  # each thread's database closed with the pool
    again = build(BuildConfig(DATA, tmp_path / "threads", workers=2, engine="threads", force=True))
    assert again.written == 0 and tree_digests(tmp_path / "threads") == tree_digests(tmp_path / "local")
    assert not (tmp_path / "threads" / ".scratch").exists()


def test_a_failed_task_on_a_thread_is_named_and_the_output_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.pipeline.failures import TaskError

    out = tmp_path / "dist"
    build(BuildConfig(DATA, out, workers=0))
    before = tree_digests(out)
    ipos_out_of_memory(monkeypatch)
    messages: list[str] = []
    with pytest.raises(TaskError) as failure:
        build(BuildConfig(DATA, out, workers=2, engine="threads", force=True), messages.append,
              lambda error: messages.append(f"failed: {error}"))
    assert str(failure.value).startswith("render task /api/ipos (listing route `ipos`, all its pages) failed: "
                                         "duckdb.OutOfMemoryException: Out of Memory Error: failed to allocate")
    assert "DuckDB's memory limit in each worker's database is" in str(failure.value)
    assert messages.index(f"failed: {failure.value}") < next(i for i, m in enumerate(messages) if "staging" in m)
    assert tree_digests(out) == before and not (tmp_path / ".dist.staging").exists()
    assert not fanout._connections and not [t for t in threading.enumerate() if t.name.startswith("render")]


def test_the_cli_takes_the_threads_engine(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", "--data", str(DATA), "--out", str(tmp_path / "out"), "--workers",
                                       "2", "--engine", "threads"])
    assert result.exit_code == 0, result.output
    assert "tasks on 2 threads" in result.output
    refused = CliRunner().invoke(main, ["build", "--data", str(DATA), "--out", str(tmp_path / "x"), "--engine",
                                        "thread"])
    assert refused.exit_code == 2 and "'local', 'threads', 'dask'" in refused.output
