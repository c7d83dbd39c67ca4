"""Bad input fails with file, line, column and reason; every problem is reported at once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.dataset.load import DataError, validate

from .conftest import TINY


@pytest.fixture
def data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(TINY, target)
    return target


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture changed: {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def issues_of(data: Path) -> list[str]:
    with pytest.raises(DataError) as caught:
        validate(data)
    return [str(issue) for issue in caught.value.issues]


def test_fixture_is_valid() -> None:
    info, tables = validate(TINY)
    assert len(tables["companies"].rows) == 10
    assert str(info.as_of) == "2025-06-30"


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        ("companies.csv", "85000000000,2025-06-30", "lots,2025-06-30", "companies.csv:2: column valuation_usd"),
        ("companies.csv", "85000000000,2025-06-30", "-5,2025-06-30", "companies.csv:2: column valuation_usd"),
        ("companies.csv", ",travel,us,", ",nope,us,", "companies.csv:2: column sector: 'nope' does not exist"),
        ("companies.csv", "2,arm-holdings", "1,arm-holdings", "companies.csv:3: column id: duplicate value 1"),
        ("companies.csv", ",public,2008,", ",listed,2008,", "companies.csv:2: column status"),
        ("companies.csv", "1,airbnb,", "1,sort,", "companies.csv:2: column slug: 'sort' is a reserved word"),
        ("companies.csv", "1,airbnb,", "1,1234,", "companies.csv:2: column slug"),
        ("ipos.csv", "2020-12-10,,,5600", "2020-13-10,,,5600", "ipos.csv:2: column listing_date"),
        ("ipos.csv", "2020-12-10,,,5600", ",,,5600", "ipos.csv:2: status 'listed' needs listing_date"),
        ("news.csv", "ipo;listing", "ipo;gossip", "news.csv:2: column tags"),
        ("round_investors.csv", "1,1,true", "1,99,true", "round_investors.csv:2: column investor_id"),
        ("round_investors.csv", "1,1,true", "1,1,yes", "round_investors.csv:2: column is_lead"),
        ("filings.csv", "2020-11-16,,Registration", "2031-11-16,,Registration", "after the dataset's as_of date"),
        ("companies.csv", "Online marketplace for lodging.", '"Online marketplace', "companies.csv"),
        ("financials.csv", "1,2023,9917000000", "1,2023,9917000000,extra", "financials.csv:2: expected 9 fields"),
    ],
)
def test_bad_input_is_located(data: Path, file: str, old: str, new: str, expected: str) -> None:
    replace_in(data / file, old, new)
    assert any(expected in issue for issue in issues_of(data)), issues_of(data)


def test_every_problem_is_reported_at_once(data: Path) -> None:
    replace_in(data / "companies.csv", "85000000000,2025-06-30", "lots,2025-06-30")
    replace_in(data / "news.csv", "ipo;listing", "ipo;gossip")
    (data / "offerings.csv").unlink()
    issues = issues_of(data)
    assert any(i.startswith("companies.csv:2") for i in issues)
    assert any(i.startswith("news.csv:2") for i in issues)
    assert "offerings.csv: file is missing" in issues


def test_header_must_match_schema(data: Path) -> None:
    replace_in(data / "sectors.csv", "slug,name,description", "slug,title,description")
    assert any("sectors.csv:1: header must be slug,name,description" in i for i in issues_of(data))


def test_a_duplicated_header_column_is_named(data: Path) -> None:
    replace_in(data / "sectors.csv", "slug,name,description", "slug,name,name")
    assert "sectors.csv:1: header must be slug,name,description (name twice; missing description)" in issues_of(data)


def test_not_utf8_is_located(data: Path) -> None:
    path = data / "countries.csv"
    path.write_bytes(path.read_bytes().replace(b"Argentina", b"Argentin\xe9"))
    assert any(i.startswith("countries.csv:3: not valid UTF-8") for i in issues_of(data))


def test_check_command_exit_codes(data: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["check", "--data", str(data)])
    assert ok.exit_code == 0, ok.output
    assert "valid" in ok.output
    replace_in(data / "companies.csv", ",travel,us,", ",nope,us,")
    bad = runner.invoke(main, ["check", "--data", str(data)])
    assert bad.exit_code != 0
    assert "companies.csv:2: column sector" in bad.output


def _cut_columns(path: Path, keep: int) -> None:
    import csv

    with open(path, encoding="utf-8", newline="") as handle:
        records = list(csv.reader(handle))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(r[:keep] for r in records)


def test_a_file_without_the_optional_columns_added_later_still_loads(data: Path) -> None:
    """Files written before optional columns were added at the end of a table load with nulls."""
    from generator.dataset.schema import TABLES

    companies = next(t for t in TABLES if t.file_name == "companies.csv")
    fields = list(companies.model.model_fields)
    _cut_columns(data / "companies.csv", fields.index("valuation_is_current"))
    _, tables = validate(data)
    assert all(row["valuation_currency_converted_from"] is None for row in tables["companies"].rows)
    _cut_columns(data / "companies.csv", fields.index("acquirer"))  # still a prefix of optional columns
    validate(data)


def test_a_missing_required_or_middle_column_is_still_a_header_error(data: Path) -> None:
    _cut_columns(data / "round_investors.csv", 2)  # is_lead is required
    assert any("round_investors.csv:1: header must be" in issue for issue in issues_of(data))


def test_loaded_rows_are_the_models_field_values() -> None:
    """The loader keeps each validated row's field values as they are (``__dict__``), which must be what
    ``model_dump`` gives for every table: flat models, no serializers."""
    from generator.dataset.load import read_rows
    from generator.dataset.schema import TABLES

    from .conftest import TINY

    for table in TABLES:
        issues: list = []
        parsed = read_rows(TINY / table.file_name, table, issues)
        assert parsed.rows and not issues
        for row in parsed.rows:
            dumped = table.model.model_validate(row).model_dump()
            assert row == dumped and list(row) == list(dumped)
