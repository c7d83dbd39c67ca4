"""A render task that runs out of DuckDB's memory is undone and rendered again at the next limit
(``render.render_task``, ``connections.TASK_LIMITS``), whatever it wrote or carried before it ran out."""

from __future__ import annotations

import inspect
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from generator.api import details, exports, listing
from generator.cli import main
from generator.output.staged import SCRATCH_DIR, StagedFiles
from generator.pipeline import fanout
from generator.pipeline.build import BuildConfig, build
from generator.pipeline.connections import TASK_LIMITS

from .conftest import TINY, tree_digests


def _setting(limit: str) -> str:
    """How DuckDB shows ``limit`` back (``current_setting``)."""
    con = duckdb.connect(config={"memory_limit": limit})
    try:
        return str(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])  # type: ignore[index]
    finally:
        con.close()


def _short_once(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, tries: list[str],
                which: Callable[..., bool] = lambda *_: True) -> None:
    """``module.name`` (a function of the task's database) does its work (a generator of pages: yields every one,
    which the task writes), then runs out of DuckDB's memory when the database is at the first of ``TASK_LIMITS`` and
    ``which(*args)``; each such call's limit is appended to ``tries`` (in a worker process: its own copy). Worker
    processes are forked, so that they see the patch."""
    original, first = getattr(module, name), _setting(TASK_LIMITS[0])

    def check(limit: str, args: tuple[Any, ...]) -> None:
        if not which(*args):
            return
        tries.append(limit)
        if limit == first:
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 MiB")

    def short(con: duckdb.DuckDBPyConnection, *args: Any) -> Any:
        (limit,) = con.execute("SELECT current_setting('memory_limit')").fetchone()  # type: ignore[misc]
        if inspect.isgeneratorfunction(original):
            def pages() -> Iterator[Any]:
                yield from original(con, *args)
                check(limit, args)
            return pages()
        found = original(con, *args)
        check(limit, args)
        return found

    monkeypatch.setattr(module, name, short)
    monkeypatch.setattr(fanout, "_start_method", lambda: "fork")


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("where", ["listing", "profiles", "exports"])
def test_a_task_short_of_memory_after_writing_is_rendered_again_at_the_next_limit(
    tmp_path: Path, tiny_build: Path, monkeypatch: pytest.MonkeyPatch, workers: int, where: str,
) -> None:
    """The failed try wrote its files (every page of /api/companies, a shard of company profiles, the exports):
    they are removed, the next try writes them again, and the output is the same bytes as a build that never ran
    short; the progress says which task was rendered again and at what limit."""
    tries: list[str] = []
    if where == "listing":
        _short_once(monkeypatch, listing, "render", tries, lambda route, *_: route.name == "companies")
        task = "companies"
    elif where == "profiles":
        _short_once(monkeypatch, details, "detail_files", tries, lambda route, *_: route.name == "company")
        task = "company"
    else:
        _short_once(monkeypatch, exports, "write_exports", tries)
        task = "export"
    out = tmp_path / "dist"
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--workers", str(workers)])
    assert result.exit_code == 0, result.output
    assert f"({task}, at {TASK_LIMITS[1]} of DuckDB's memory: it needed more)" in result.output
    assert sum(f"({task}" in line for line in result.output.splitlines() if line.lstrip().startswith("listings: ")) == 1
    if workers == 0:  # the worker processes' calls are theirs
        assert tries == [_setting(TASK_LIMITS[0]), _setting(TASK_LIMITS[1])]
    assert tree_digests(out) == tree_digests(tiny_build)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_task_short_of_memory_after_carrying_its_files_over_is_rendered_again(
    tmp_path: Path, tiny_build: Path, monkeypatch: pytest.MonkeyPatch, workers: int,
) -> None:
    """A rebuild over an earlier output (and its retired one: the staging folder is recycled) carries a route's
    files over; the try that carried them then runs short: they are removed, and carried again."""
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    build(BuildConfig(TINY, out, force=True))  # a retired output beside it: the next build recycles it
    original, carried = listing.domains_of, []

    def domains_of(route: Any, paths: list[str]) -> Any:  # only a route carried over asks its paths' values
        carried.append(route.name)  # the first in each process runs short, after its files were carried over
        if len(carried) == 1:
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 MiB")
        return original(route, paths)

    monkeypatch.setattr(listing, "domains_of", domains_of)
    monkeypatch.setattr(fanout, "_start_method", lambda: "fork")
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--force",
                                       "--workers", str(workers)])
    assert result.exit_code == 0, result.output
    assert f"at {TASK_LIMITS[1]} of DuckDB's memory: it needed more" in result.output
    assert tree_digests(out) == tree_digests(tiny_build)


def test_a_discarded_writer_leaves_no_file_nor_run_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a writer wrote, those of its files already moved into sorted run files too, goes with ``discard``; a
    new writer then writes the same paths (each write refuses a path that exists)."""
    from generator.output import staged

    monkeypatch.setattr(staged, "RUN_FILES", 3)
    staging = tmp_path / "staging"
    staging.mkdir()
    files = StagedFiles(str(staging), None)
    for n in range(8):
        files.write(f"api/x/{n}.json", b"%d" % n, "unit:x")
    files.render("unit:x", "key")
    files.detach()
    assert len(files.runs) == 3 and len(files.unit_runs) == 1 and files.stats.files == 8
    files.discard()
    assert [p for p in staging.rglob("*") if p.is_file()] == []
    assert files.runs == [] and files.stats.files == 0
    assert os.listdir(staging / SCRATCH_DIR / "manifest") == []  # the run files too
    again = StagedFiles(str(staging), None)
    for n in range(8):
        again.write(f"api/x/{n}.json", b"%d" % n, "unit:x")
    assert sorted(os.listdir(staging / "api" / "x")) == sorted(f"{n}.json" for n in range(8))


def test_a_routes_next_shards_start_at_the_limit_its_earlier_shard_needed(
    tmp_path: Path, tiny_build: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The company profiles in shards of two: the first runs short at the first limit and is rendered at the second;
    the shards after it in the same process start there (no try wasted on each); the output is the same."""
    from generator.pipeline import work

    monkeypatch.setattr(work, "SHARD_RESOURCES", 2)
    tries: list[str] = []
    _short_once(monkeypatch, details, "detail_files", tries, lambda route, *_: route.name == "company")
    out = tmp_path / "dist"
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--workers", "0"])
    assert result.exit_code == 0, result.output
    shards = sum("(company, " in line for line in result.output.splitlines())
    assert shards > 2 and shards == sum(f"(company, at {TASK_LIMITS[1]} of DuckDB's memory" in line
                                        for line in result.output.splitlines())
    assert tries == [_setting(TASK_LIMITS[0])] + [_setting(TASK_LIMITS[1])] * shards
    assert tree_digests(out) == tree_digests(tiny_build)


def test_a_table_check_short_of_memory_is_done_again_at_the_next_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker checking a table (``tablewise.check_table``) runs out of DuckDB's memory once, after staging its rows:
    they are dropped and the table read again at the next of ``CHECK_LIMITS``; the checked table is the same."""
    from generator.dataset import load
    from generator.pipeline import connections, tablewise

    first, calls = _setting(connections.CHECK_LIMITS[0]), []
    original = load.read_into

    def read_into(staging: Any, *args: Any) -> Any:
        found = original(staging, *args)
        (limit,) = staging.con.execute("SELECT current_setting('memory_limit')").fetchone()
        calls.append(limit)
        if limit == first:
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 MiB")
        return found

    monkeypatch.setattr(load, "read_into", read_into)
    info = load.read_dataset_info(TINY)
    check = tablewise.check_table(str(TINY), "companies", info.as_of, str(tmp_path / "companies.parquet"))
    assert check.clean and calls == [first, _setting(connections.CHECK_LIMITS[1])]
    monkeypatch.undo()
    again = tablewise.check_table(str(TINY), "companies", info.as_of, str(tmp_path / "again.parquet"))
    assert again.clean
    con = duckdb.connect()
    rows = [con.execute(f"SELECT * FROM read_parquet('{tmp_path / name}') ORDER BY ALL").fetchall()
            for name in ("companies.parquet", "again.parquet")]
    assert rows[0] == rows[1] and len(rows[0]) > 0
    (limit,) = tablewise._database("unused").execute("SELECT current_setting('memory_limit')").fetchone()  # type: ignore[misc]
    assert limit == _setting(connections.MEMORY_LIMIT)  # the worker's own limit set back


@pytest.mark.parametrize("cause", ["memory", "other"])
def test_a_table_check_that_fails_names_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cause: str,
) -> None:
    """A worker's check of a table that fails for a cause other than its data (out of memory at every limit, or any
    other error) fails the build naming the table and its file, the limits tried, and what became of the output,
    without a traceback."""
    from generator.dataset import load
    from generator.pipeline import connections

    def read_into(staging: Any, *_: Any) -> Any:
        if staging.table.name == "ipos":
            if cause == "memory":
                raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 MiB")
            raise ValueError("a bug\nwith two lines")
        return original(staging, *_)

    original = load.read_into
    monkeypatch.setattr(load, "read_into", read_into)
    monkeypatch.setattr(fanout, "_start_method", lambda: "fork")
    out = tmp_path / "dist"  # a clean build: a rebuild checks its changed tables in the build process
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--workers", "2"])
    assert result.exit_code == 1, result.output
    if cause == "memory":
        why = ("duckdb.OutOfMemoryException: Out of Memory Error: failed to allocate data of size 16.0 MiB (DuckDB's "
               f"memory limit while a worker checks a table is {connections.CHECK_LIMITS[0]}; this one was tried "
               f"again at {' and '.join(connections.CHECK_LIMITS[1:])})")
    else:
        why = "ValueError: a bug"
    assert (f"Error: checking table `ipos` (ipos.csv) failed: {why}; there was no previous output in {out}, and "
            "none was written\n" in result.stderr), result.stderr
    assert "Traceback" not in result.output and not out.exists()
