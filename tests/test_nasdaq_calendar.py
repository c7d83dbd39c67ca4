"""The importer of Nasdaq's monthly IPO calendar JSON (generator/importers/nasdaq_calendar.py) on the fixture
months of tests/fixtures/nasdaq-calendar: what each table becomes, that its rows are normalised as the CSV
importer normalises the same rows, that bad input fails naming file, row and reason, and that auto finds it."""

from __future__ import annotations

import csv
import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from generator.importers import import_files, plan
from generator.importers.base import Context, SourceError
from tests.conftest import SHARED_DATA
from tests.nasdaq_fixture import EARLY_FILE, FIXTURES, HTML_PAGE, MONTHS, derive, document, error_answer

QUIET = lambda _: None  # noqa: E731
NASDAQ_CSV = SHARED_DATA / "nasdaq-ipos-2021-2025"
INVENTED = {"Fixture Withdrawn Bio Inc.", "Fixture Shelved Holdings Ltd"}


def rows(folder: Path, table: str) -> list[dict[str, str]]:
    with open(folder / f"{table}.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def ipos_by_name(folder: Path) -> dict[str, dict[str, str]]:
    names = {row["id"]: row["name"] for row in rows(folder, "companies")}
    return {names[row["company_id"]]: row for row in rows(folder, "ipos")}


def test_each_table_becomes_ipos_and_a_later_month_moves_them_on(tmp_path: Path) -> None:
    into = tmp_path / "canonical"
    months = [FIXTURES / "2025-07.json", FIXTURES / "2025-08.json", FIXTURES / EARLY_FILE]
    import_files("nasdaq-calendar", months, into, QUIET)
    early = ipos_by_name(into)
    assert {row["status"] for row in early.values()} == {"filed", "listed", "upcoming", "withdrawn"}
    upcoming = {name: row for name, row in early.items() if row["status"] == "upcoming"}
    assert len(upcoming) == 10
    assert all(row["expected_date"] >= "2025-09-12" and not row["listing_date"] for row in upcoming.values())
    gemini = next(row for row in upcoming.values() if row["ticker"] == "GEMI")
    assert gemini["price_range_low_cents"] == gemini["price_range_high_cents"] and not gemini["offer_price_cents"]
    shelved = early["Fixture Shelved Holdings Ltd"]
    assert (shelved["status"], shelved["filed_date"], shelved["withdrawn_date"], shelved["ticker"]) == (
        "withdrawn", "2024-11-20", "2025-08-05", "")
    assert early["Fixture Withdrawn Bio Inc."]["status"] == "filed"
    # September as it stood a week later: the upcoming deals priced, the July filer withdrew, 13 more filed
    import_files("nasdaq-calendar", [*months, FIXTURES / "2025-09.json"], into, QUIET)
    late = ipos_by_name(into)
    assert set(early) < set(late) and len(late) - len(early) == 13
    assert {late[name]["status"] for name in upcoming} == {"listed"}
    assert {late[name]["id"] for name in upcoming} == {row["id"] for row in upcoming.values()}
    klarna = late["Klarna Group plc"]
    assert (klarna["status"], klarna["exchange"], klarna["ticker"], klarna["listing_date"], klarna["offer_price_cents"],
            klarna["shares_offered"], klarna["proceeds_usd"]) == (
        "listed", "nyse", "KLAR", "2025-09-10", "4000", "34311274", "1372450960")
    withdrawn = late["Fixture Withdrawn Bio Inc."]
    assert (withdrawn["id"], withdrawn["status"], withdrawn["ticker"], withdrawn["filed_date"],
            withdrawn["withdrawn_date"], withdrawn["shares_offered"]) == (
        early["Fixture Withdrawn Bio Inc."]["id"], "withdrawn", "FXWB", "2025-07-14", "2025-09-16", "3000000")
    companies = {row["name"]: row for row in rows(into, "companies")}
    assert companies["Klarna Group plc"]["status"] == "public"
    assert companies["Fixture Withdrawn Bio Inc."]["status"] == "private"
    # importing the same files again changes no byte
    before = {p.name: p.read_bytes() for p in into.iterdir()}
    assert import_files("nasdaq-calendar", [*months, FIXTURES / "2025-09.json"], into, QUIET).changed == []
    assert {p.name: p.read_bytes() for p in into.iterdir()} == before


def test_an_upcoming_deal_that_is_withdrawn_is_withdrawn(tmp_path: Path) -> None:
    """Whichever month is imported first: withdrawn ranks above upcoming (and below listed)."""
    deal = {"dealID": "9000003-900003", "companyName": "Fixture Pulled Deal Corp", "dollarValueOfSharesOffered":
            "$20,000,000"}
    filed = deal | {"proposedTickerSymbol": "FXPD", "filedDate": "9/02/2025"}
    upcoming = deal | {"proposedTickerSymbol": "FXPD", "proposedExchange": "NASDAQ Capital",
                       "proposedSharePrice": "4.00-5.00", "sharesOffered": "4,000,000",
                       "expectedPriceDate": "9/24/2025"}
    withdrawn = deal | {"proposedTickerSymbol": None, "proposedExchange": None, "sharesOffered": "4,000,000",
                        "filedDate": "9/02/2025", "withdrawDate": "10/03/2025"}
    september = tmp_path / "2025-09.json"
    september.write_bytes(document("2025-09", dt.date(2025, 9, 20), {"filed": [filed], "upcoming": [upcoming]}))
    october = tmp_path / "2025-10.json"
    october.write_bytes(document("2025-10", dt.date(2025, 10, 6), {"withdrawn": [withdrawn]}))
    for order in ([september, october], [october, september]):
        into = tmp_path / f"canonical-{order[0].stem}"
        import_files("nasdaq-calendar", order, into, QUIET)
        (ipo,) = rows(into, "ipos")
        assert (ipo["status"], ipo["ticker"], ipo["filed_date"], ipo["expected_date"], ipo["withdrawn_date"],
                ipo["price_range_low_cents"], ipo["price_range_high_cents"], ipo["exchange"]) == (
            "withdrawn", "FXPD", "2025-09-02", "2025-09-24", "2025-10-03", "400", "500", "nasdaq")


@pytest.mark.skipif(not NASDAQ_CSV.exists(), reason="needs ../shared/data")
def test_the_months_give_the_ipos_the_csv_files_give_for_the_same_rows(tmp_path: Path) -> None:
    """The pricings and filings of July to September 2025 from the shared CSV files, imported by the CSV
    importer, against the three months' JSON: the same IPO and company rows (ids aside: the order differs)."""
    src = tmp_path / "csv"
    src.mkdir()
    months = {f"{int(m[5:])}/" for m in MONTHS}
    for name, column in (("nasdaq_ipos_pricings.csv", "pricedDate"), ("nasdaq_ipos_filings.csv", "filedDate")):
        lines = (NASDAQ_CSV / name).read_text(encoding="utf-8").splitlines(keepends=True)
        header = next(csv.reader([lines[0]]))
        keep = [line for line in lines[1:] if (cell := next(csv.reader([line]))[header.index(column)])
                and cell.endswith("/2025") and any(cell.startswith(m) for m in months)]
        (src / name).write_text(lines[0] + "".join(keep), encoding="utf-8")
    import_files("nasdaq", [src], tmp_path / "from-csv", QUIET)
    import_files("nasdaq-calendar", [FIXTURES / f"{m}.json" for m in MONTHS], tmp_path / "from-json", QUIET)

    def content(folder: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        companies = {row["id"]: row for row in rows(folder, "companies")}
        ipos = sorted(tuple(v for k, v in row.items() if k not in ("id", "company_id")) + (
            companies[row["company_id"]]["name"],) for row in rows(folder, "ipos")
            if companies[row["company_id"]]["name"] not in INVENTED)
        people = sorted(tuple(v for k, v in row.items() if k not in ("id", "slug")) for row in companies.values()
                        if row["name"] not in INVENTED)
        return ipos, people

    from_csv, from_json = content(tmp_path / "from-csv"), content(tmp_path / "from-json")
    assert len(from_csv[0]) > 150 and from_csv == from_json


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def month(**changes: object) -> dict:
    document = json.loads((FIXTURES / "2025-09.json").read_bytes())
    for where, value in changes.items():
        *parents, last = where.split("__")
        target = document
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is None and last != "data":
            del target[last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return document


@pytest.mark.parametrize(("document", "reason"), [
    (HTML_PAGE, "not a calendar: an HTML page"),
    (b"", "not a calendar: empty"),
    (error_answer("Invalid date"), "no calendar in the answer: data is null (status rCode 400: Invalid date)"),
    ([], "not a calendar: expected an object with data (found list)"),
    ({"message": "busy"}, "not a calendar: expected an object with data (found message)"),
    (month(data__withdrawn=None),
     "data: expected the tables priced, upcoming, filed and withdrawn (missing withdrawn)"),
    (month(data__upcoming={"rows": []}), "data.upcoming.upcomingTable: expected an object with upcomingTable"),
    (month(data__filed__rows={}), "data.filed.rows: expected a list or null (found dict)"),
])
def test_bad_input_fails_naming_file_row_and_reason(tmp_path: Path, document: object, reason: str) -> None:
    path = tmp_path / "2025-09.json"
    if isinstance(document, bytes):
        path.write_bytes(document)
    else:
        write(path, document)
    with pytest.raises(SourceError) as failure:
        import_files("nasdaq-calendar", [path], tmp_path / "canonical", QUIET)
    assert str(failure.value).startswith(f"{path}: {reason}")
    assert not (tmp_path / "canonical").exists()


@pytest.mark.parametrize(("document", "reason"), [
    (month(data__filed__rows__1__filedDate=None), "data.filed.rows[1]: missing filedDate (a row has dealID,"),
    (month(data__priced__rows__2__sharesOffered=5),
     "data.priced.rows[2]: sharesOffered: expected text or null (found 5)"),
    (month(data__priced__rows__0__pricedDate="9/31/2025"),
     "data.priced.rows[0]: column pricedDate: expected a date (%m/%d/%Y) (got '9/31/2025')"),
    (month(data__priced__rows__0__dollarValueOfSharesOffered="$1.2 bn"),
     "data.priced.rows[0]: column dollarValueOfSharesOffered: expected a number"),
    (month(data__withdrawn__rows__0__withdrawDate=""), "data.withdrawn.rows[0]: column withdrawDate: expected the"),
    (month(data__filed__rows__0__companyName=None), "data.filed.rows[0]: missing companyName"),
])
def test_a_bad_row_is_skipped_and_reported_naming_file_row_and_reason(tmp_path: Path, document: object,
                                                                      reason: str) -> None:
    """A row the source got wrong stops nothing: it is listed with its file and place, the month's others import."""
    path = write(tmp_path / "2025-09.json", document)
    (tmp_path / "whole").mkdir()
    whole = import_files("nasdaq-calendar", [write(tmp_path / "whole" / "2025-09.json", month())], tmp_path / "a",
                         QUIET)
    result = import_files("nasdaq-calendar", [path], tmp_path / "canonical", QUIET)
    shown = result.context.where[Context.BAD_RECORDS]
    assert len(shown) == 1 and shown[0].startswith(f"2025-09.json: {reason}"), shown
    assert whole.rows["ipos"] - 1 <= result.rows["ipos"] <= whole.rows["ipos"]


def test_auto_finds_the_months_by_name_or_by_content(tmp_path: Path) -> None:
    fetched = tmp_path / "raw" / "2025-09-18T031700Z" / "api.nasdaq.com" / "api" / "ipo" / "calendar"
    fetched.mkdir(parents=True)
    shutil.copy(FIXTURES / "2025-08.json", fetched / "2025-08.json")
    (fetched / "2025-07.json").write_bytes(b"not json, but named as fetch names a month")
    saved = tmp_path / "saved"
    saved.mkdir()
    shutil.copy(FIXTURES / "2025-09.json", saved / "ipo-calendar-september.json")
    write(saved / "other.json", {"data": {"quotes": []}})
    write(saved / "pretty.json", json.loads((FIXTURES / "2025-07.json").read_bytes()))  # spaces after colons
    steps, unknown = plan("auto", [tmp_path / "raw", saved])
    assert [(name, path.name) for name, path in steps] == [
        ("nasdaq-calendar", "2025-07.json"), ("nasdaq-calendar", "2025-08.json"),
        ("nasdaq-calendar", "ipo-calendar-september.json"), ("nasdaq-calendar", "pretty.json")]
    assert [path.name for path in unknown] == ["other.json"]


@pytest.mark.skipif(not NASDAQ_CSV.exists(), reason="needs ../shared/data")
def test_the_fixture_months_are_what_derive_writes_from_the_shared_csvs(tmp_path: Path) -> None:
    written = derive(SHARED_DATA, tmp_path)
    assert {p.name: p.read_bytes() for p in written} == {
        p.name: p.read_bytes() for p in FIXTURES.iterdir() if p.suffix == ".json"}
