"""Validation reads a table's rows a block at a time into DuckDB, where its keys and references are checked: the
size of the block changes neither a report (every file, line, column and reason, in the same order) nor the
rows loaded, nor a byte of the output."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from generator.dataset import load
from generator.dataset.load import DataError, validate, validate_into
from generator.dataset.schema import TABLES
from generator.pipeline.build import BuildConfig, build

from .conftest import EMBEDDED, TINY
from .test_reload import published, rewrite_rows

BLOCKS = (1, 2, 3, 7)


def _report(data: Path, block: int | None) -> str:
    with pytest.raises(DataError) as caught:
        validate(data, block=block)
    return str(caught.value)


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8", newline="") as handle:
        handle.write(text)


def _many_problems(data: Path) -> None:
    """Problems of every kind that a check across rows finds, in files read in several blocks."""
    rewrite_rows(data / "companies.csv", lambda rows: [  # a duplicate id, two duplicate slugs, a reserved slug
        *rows[:3], [*rows[3][:1], "sort", *rows[3][2:]], *rows[4:], rows[0],
        *([str(900 + i), *rows[i][1:]] for i in (1, 2))])
    rewrite_rows(data / "round_investors.csv", lambda rows: [*rows, rows[1], ["1", "99999", "true"]])
    rewrite_rows(data / "news.csv", lambda rows: [[rows[0][0], "777777", *rows[0][2:]], *rows[1:]])
    rewrite_rows(data / "investors.csv", lambda rows: [[f"{rows[0][0]} ", *rows[0][1:]], *rows[1:]])  # invalid key
    rewrite_rows(data / "funding_rounds.csv", lambda rows: [*rows[:2], rows[2][:3], *rows[3:]])  # broken file
    _append(data / "filings.csv", "".join(f"x{i},garbage,,not-a-date,,,\r\n" for i in range(120)))  # past the limit


@pytest.mark.parametrize("case", ["many", "not utf-8 late", "a missing file"])
def test_the_block_size_changes_no_report(case: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    if case == "many":
        _many_problems(data)
    elif case == "not utf-8 late":  # after the rows of a few blocks were staged: the whole file is one problem
        _many_problems(data)
        _append(data / "companies.csv", "99,caf\xe9,\r\n")
        (data / "companies.csv").write_bytes((data / "companies.csv").read_bytes().replace(b"caf\xc3\xa9", b"caf\xe9"))
    else:
        (data / "sectors.csv").unlink()
    expected = _report(data, None)
    assert expected.count("\n") > 1, expected
    for block in BLOCKS:
        assert _report(data, block) == expected, block


@pytest.mark.parametrize("data", [TINY, EMBEDDED], ids=["tiny", "embedded"])
def test_the_block_size_changes_no_row(data: Path, tmp_path: Path) -> None:
    expected = validate(data)
    loaded = []
    for block in (None, *BLOCKS):
        assert validate(data, block=block) == expected, block
        con = duckdb.connect()
        validate_into(con, data, lambda name: str(tmp_path / name), block)
        loaded.append({t.name: con.execute(f"SELECT * FROM {t.name}").fetchall() for t in TABLES})
        assert sorted(r[0] for r in con.execute("SHOW TABLES").fetchall()) == sorted(t.name for t in TABLES)
    assert all(tables == loaded[0] for tables in loaded)
    assert list(tmp_path.iterdir()) == []  # no scratch file left


def test_a_tiny_block_builds_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(BuildConfig(TINY, tmp_path / "large", workers=0))
    monkeypatch.setattr(load, "BLOCK_ROWS", 2)
    for workers in (0, 2):  # serial validation, and table by table in worker processes (forked: they see the patch)
        build(BuildConfig(TINY, tmp_path / f"small{workers}", workers=workers))
        assert published(tmp_path / f"small{workers}") == published(tmp_path / "large"), workers
