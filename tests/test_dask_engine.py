"""The render stage on Dask distributed (``build --engine dask``): a local cluster of two workers builds the
embedded dataset into the same bytes as the local engine, file for file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from generator.pipeline.build import BuildConfig, build

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

distributed = pytest.importorskip("distributed")


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_dask_build_has_the_bytes_of_a_local_build(tmp_path: Path) -> None:
    local = build(BuildConfig(DATA, tmp_path / "local", workers=0))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        report = build(BuildConfig(DATA, tmp_path / "dask", engine="dask", scheduler=cluster.scheduler_address))
        assert report.files == local.files and report.bytes == local.bytes
        assert _tree(tmp_path / "dask") == _tree(tmp_path / "local")
        again = build(BuildConfig(DATA, tmp_path / "dask", engine="dask", scheduler=cluster.scheduler_address,
                                  force=True))  # a rebuild on Dask carries every file over
    assert again.written == 0 and _tree(tmp_path / "dask") == _tree(tmp_path / "local")
    assert not (tmp_path / "dask" / ".scratch").exists()


def test_an_unknown_engine_is_refused(tmp_path: Path) -> None:
    from generator.output.writer import OutputError

    with pytest.raises(OutputError, match="unknown engine"):
        build(BuildConfig(DATA, tmp_path / "out", engine="spark"))
    with pytest.raises(OutputError, match="needs --scheduler"):
        build(BuildConfig(DATA, tmp_path / "out", engine="dask"))
