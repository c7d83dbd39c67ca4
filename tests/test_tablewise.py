"""Validation split by table across the worker processes loads exactly what the serial validation loads, and any
problem leaves the report to the serial validation, which gives it in full."""

from __future__ import annotations

import multiprocessing
import shutil
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import duckdb
import pytest

from generator.dataset.database import load_into, load_parquet
from generator.dataset.load import DataError, validate
from generator.dataset.schema import TABLES
from generator.pipeline import tablewise
from generator.pipeline.build import BuildConfig, build

from .conftest import EMBEDDED, TINY
from .test_reload import published, rewrite_rows


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as executor:
        yield executor


def _tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    return {t.name: con.execute(f"SELECT * FROM {t.name}").fetchall() for t in TABLES}


def _scratch(folder: Path):  # type: ignore[no-untyped-def]
    folder.mkdir(exist_ok=True)
    return lambda name: str(folder / name)


@pytest.mark.parametrize("data", [TINY, EMBEDDED], ids=["tiny", "embedded"])
def test_the_tables_equal_the_serial_load(data: Path, pool: ProcessPoolExecutor, tmp_path: Path) -> None:
    serial = duckdb.connect()
    info, tables = validate(data)
    load_into(serial, tables)
    found = tablewise.validate(data, pool, _scratch(tmp_path / "scratch"))
    assert found is not None and found[0] == info
    files = found[1]  # each table's parquet file
    assert sorted(files) == sorted(t.name for t in TABLES)
    assert sorted(Path(f) for f in files.values()) == sorted((tmp_path / "scratch").iterdir())
    split = duckdb.connect()
    load_parquet(split, files)
    assert _tables(split) == _tables(serial)  # every row, every value, in the same order


@pytest.mark.parametrize("change", [
    pytest.param(lambda rows: [*rows, rows[0]], id="a duplicate key"),
    pytest.param(lambda rows: [[*rows[0][:1], "999999", *rows[0][2:]], *rows[1:]], id="a broken reference"),
    pytest.param(lambda rows: [[*rows[0][:2], "not a date", *rows[0][3:]], *rows[1:]], id="a bad cell"),
])
def test_a_problem_is_left_to_the_serial_validation(change, pool: ProcessPoolExecutor, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    rewrite_rows(data / "news.csv", change)  # id, company_id, published_date, ...
    assert tablewise.validate(data, pool, _scratch(tmp_path / "scratch")) is None
    assert list((tmp_path / "scratch").iterdir()) == []  # no file left


def test_a_build_with_workers_reports_what_a_serial_build_reports(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    rewrite_rows(data / "news.csv", lambda rows: [*rows, rows[0], [*rows[1][:1], "999999", *rows[1][2:]]])
    reports = []
    for workers in (0, 2):
        with pytest.raises(DataError) as caught:
            build(BuildConfig(data, tmp_path / f"dist{workers}", workers=workers))
        reports.append(str(caught.value))
    assert reports[0] == reports[1]
    assert "news.csv" in reports[0] and "duplicate value" in reports[0] and "does not exist" in reports[0]


def test_a_build_with_workers_writes_what_a_serial_build_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = []
    original = tablewise.validate
    monkeypatch.setattr(tablewise, "validate", lambda *a: loaded.append(original(*a)) or loaded[-1])
    for workers in (0, 2):
        build(BuildConfig(TINY, tmp_path / f"dist{workers}", workers=workers))
    assert len(loaded) == 1 and loaded[0] is not None  # the build with workers validated table by table
    assert published(tmp_path / "dist0") == published(tmp_path / "dist2")
