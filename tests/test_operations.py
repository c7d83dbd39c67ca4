"""Real operations on one output: overlapping builds, a symlinked output, leftovers of dead builds, a full disk."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.output import writer
from generator.output.writer import OutputError
from generator.pipeline.build import OUTPUT_MARKER, BuildConfig, build

from .conftest import ROOT, TINY
from .test_build import tree

SLOW_BUILD = """
import sys, time
from generator.pipeline import build
from generator.cli import main
validate = build.validate_into
build.validate_into = lambda *a: (time.sleep(3), validate(*a))[1]  # holds the lock while the test starts another
sys.argv[0] = "generator"
main()
"""


def _build_process(out: Path, cwd: Path, slow: bool = False) -> subprocess.Popen[bytes]:
    start = ["-c", SLOW_BUILD] if slow else ["-m", "generator"]
    return subprocess.Popen(
        [sys.executable, *start, "build", "--data", str(TINY), "--out", str(out), "--quiet", "--force",
         "--workers", "0"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def test_a_second_build_on_a_locked_output_fails_at_once(tmp_path: Path, tiny_build: Path) -> None:
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    before = tree(out)
    with open(tmp_path / ".dist.lock", "a+b") as handle:  # as a running build holds it
        fcntl.flock(handle, fcntl.LOCK_EX)
        with pytest.raises(OutputError, match="another build is writing"):
            build(BuildConfig(TINY, out, force=True))
        result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--force"])
        assert result.exit_code == 1 and "another build is writing" in result.output
        assert "Traceback" not in result.output
    assert tree(out) == before and not (tmp_path / ".dist.staging").exists()
    build(BuildConfig(TINY, out, force=True))  # released: the next build runs
    assert tree(out) == before


def test_a_dataset_without_its_files_creates_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    (data / "news.csv").unlink()
    out = tmp_path / "new" / "site" / "dist"
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(out)])
    assert result.exit_code == 1 and "news.csv: file is missing" in result.output, result.output
    assert not (tmp_path / "new").exists()
    result = CliRunner().invoke(main, ["build", "--data", str(tmp_path / "nowhere"), "--out", str(out)])
    assert result.exit_code == 1 and "dataset.json: file is missing" in result.output, result.output
    assert not (tmp_path / "new").exists()


def test_overlapping_builds_never_both_write(tmp_path: Path, tiny_build: Path) -> None:
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    expected = tree(out)
    first = _build_process(out, tmp_path, slow=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / ".dist.staging").exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first.poll() is None, "the first build ended before it staged anything"
    second = _build_process(out, tmp_path)
    _, second_err = second.communicate(timeout=120)
    first.communicate(timeout=120)
    assert first.returncode == 0
    assert second.returncode == 1 and b"another build is writing" in second_err, second_err
    assert tree(out) == expected


def test_unchanged_marker_never_vouches_for_a_broken_tree(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out))
    expected = tree(out)
    (out / "api" / "companies" / "airbnb.json").unlink()  # what an overlapping build used to leave
    report = build(BuildConfig(TINY, out))
    assert "unchanged" not in report.stages
    assert tree(out) == expected
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert marker["files"] == len(expected)


def test_a_symlinked_output_is_followed_and_kept(tmp_path: Path, tiny_build: Path) -> None:
    release = tmp_path / "releases" / "current"
    release.mkdir(parents=True)
    dist = tmp_path / "dist"
    dist.symlink_to(Path("releases") / "current")
    expected = tree(tiny_build)
    for force in (False, True, False):
        build(BuildConfig(TINY, dist, force=force))
        assert dist.is_symlink() and os.readlink(dist) == "releases/current"
        assert tree(release) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist", "releases"]
    # the lock, the output and the previous output (removed by the next build while it renders)
    assert sorted(p.name for p in (tmp_path / "releases").iterdir()) == [".current.lock", ".current.retired",
                                                                          "current"]


def test_a_leftover_staging_link_does_not_break_builds(tmp_path: Path, tiny_build: Path) -> None:
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the build's")
    (tmp_path / ".dist.staging").symlink_to(elsewhere)
    build(BuildConfig(TINY, out, force=True))
    assert (elsewhere / "keep.txt").read_text() == "not the build's"  # the link went, not what it points at
    assert not (tmp_path / ".dist.staging").exists() and not (tmp_path / ".dist.staging").is_symlink()


def test_leftovers_of_a_killed_build_go_even_when_inputs_are_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out))
    for name in (".dist.staging", ".dist.retired"):
        (tmp_path / name / "api").mkdir(parents=True)
        (tmp_path / name / "api" / "big.json").write_bytes(b"x" * 1000)
    report = build(BuildConfig(TINY, out))
    assert list(report.stages) == ["unchanged"]
    # The staging folder goes at once; a retired folder beside a whole output is the previous output, which the
    # next build that writes removes in the background (a synchronous removal would make this no-op slow).
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dist.lock", ".dist.retired", "dist"]
    build(BuildConfig(TINY, out, force=True))
    assert not (tmp_path / ".dist.retired" / "api" / "big.json").exists()
    assert tree(tmp_path / ".dist.retired") == tree(out)


def test_a_kill_between_the_fallback_renames_is_recovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out))
    expected = tree(out)
    monkeypatch.setattr(writer, "_exchange", lambda a, b: False)  # a filesystem without RENAME_EXCHANGE
    renames = []

    def rename_then_die(source: Path, target: Path) -> None:
        if renames:
            raise KeyboardInterrupt("killed between the two renames")
        renames.append(source)
        os.rename(source, target)

    monkeypatch.setattr(writer, "_rename", rename_then_die)
    with pytest.raises(KeyboardInterrupt):
        build(BuildConfig(TINY, out, force=True))
    assert not out.exists() and (tmp_path / ".dist.retired").is_dir()
    monkeypatch.undo()
    report = build(BuildConfig(TINY, out))  # same inputs: the restored output is the answer
    assert list(report.stages) == ["unchanged"]
    assert tree(out) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dist.lock", "dist"]


def test_a_full_disk_is_one_line_and_the_output_is_intact(tmp_path: Path, tiny_build: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "dist"
    shutil.copytree(tiny_build, out)
    before = tree(out)
    calls = []

    def full(self: writer.StagedFiles, path: str) -> str:  # every file placed, written or carried over
        calls.append(path)
        if len(calls) > 20:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return original(self, path)

    original = writer.StagedFiles._claim
    monkeypatch.setattr(writer.StagedFiles, "_claim", full)
    result = CliRunner().invoke(main, ["build", "--data", str(TINY), "--out", str(out), "--force", "--quiet",
                                       "--workers", "0"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception.__class__ is SystemExit
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "disk is full" in lines[0] and "intact" in lines[0], lines
    assert tree(out) == before and not (tmp_path / ".dist.staging").exists()


def test_a_full_disk_without_a_previous_output_does_not_claim_one(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: writer.StagedFiles, path: str) -> str:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(writer.StagedFiles, "_claim", full)
    out = tmp_path / "dist"
    with pytest.raises(OutputError) as caught:
        build(BuildConfig(TINY, out, force=True, workers=0))
    message = str(caught.value)
    assert "disk is full" in message and "intact" not in message, message
    assert message.endswith(f"there was no previous output in {out}, and none was written"), message
    assert not out.exists() and not (tmp_path / ".dist.staging").exists()
