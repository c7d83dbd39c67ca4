"""A rebuild reads and validates only the tables whose file changed; the others come from the previous output's
parquet exports. Whatever it reads, the output and every error report are those of a clean build."""

from __future__ import annotations

import csv
import os
import shutil
import time
from pathlib import Path

import pytest

from generator.dataset import load as load_module
from generator.dataset.load import DataError, validate
from generator.output.manifest import DIGESTS_FILE, UNITS_FILE
from generator.pipeline.build import BuildConfig, build

from .conftest import TINY
from .test_build import tree
from .test_rebuild_units import bump_valuation

BOOKKEEPING = {".company-ipo-api", DIGESTS_FILE, UNITS_FILE}


def published(root: Path) -> dict[str, str]:
    return {path: digest for path, digest in tree(root).items() if path not in BOOKKEEPING}


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Files read and validated row by row by builds in this process."""
    names: list[str] = []
    original = load_module.read_blocks

    def spy(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        names.append(path.name)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(load_module, "read_blocks", spy)
    return names


def rewrite_rows(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([rows[0], *change(rows[1:])])


def test_a_rebuild_reads_only_the_changed_table(tmp_path: Path, read: list[str]) -> None:
    data, out, clean = tmp_path / "data", tmp_path / "dist", tmp_path / "clean"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    assert "companies.csv" in read and "news.csv" in read
    read.clear()
    build(BuildConfig(data, out, workers=0, force=True))
    assert read == []  # nothing changed: every table from the previous output

    bump_valuation(data, "figma")
    build(BuildConfig(data, out, workers=0))
    assert read == ["companies.csv"]
    build(BuildConfig(data, clean, workers=0))
    assert tree(out) == tree(clean)  # bookkeeping included: the same keys for the next build


def test_new_metadata_reads_every_table_again(tmp_path: Path, read: list[str]) -> None:
    data, out = tmp_path / "data", tmp_path / "dist"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    read.clear()
    info = data / "dataset.json"
    info.write_text(info.read_text(encoding="utf-8").replace('"disclaimer": "', '"disclaimer": "Note: '),
                    encoding="utf-8")
    build(BuildConfig(data, out, workers=0))
    assert sorted(read) == sorted(p.name for p in TINY.glob("*.csv"))


def test_a_hand_edited_export_is_not_trusted(tmp_path: Path, read: list[str]) -> None:
    data, out = tmp_path / "data", tmp_path / "dist"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    parquet = out / "api" / "export" / "parquet" / "news.parquet"
    time.sleep(0.05)
    os.utime(parquet)  # modified after the manifest was written: its rows may not be the table's any more
    read.clear()
    build(BuildConfig(data, out, workers=0, force=True))
    assert read == ["news.csv"]


def test_a_broken_reference_into_a_changed_table_is_reported_as_a_clean_build_does(
    tmp_path: Path, read: list[str]
) -> None:
    data, out = tmp_path / "data", tmp_path / "dist"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    before = tree(out)
    # company 4 goes; funding_rounds.csv, unchanged, still points at it
    rewrite_rows(data / "companies.csv", lambda rows: [r for r in rows if r[0] != "4"])
    with pytest.raises(DataError) as failed:
        build(BuildConfig(data, out, workers=0))
    with pytest.raises(DataError) as expected:
        validate(data)
    assert str(failed.value) == str(expected.value)
    assert any(i.file == "funding_rounds.csv" and i.line > 1 and i.column == "company_id"
               for i in failed.value.issues)
    assert tree(out) == before


def test_a_bad_row_in_the_changed_table_is_reported_as_a_clean_build_does(tmp_path: Path) -> None:
    data, out = tmp_path / "data", tmp_path / "dist"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    rewrite_rows(data / "news.csv", lambda rows: [*rows, [rows[0][0], *rows[0][1:]]])  # a duplicate id
    with pytest.raises(DataError) as failed:
        build(BuildConfig(data, out, workers=0))
    with pytest.raises(DataError) as expected:
        validate(data)
    assert str(failed.value) == str(expected.value) and "duplicate value" in str(failed.value)


def test_the_row_order_of_the_files_does_not_change_the_output(tmp_path: Path) -> None:
    data, first, second = tmp_path / "data", tmp_path / "first", tmp_path / "second"
    build(BuildConfig(TINY, first, workers=0))
    shutil.copytree(TINY, data)
    for path in data.glob("*.csv"):
        rewrite_rows(path, lambda rows: rows[::-1])
    build(BuildConfig(data, second, workers=0))
    assert published(second) == published(first)
