"""The render stage on Dask distributed (``build --engine dask``): a local cluster of two workers builds the
embedded dataset into the same bytes as the local engine, file for file."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.pipeline.build import BuildConfig, build
from tests.conftest import ipos_out_of_memory, tree_digests

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

distributed = pytest.importorskip("distributed")


def test_dask_build_has_the_bytes_of_a_local_build(tmp_path: Path) -> None:
    local = build(BuildConfig(DATA, tmp_path / "local", workers=0))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        report = build(BuildConfig(DATA, tmp_path / "dask", engine="dask", scheduler=cluster.scheduler_address))
        assert report.files == local.files and report.bytes == local.bytes
        assert tree_digests(tmp_path / "dask") == tree_digests(tmp_path / "local")
        again = build(BuildConfig(DATA, tmp_path / "dask", engine="dask", scheduler=cluster.scheduler_address,
                                  force=True))  # a rebuild on Dask carries every file over
    assert again.written == 0 and tree_digests(tmp_path / "dask") == tree_digests(tmp_path / "local")
    assert not (tmp_path / "dask" / ".scratch").exists()


def test_an_unknown_engine_is_refused(tmp_path: Path) -> None:
    from generator.output.writer import OutputError

    with pytest.raises(OutputError, match="unknown engine"):
        build(BuildConfig(DATA, tmp_path / "out", engine="spark"))
    with pytest.raises(OutputError, match="needs --scheduler"):
        build(BuildConfig(DATA, tmp_path / "out", engine="dask"))


def test_a_failed_dask_task_is_named_first_and_the_output_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task that raises on a Dask worker (threads of this process, which see the patch) fails the build with the
    task and its cause, reported before the staging folder is moved aside; the previous output is untouched."""
    from generator.pipeline.failures import TaskError

    out = tmp_path / "dist"
    build(BuildConfig(DATA, out, workers=0))
    before = tree_digests(out)
    ipos_out_of_memory(monkeypatch)
    messages: list[str] = []
    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
          as cluster, pytest.raises(TaskError) as failure):
        build(BuildConfig(DATA, out, engine="dask", scheduler=cluster.scheduler_address, force=True),
              messages.append, lambda error: messages.append(f"failed: {error}"))
    assert str(failure.value).startswith("render task /api/ipos (listing route `ipos`, all its pages) failed: "
                                         "duckdb.OutOfMemoryException: Out of Memory Error: failed to allocate")
    assert messages.index(f"failed: {failure.value}") < next(i for i, m in enumerate(messages) if "staging" in m)
    assert tree_digests(out) == before and not (tmp_path / ".dist.staging").exists()
