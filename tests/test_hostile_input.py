"""Input as spreadsheets export it: stray quotes, a byte-order mark, odd line breaks inside cells, lax numbers and
dates, integers too large for DuckDB or JavaScript. Each is rejected (or read) with the right file:line:column."""

from __future__ import annotations

import codecs
import datetime as dt
import io
import itertools
import re
import shutil
import tracemalloc
import typing
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BeforeValidator

from generator.cli import main
from generator.dataset.cells import leaf_types, strict_date, strict_integer
from generator.dataset.lines import Lines
from generator.dataset.load import PROBLEMS_PER_TABLE, Issue, read_rows, validate
from generator.dataset.schema import TABLE_BY_NAME, TABLES, Table

from .test_load import data, issues_of, replace_in  # noqa: F401 (the data fixture)

MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER


def test_a_stray_quote_is_reported_first_and_its_consequences_summarised(data: Path) -> None:  # noqa: F811
    # A closing quote is missing: the record runs into the next line, and the sector of line 17 vanishes.
    replace_in(data / "sectors.csv", 'semiconductor equipment"', "semiconductor equipment")
    issues = issues_of(data)
    assert issues[0].startswith("sectors.csv:17: malformed CSV"), issues[:3]
    assert not any("does not exist in sectors.csv" in issue for issue in issues)
    assert issues[1:] == ["companies.csv:3: column sector: 1 value(s) not found in sectors.csv (lines 3; first "
                          "'semiconductors'), which has errors listed above: fix those first"], issues


def test_an_unclosed_quote_is_one_problem_not_one_per_reference(data: Path) -> None:  # noqa: F811
    replace_in(data / "sectors.csv", 'hospitality platforms"', "hospitality platforms")  # the last record
    issues = issues_of(data)
    assert issues[0].startswith("sectors.csv:19: malformed CSV") and "never closed" in issues[0], issues[:3]
    assert len(issues) == 2 and "not found in sectors.csv" in issues[1], issues


def test_reading_goes_on_after_a_malformed_record(data: Path) -> None:  # noqa: F811
    replace_in(data / "companies.csv", "Online marketplace for lodging.", '"Online" marketplace')
    replace_in(data / "companies.csv", ",public,2006,", ",listed,2006,")  # spotify, line 4
    issues = issues_of(data)
    assert any(issue.startswith("companies.csv:2: malformed CSV") for issue in issues), issues
    assert any(issue.startswith("companies.csv:4: column status") for issue in issues), issues


def test_a_csv_error_is_located_at_the_first_line_of_its_record(data: Path) -> None:  # noqa: F811
    replace_in(data / "companies.csv", "Online marketplace for lodging.", '"Online\nmarketplace"x')
    issues = issues_of(data)
    assert any(issue.startswith("companies.csv:2: malformed CSV") and "noticed on line 3" in issue
               for issue in issues), issues


def test_a_byte_order_mark_is_accepted(data: Path) -> None:  # noqa: F811
    for name in ("companies.csv", "sectors.csv"):
        path = data / name
        path.write_bytes(codecs.BOM_UTF8 + path.read_bytes())
    info, tables = validate(data)
    assert len(tables["companies"].rows) == 10 and len(tables["sectors"].rows) > 1


@pytest.mark.parametrize("breaker", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c"])
def test_only_cr_and_lf_end_a_record(data: Path, breaker: str) -> None:  # noqa: F811
    replace_in(data / "companies.csv", "Online marketplace for lodging.", f"Online{breaker}marketplace.")
    replace_in(data / "companies.csv", ",public,2006,", ",listed,2006,")  # spotify, line 4
    issues = issues_of(data)
    assert [issue.split(": ")[0:2] for issue in issues] == [["companies.csv:4", "column status"]], issues
    replace_in(data / "companies.csv", ",listed,2006,", ",public,2006,")
    _, tables = validate(data)
    assert tables["companies"].rows[0]["description"] == f"Online{breaker}marketplace."


def test_a_multiline_cell_keeps_later_line_numbers(data: Path) -> None:  # noqa: F811
    replace_in(data / "companies.csv", "Online marketplace for lodging.", '"Online\r\nmarketplace\nfor lodging."')
    replace_in(data / "companies.csv", ",public,2006,", ",listed,2006,")  # spotify: now on line 6
    assert [issue.split(": ")[0] for issue in issues_of(data)] == ["companies.csv:6"]


def test_not_utf8_names_the_fix(data: Path) -> None:  # noqa: F811
    path = data / "countries.csv"
    path.write_bytes(path.read_bytes().replace(b"Argentina", b"Argentin\xe9"))
    issues = issues_of(data)
    assert issues[0].startswith("countries.csv:3: not valid UTF-8") and "save the file as UTF-8" in issues[0]


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        ("ipos.csv", "2020-12-09,2020-12-10", "2020-12-09,1672531200", "ipos.csv:2: column listing_date: must be"),
        ("ipos.csv", "2020-12-09,2020-12-10", "2020-12-09,0", "ipos.csv:2: column listing_date: must be a date"),
        ("ipos.csv", "2020-12-09,2020-12-10", "2020-12-09,20201210", "ipos.csv:2: column listing_date"),
        ("financials.csv", "1,2023,9917000000", "1,2023,9917000000.0", "financials.csv:2: column revenue_usd: must be"),
        ("financials.csv", "1,2023,9917000000", "1,2023,9_917_000_000", "financials.csv:2: column revenue_usd"),
        ("financials.csv", "1,2023,9917000000", "1,2023,9.917e9", "financials.csv:2: column revenue_usd"),
        ("financials.csv", "1,2023,9917000000", "1,2023, 9917000000", "financials.csv:2: column revenue_usd"),
        ("financials.csv", "0.83,6907,", f"0.83,{2**63},", "financials.csv:2: column employees: must be between"),
        ("financials.csv", "0.83,6907,", f"0.83,{2**53},", "financials.csv:2: column employees: must be between"),
        ("ipos.csv", "51914894,", f"{2**64},", "ipos.csv:2: column shares_offered: must be between"),
        ("ipos.csv", "5600,6000,6800", f"5600,6000,{2**63}", "ipos.csv:2: column offer_price_cents"),
        ("funding_rounds.csv", "\n1,", f"\n{2**63},", "funding_rounds.csv:2: column id: must be between"),
    ],
)
def test_lax_and_oversized_values_are_rejected(data: Path, file: str, old: str, new: str,  # noqa: F811
                                               expected: str) -> None:
    replace_in(data / file, old, new)
    assert any(issue.startswith(expected) for issue in issues_of(data)), issues_of(data)


def test_the_largest_safe_integer_is_accepted(data: Path) -> None:  # noqa: F811
    replace_in(data / "financials.csv", "0.83,6907,", f"0.83,{MAX_SAFE_INTEGER},")
    _, tables = validate(data)
    assert tables["financials"].rows[0]["employees"] == MAX_SAFE_INTEGER


def test_an_oversized_integer_fails_check_and_build_with_its_location(data: Path, tmp_path: Path) -> None:  # noqa: F811
    replace_in(data / "ipos.csv", "51914894,", f"{2**63},")
    runner = CliRunner()
    checked = runner.invoke(main, ["check", "--data", str(data)])
    assert checked.exit_code == 1 and "ipos.csv:2: column shares_offered" in checked.output
    built = runner.invoke(main, ["build", "--data", str(data), "--out", str(tmp_path / "dist"), "--quiet"])
    assert built.exit_code == 1 and "ipos.csv:2: column shares_offered" in built.output, built.output
    assert not (tmp_path / "dist").exists()


def test_a_bad_header_comes_first_and_references_into_its_file_are_summarised(data: Path) -> None:  # noqa: F811
    path = data / "companies.csv"
    path.write_bytes(codecs.BOM_UTF8 * 2 + path.read_bytes())  # a doubled byte-order mark: the header is wrong
    issues = issues_of(data)
    assert issues[0].startswith("companies.csv:1: header must be id,slug,"), issues[:2]
    assert "unknown '\\ufeffid'" in issues[0], issues[0]  # the invisible character is named
    assert not any("does not exist in companies.csv" in issue for issue in issues)
    summaries = issues[1:]
    assert summaries and all("not found in companies.csv" in issue for issue in summaries), issues
    assert len(summaries) == len({issue.split(":")[0] for issue in summaries}) <= 8  # one per referring column


def _validators(annotation: object) -> set[object]:
    """The before-validators anywhere in an annotation (``Annotated`` metadata inside unions and aliases)."""
    found: set[object] = set()
    if typing.get_origin(annotation) is typing.Annotated:
        found |= {m.func for m in annotation.__metadata__ if isinstance(m, BeforeValidator)}  # type: ignore[attr-defined]
    for arg in typing.get_args(annotation):
        found |= _validators(arg)
    return found


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_every_integer_and_date_column_is_read_strictly(table: Table) -> None:
    """A column added later with a bare ``int`` or ``dt.date`` would read ``1e3`` or ``1672531200`` laxly."""
    for name, field in table.model.model_fields.items():
        leaves = leaf_types(field.annotation) - {type(None)}
        checks = _validators(field.annotation) | {m.func for m in field.metadata if isinstance(m, BeforeValidator)}
        if int in leaves:
            assert strict_integer in checks, f"{table.name}.{name}: declare it as cells.Integer"
        if dt.date in leaves:
            assert strict_date in checks, f"{table.name}.{name}: declare it as cells.Date"


@pytest.mark.parametrize("name", ["news.csv", "dataset.json"])
def test_a_file_that_is_a_folder_is_one_line_in_check_and_build(data: Path, tmp_path: Path, name: str) -> None:  # noqa: F811
    (data / name).unlink()
    (data / name).mkdir()
    runner = CliRunner()
    for command in (["check"], ["build", "--out", str(tmp_path / "dist"), "--quiet"]):
        result = runner.invoke(main, [*command, "--data", str(data)])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (command, result.exception)
        assert f"  {name}: cannot be read: Is a directory\n" in result.output, (command, result.output)


def _append_garbage(path: Path, rows: int) -> None:
    """Rows of the right width whose id, company_id, published_date and tags are all wrong (4 problems each)."""
    with open(path, "a", encoding="utf-8", newline="") as handle:
        handle.writelines(f"x{i},garbage,not-a-date,headline {i},,,nope\r\n" for i in range(rows))


def _read_news(path: Path) -> tuple[list[str], int]:
    """The problems of one news table file and the peak of the memory allocated while reading it."""
    found: list[Issue] = []
    tracemalloc.start()
    try:
        read_rows(path, TABLE_BY_NAME["news"], found)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return [str(issue) for issue in found], peak


def test_reading_stops_after_a_bounded_number_of_problems_in_memory_that_does_not_grow(data: Path,  # noqa: F811
                                                                                      tmp_path: Path) -> None:
    files = {rows: tmp_path / f"news-{rows}.csv" for rows in (10_000, 100_000)}  # 0.5 and 5 MB
    for rows, path in files.items():
        shutil.copyfile(data / "news.csv", path)
        _append_garbage(path, rows)
    (small, small_peak), (large, large_peak) = (_read_news(path) for path in files.values())
    assert len(small) == len(large) == PROBLEMS_PER_TABLE + 1, large[-3:]
    assert small[:-1] == large[:-1] and all(issue.startswith("news.csv:") for issue in large)
    stop = re.fullmatch(r"news\.csv:(\d+): stopped after (\d+) problems: ([\d,]+) line\(s\) from here on were "
                        r"not read", large[-1])
    assert stop is not None, large[-1]
    total = len(files[100_000].read_bytes().splitlines())
    assert int(stop[1]) + int(stop[3].replace(",", "")) - 1 == total and int(stop[2]) == PROBLEMS_PER_TABLE
    assert large_peak < 1_500_000 and large_peak < small_peak + 100_000, (small_peak, large_peak)


def test_check_and_build_report_the_same_bounded_problems(data: Path, tmp_path: Path,  # noqa: F811
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.pipeline import tablewise

    tablewise_runs: list[object] = []
    validate_tablewise = tablewise.validate
    monkeypatch.setattr(tablewise, "validate", lambda *a: tablewise_runs.append(a) or validate_tablewise(*a))
    _append_garbage(data / "news.csv", 5_000)
    runner = CliRunner()
    checked = runner.invoke(main, ["check", "--data", str(data)])
    assert checked.exit_code == 1 and "stopped after 100 problems: 4,975 line(s) from here on" in checked.output
    assert len(checked.output.splitlines()) == 2 + PROBLEMS_PER_TABLE, checked.output[-500:]
    for workers in ("0", "2"):  # serial validation, and table by table in worker processes
        built = runner.invoke(main, ["build", "--data", str(data), "--out", str(tmp_path / "dist"), "--quiet",
                                     "--workers", workers])
        assert (built.exit_code, built.output) == (1, checked.output), workers
    assert len(tablewise_runs) == 1


def test_a_file_not_utf8_after_the_stop_is_reported_as_such(data: Path) -> None:  # noqa: F811
    _append_garbage(data / "news.csv", 1_000)
    with open(data / "news.csv", "ab") as handle:
        handle.write(b"1,2,2020-01-01,caf\xe9,,,ipo\r\n")
    assert [i for i in issues_of(data) if i.startswith("news.csv")] == [
        "news.csv:1006: not valid UTF-8 (byte 0xe9 at byte 19 of the line): save the file as UTF-8"]


@pytest.mark.parametrize("block", [1, 2, 3, 5, 64])
def test_lines_end_where_the_csv_module_ends_them_whatever_the_block(tmp_path: Path, block: int) -> None:
    text = "\ufeffa,b\r\nc,\"d\re\"\rf\u2028g\n\n\r\rh,é\r\n\r\nlast"
    path = tmp_path / "lines.csv"
    path.write_bytes(text.encode("utf-8"))
    expected = list(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    for stop in range(len(expected) + 1):
        with open(path, "rb") as handle:
            lines = Lines(handle, block)
            read = list(itertools.islice(lines, stop))
            assert read == expected[:stop] and lines.rest() == len(expected) - stop, (block, stop)
