"""SEC XBRL financial facts -> ``financials``: the companyfacts documents and the Financial Statement Data Sets of
../shared/data, read for fiscal years as the companies label them, with the filing each year comes from.

Expectations are computed here independently of the importer, simply (the latest annual filing's value of the first
listed concept for each fiscal-year period), from the documents read with ``json``; made-up documents cover what the
real ones lack (a record a body gets wrong, a restatement repeated by a later report, the loose-name trap)."""

from __future__ import annotations

import calendar
import csv
import datetime as dt
import json
import zipfile
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from generator.api import details, queries
from generator.api.registry import DETAIL_ROUTES
from generator.dataset.database import load_into
from generator.dataset.load import validate
from generator.importers import FORMATS, import_files, plan, sec_companyfacts, sec_datasets
from generator.importers.base import Context, FinancialFact, SourceError
from generator.importers.sec_financials import ANNUAL_FORMS, FIGURES

from .conftest import SHARED_DATA

FACTS = SHARED_DATA / "sec-companyfacts"
DATASETS = SHARED_DATA / "sec-financial-statements"
TICKERS = SHARED_DATA / "edgar" / "company_tickers_exchange.json"
APPLE, NVIDIA, SNOWFLAKE, MARVELL, LPA = 320193, 1045810, 1640147, 1835632, 1997711
DOCUMENTS = {APPLE: "CIK0000320193.json", NVIDIA: "CIK0001045810.json", SNOWFLAKE: "CIK0001640147.pretty.json",
             MARVELL: "CIK0001835632.json", LPA: "CIK0001997711.pretty.json"}
LPA_LIST = {"0": {"cik_str": LPA, "ticker": "LPA", "title": "Logistic Properties of the Americas"}}

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")


def _rows(folder: Path, table: str) -> list[dict[str, str]]:
    with open(folder / f"{table}.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _years(folder: Path) -> dict[int, dict[str, dict[str, str]]]:
    """CIK -> fiscal year -> financials row of an imported folder."""
    ciks = {c["id"]: int(c["cik"]) for c in _rows(folder, "companies") if c["cik"]}
    years: dict[int, dict[str, dict[str, str]]] = defaultdict(dict)
    for row in _rows(folder, "financials"):
        years[ciks[row["company_id"]]][row["fiscal_year"]] = row
    return years


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """A ticker list (and one naming LPA, which no list of ../shared/data has), every companyfacts document and
    both data-sets quarters, imported into one folder."""
    folder = tmp_path_factory.mktemp("sec")
    named = folder / "company_tickers_lpa.json"
    named.write_text(json.dumps(LPA_LIST), encoding="utf-8")
    into = folder / "canonical"
    result = import_files("auto", [TICKERS, named, FACTS, DATASETS], into, lambda _: None)
    return into, result


def _days(start: str, end: str) -> int:
    return (dt.date.fromisoformat(end) - dt.date.fromisoformat(start)).days + 1


def _expected(cik: int) -> dict[str, dict[str, int]]:
    """Period end of each annual report's own fiscal year -> figure -> the latest annual filing's value of the first
    listed concept it reports (a fresh reading of the document with ``json``)."""
    document = json.loads((FACTS / DOCUMENTS[cik]).read_text(encoding="utf-8"))
    seen: dict[tuple[str, str], dict[str, tuple[str, str, int]]] = defaultdict(dict)
    """(column, period end) -> accession -> (filed, concept order, value)."""
    own: dict[str, str] = {}
    for column, chain in FIGURES.items():
        for order, (taxonomy, concept) in enumerate(chain):
            body = document["facts"].get(taxonomy, {}).get(concept, {})
            for fact in body.get("units", {}).get("USD", []):
                if fact["form"] in ANNUAL_FORMS and "start" in fact and 350 <= _days(fact["start"], fact["end"]) <= 380:
                    own[fact["accn"]] = max(own.get(fact["accn"], ""), fact["end"])
                    mine = seen[(column, fact["end"])]
                    if fact["accn"] not in mine or order < mine[fact["accn"]][1]:
                        mine[fact["accn"]] = (fact["filed"], order, fact["val"])
    expected: dict[str, dict[str, int]] = defaultdict(dict)
    for (column, end), filings in seen.items():
        if end in own.values():
            latest = max(filings, key=lambda accession: (filings[accession][0], accession))
            expected[end][column] = filings[latest][2]
    return expected


# --- the figures ---------------------------------------------------------------------------------------------------


def test_the_figures_the_sources_name(imported: tuple) -> None:
    years = _years(imported[0])
    apple = years[APPLE]["2023"]
    assert (apple["revenue_usd"], apple["net_income_usd"], apple["period_end"]) == (
        "383285000000", "96995000000", "2023-09-30")
    assert (years[NVIDIA]["2024"]["revenue_usd"], years[NVIDIA]["2024"]["period_end"]) == ("60922000000",
                                                                                           "2024-01-28")
    assert (years[MARVELL]["2024"]["revenue_usd"], years[MARVELL]["2024"]["period_end"]) == ("5507700000",
                                                                                             "2024-02-03")
    assert (years[SNOWFLAKE]["2024"]["revenue_usd"], years[SNOWFLAKE]["2024"]["period_end"]) == ("2806489000",
                                                                                                 "2024-01-31")
    assert apple["gross_profit_usd"] == "169148000000" and apple["gross_margin"] == "0.4413"
    assert apple["shares_outstanding"] == "15550061000"  # CommonStockSharesOutstanding on 2023-09-30
    assert apple["basis"] == "sec-filing" and apple["currency_converted_from"] == ""
    # Apple switched concept: SalesRevenueNet to fiscal 2018, RevenueFromContractWithCustomer... after; every year
    assert [years[APPLE][str(y)]["revenue_usd"] != "" for y in range(2007, 2026)] == [True] * 19


@pytest.mark.parametrize("cik", list(DOCUMENTS), ids=lambda c: DOCUMENTS[c])
def test_every_annual_year_of_a_document_is_a_row_with_its_values(imported: tuple, cik: int) -> None:
    years = _years(imported[0])[cik]
    by_end = {row["period_end"]: row for row in years.values()}
    expected = _expected(cik)
    assert expected and set(expected) <= set(by_end)
    for end, figures in expected.items():
        row = by_end[end]
        assert row["fiscal_year"] == end[:4]  # these five label a year by the calendar year it ends in
        for column, value in figures.items():
            assert row[column] == str(value), (end, column)
    for row in years.values():  # each row names its filing
        assert row["accession_number"] and row["filed_date"], row
        assert bool(row["restated_accession_number"]) == bool(row["restated_date"])
        assert not row["restated_date"] or row["restated_date"] > row["filed_date"]


def test_a_year_is_named_by_its_own_report_and_labelled_as_the_company_does(imported: tuple) -> None:
    years = _years(imported[0])
    assert (years[APPLE]["2023"]["accession_number"], years[APPLE]["2023"]["filed_date"]) == (
        "0000320193-23-000106", "2023-11-03")
    assert years[NVIDIA]["2024"]["accession_number"] == "0001045810-24-000029"
    # NVIDIA's 10-K for the year to 2011-01-30 says fy 2010 (as does the one before): labelled 2011, counted
    assert years[NVIDIA]["2011"]["period_end"] == "2011-01-30"
    assert years[NVIDIA]["2010"]["period_end"] == "2010-01-31"
    skipped = imported[1].context.skipped
    assert skipped["sec financials: annual reports whose fy disagrees with the company's other reports (labelled "
                   "by their period)"] == 4
    # years seen only as comparatives get the label by offset, and the report that first gave them
    assert years[SNOWFLAKE]["2019"]["period_end"] == "2019-01-31"
    assert years[SNOWFLAKE]["2019"]["accession_number"] == "0001640147-21-000073"


def test_a_restatement_names_the_filing_that_changed_the_figures(imported: tuple) -> None:
    apple = _years(imported[0])[APPLE]["2009"]  # the 10-K/A of January 2010 restated fiscal 2009 (36,537 M)
    assert apple["revenue_usd"] == "42905000000"
    assert (apple["accession_number"], apple["filed_date"]) == ("0001193125-09-214859", "2009-10-27")
    assert (apple["restated_accession_number"], apple["restated_date"]) == ("0001193125-10-012091", "2010-01-25")
    assert _years(imported[0])[APPLE]["2023"]["restated_accession_number"] == ""


def _fact(end: str, val: object, accn: str, filed: str, fy: int, start: str | None = None, form: str = "10-K") -> dict:
    fact = {"end": end, "val": val, "accn": accn, "fy": fy, "fp": "FY", "form": form, "filed": filed}
    return {"start": start, **fact} if start else fact


def _document(cik: object, concepts: dict[str, list[dict]], name: str = "Made Up Inc.") -> str:
    return json.dumps({"cik": cik, "entityName": name, "facts": {"us-gaap": {
        concept: {"label": concept, "units": {"USD": facts}} for concept, facts in concepts.items()}}})


def test_a_figure_changed_then_repeated_names_the_filing_that_changed_it(tmp_path: Path) -> None:
    first, second, third = "0000000001-20-000001", "0000000001-21-000001", "0000000001-22-000001"
    revenues = [_fact("2019-12-31", 100, first, "2020-02-01", 2019, "2019-01-01"),
                _fact("2019-12-31", 90, second, "2021-02-01", 2020, "2019-01-01"),
                _fact("2020-12-31", 120, second, "2021-02-01", 2020, "2020-01-01"),
                _fact("2019-12-31", 90, third, "2022-02-01", 2021, "2019-01-01"),
                _fact("2021-12-31", 130, third, "2022-02-01", 2021, "2021-01-01")]
    path = tmp_path / "facts.json"
    path.write_text(_document(1, {"Revenues": revenues}), encoding="utf-8")
    rows = {f.fields["fiscal_year"]: f.fields for f in sec_companyfacts.read(path, Context())}
    assert rows["2019"]["revenue_usd"] == "90"
    assert (rows["2019"]["accession_number"], rows["2019"]["restated_accession_number"]) == (first, second)
    assert "restated_accession_number" not in rows["2020"] and rows["2021"]["accession_number"] == third


def test_the_loose_name_is_not_revenue(tmp_path: Path) -> None:
    accn = "0000000001-24-000001"
    path = tmp_path / "CIK0000000001.json"
    path.write_text(_document(1, {
        "ContractWithCustomerLiabilityRevenueRecognized": [_fact("2023-12-31", 5, accn, "2024-02-01", 2023,
                                                                 "2023-01-01")],
        "NetIncomeLoss": [_fact("2023-12-31", 7, accn, "2024-02-01", 2023, "2023-01-01")]}), encoding="utf-8")
    (row,) = [f.fields for f in sec_companyfacts.read(path, Context())]
    assert "revenue_usd" not in row and row["net_income_usd"] == "7"
    snowflake = [f.fields for f in sec_companyfacts.read(FACTS / DOCUMENTS[SNOWFLAKE], Context())]
    document = json.loads((FACTS / DOCUMENTS[SNOWFLAKE]).read_text(encoding="utf-8"))
    loose = {str(f["val"]) for f in document["facts"]["us-gaap"]["ContractWithCustomerLiabilityRevenueRecognized"]
             ["units"]["USD"]}
    assert loose and not loose & {row.get("revenue_usd") for row in snowflake}


def test_ifrs_figures_of_lpa(imported: tuple) -> None:
    lpa = _years(imported[0])[LPA]  # cik "0001997711", a zero-padded string in this body
    assert (lpa["2023"]["revenue_usd"], lpa["2023"]["net_income_usd"], lpa["2023"]["operating_income_usd"]) == (
        "39436343", "3139333", "34184829")  # Revenue, not RevenueFromContractsWithCustomers; owners of parent
    assert (lpa["2024"]["revenue_usd"], lpa["2024"]["net_income_usd"]) == ("43862372", "-29285428")
    assert lpa["2023"]["shares_outstanding"] == "31709747"  # the cover of the year's own 20-F
    assert lpa["2023"]["gross_profit_usd"] == lpa["2023"]["gross_margin"] == ""
    assert lpa["2024"]["accession_number"] == "0001997711-25-000030"  # the 20-F, not the 20-F/A


def test_records_a_body_gets_wrong_are_skipped_and_reported(tmp_path: Path) -> None:
    accn = "0000000001-24-000001"
    good = json.dumps(_fact("2023-12-31", 10, accn, "2024-02-01", 2023, "2023-01-01"))
    text = ('{"cik": "0000000001", "entityName": "Made Up Inc.", "facts": {"us-gaap": {"Revenues": {"units": '
            '{"USD": [' + good + ', {"start": "2022-01-01", "end": "2022-12-31", "val": NaN, "accn": "' + accn + '", '
            '"fy": 2023, "form": "10-K", "filed": "2024-02-01"}, {"start": "2022-01-01", "end": "2022-12-31", '
            '"val": 1, "val": 2, "accn": "' + accn + '", "fy": 2023, "form": "10-K", "filed": "2024-02-01"}, '
            '{"end": "2021-12-31", "val": 3, "fy": 2023, "form": "10-K", "filed": "2024-02-01"}]}}}}}')
    path = tmp_path / "CIK0000000001.json"
    path.write_text(text, encoding="utf-8")
    ctx = Context()
    (row,) = [f.fields for f in sec_companyfacts.read(path, ctx)]
    assert row["revenue_usd"] == "10"
    assert ctx.skipped == {sec_companyfacts.BAD_VALUE: 1, sec_companyfacts.TWICE: 1, sec_companyfacts.INCOMPLETE: 1}
    assert ctx.where[sec_companyfacts.BAD_VALUE] == ["CIK0000000001.json: us-gaap/Revenues/USD[1]"]
    broken = tmp_path / "broken.json"
    broken.write_text(text[:200], encoding="utf-8")
    with pytest.raises(SourceError, match=r"broken\.json:1: column \d+: malformed JSON"):
        list(sec_companyfacts.read(broken, Context()))


def test_a_cik_no_list_named_is_counted_not_created(tmp_path: Path) -> None:
    result = import_files("auto", [TICKERS, FACTS / DOCUMENTS[LPA]], tmp_path / "out", lambda _: None)
    assert result.report.conflicts["financial years of a CIK no imported company list knows (skipped)"] == 4
    assert not _rows(tmp_path / "out", "financials")


# --- the data sets -------------------------------------------------------------------------------------------------


def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


SUB = "adsh\tcik\tname\tsic\tcountryba\tform\tperiod\tfy\tfp\tfiled\n" \
      "0000000001-10-000001\t1\tMADE UP INC\t3571\tUS\t10-K\t20091231\t2009\tFY\t20100301\n"
NUM_OLD = "adsh\ttag\tversion\tcoreg\tddate\tqtrs\tuom\tvalue\tfootnote\n" \
          "0000000001-10-000001\tRevenues\tus-gaap/2009\t\t20091231\t4\tUSD\t500000.0000\t\n" \
          "0000000001-10-000001\tRevenues\t0000000001-10-000001\t\t20091231\t4\tUSD\t7.0000\t\n" \
          "0000000001-10-000001\tGrossProfit\tus-gaap/2009\t\t20091231\t4\tUSD\tnot a number\t\n" \
          "0000000001-10-000001\tNetIncomeLoss\tus-gaap/2009\tSubsidiary\t20091231\t4\tUSD\t3.0000\t\n"


def test_data_sets_are_read_by_their_header_and_streamed(tmp_path: Path) -> None:
    path = _zip(tmp_path / "quarter.zip", {"sub.txt": SUB, "num.txt": NUM_OLD})  # no segments column: older issue
    assert sec_datasets.detect(path) == sec_datasets.DETECT_RANK
    ctx = Context()
    (fact,) = list(sec_datasets.read(path, ctx))
    assert isinstance(fact, FinancialFact) and (fact.company.cik, fact.company.create) == ("1", False)
    assert fact.fields["revenue_usd"] == "500000"  # the company's own tag of that name is not the concept
    assert "net_income_usd" not in fact.fields  # a coregistrant's value is not the company's
    assert ctx.where[sec_datasets.BAD_ROW] == [f"{path}[num.txt]:4"]
    assert fact.fields["period_end"] == "2009-12-31" and fact.fields["accession_number"] == "0000000001-10-000001"


def test_a_zip_that_is_not_the_data_sets_fails_with_its_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    headless = _zip(tmp_path / "a.zip", {"sub.txt": "adsh\tcik\n", "num.txt": NUM_OLD})
    with pytest.raises(SourceError, match=r"a\.zip\[sub\.txt\]:1: header must name"):
        list(sec_datasets.read(headless, Context()))
    bomb = _zip(tmp_path / "bomb.zip", {"sub.txt": SUB, "num.txt": NUM_OLD + "x" * 10_000_000})
    assert bomb.stat().st_size < 100_000
    monkeypatch.setattr(sec_datasets, "MAX_MEMBER_BYTES", 1_000_000)
    with pytest.raises(SourceError, match=r"bomb\.zip\[num\.txt\]: .*more than the 1,000,000"):
        list(sec_datasets.read(bomb, Context()))
    assert sec_datasets.detect(_zip(tmp_path / "other.zip", {"readme.txt": "hello"})) is None


def test_detection_is_by_content(tmp_path: Path) -> None:
    steps, _ = plan("auto", [FACTS, DATASETS])
    assert {name for name, _ in steps} == {"sec-companyfacts", "sec-financial-statements"} and len(steps) == 7
    assert all(FORMATS[name].detect(path) >= 50 for name, path in steps)
    renamed = tmp_path / "apple facts.json"
    renamed.write_text(_document(320193, {}), encoding="utf-8")
    assert sec_companyfacts.detect(renamed) == sec_companyfacts.DETECT_RANK
    submissions = tmp_path / "CIK0000320193.json"
    submissions.write_text(json.dumps({"cik": "0000320193", "entityType": "operating", "name": "Apple Inc."}))
    assert sec_companyfacts.detect(submissions) is None


def test_currencies_other_than_usd_are_left_out_and_counted(imported: tuple) -> None:
    skipped = imported[1].context.skipped
    reasons = [r for r in skipped if r.startswith("sec financials: figures reported only in")]
    assert any("JPY" in r for r in reasons) and any("BRL" in r for r in reasons)
    orix = _years(imported[0])[1070304]["2009"]  # ORIX gives its own USD translation beside its yen
    assert (orix["revenue_usd"], orix["currency_converted_from"]) == ("10026000000", "JPY")


def _month_end(day: str) -> str:
    """The nearest month end, as the data sets round ``ddate``."""
    date = dt.date.fromisoformat(day)
    this = date.replace(day=calendar.monthrange(date.year, date.month)[1])
    last = date.replace(day=1) - dt.timedelta(days=1)
    return min((this, last), key=lambda d: abs((d - date).days)).isoformat()


def test_data_sets_and_companyfacts_agree_on_every_value_both_hold() -> None:
    """Every (accession, concept, period) of the concepts read that a companyfacts document and a data-sets quarter
    both hold, quarterly values included (neither quarter holds an annual report of these companies)."""
    ctx = Context()
    datasets: dict[tuple, set] = defaultdict(set)
    for path in sorted(DATASETS.glob("*.zip")):
        with zipfile.ZipFile(path) as archive:
            filings = sec_datasets.filings(archive, path, ctx, forms=None)
            wanted = {a for a, (_, cik, _) in filings.items() if int(cik) in DOCUMENTS}
            for obs in sec_datasets.observations(archive, path, wanted, ctx):
                quarters = round(obs.days * 4 / 365.2425) if obs.days else 0
                key = (obs.accession, obs.taxonomy, obs.concept, obs.unit, obs.end, quarters)
                datasets[key].add(obs.value)
    facts: dict[tuple, set] = defaultdict(set)
    for path in DOCUMENTS.values():
        _, _, body = sec_companyfacts.company(FACTS / path)
        for obs in sec_companyfacts.observations(FACTS / path, body, ctx)[0]:
            quarters = round(obs.days * 4 / 365.2425) if obs.days else 0
            facts[(obs.accession, obs.taxonomy, obs.concept, obs.unit, _month_end(obs.end), quarters)].add(obs.value)
    both = set(datasets) & set(facts)
    assert len(both) >= 40 and len({key[0] for key in both}) >= 4
    apple = ("0001193125-09-153165", "us-gaap", "SalesRevenueNet", "USD", "2009-06-30", 1)
    assert apple in both and datasets[apple] == facts[apple] == {8_337_000_000}
    assert {key: datasets[key] for key in both} == {key: facts[key] for key in both}


@pytest.mark.parametrize("datasets_first", [True, False], ids=["data sets first", "companyfacts first"])
def test_a_year_from_both_sources_keeps_the_first_report_and_the_latest_figures(tmp_path: Path,
                                                                                datasets_first: bool) -> None:
    """Best Buy's fiscal 2009 from the 2010q2 data sets (10-K filed 2010-04-28, period rounded to 2010-02-28) and a
    made-up companyfacts document whose later 10-K changes its revenue, imported in either order: one row, the
    original report, the later figures and exact period end, and the later filing as the restating one."""
    original, later = "0001047469-10-004349", "0000764478-11-000001"
    revenue = [_fact("2010-02-27", 49_694_000_000, original, "2010-04-28", 2009, "2009-03-01"),
               _fact("2010-02-27", 49_700_000_000, later, "2011-04-27", 2010, "2009-03-01"),
               _fact("2011-02-26", 50_272_000_000, later, "2011-04-27", 2010, "2010-02-28")]
    document = tmp_path / "bestbuy.json"
    document.write_text(_document(764478, {"Revenues": revenue}, "BEST BUY CO INC"), encoding="utf-8")
    into = tmp_path / "out"
    import_files("edgar", [TICKERS], into, lambda _: None)
    for source, path in sorted([("sec-financial-statements", DATASETS / "2010q2.zip"), ("sec-companyfacts", document)],
                               reverse=datasets_first):
        import_files(source, [path], into, lambda _: None)
    years = _years(into)[764478]
    row = years["2009"]
    assert (row["accession_number"], row["filed_date"], row["period_end"]) == (original, "2010-04-28", "2010-02-27")
    assert (row["revenue_usd"], row["restated_accession_number"], row["restated_date"]) == (
        "49700000000", later, "2011-04-27")
    assert row["net_income_usd"] == "1317000000"  # a figure only the data sets gave stays
    assert "2010" in years and years["2010"]["accession_number"] == later


def test_the_profile_names_the_filing(imported: tuple) -> None:
    info, tables = validate(imported[0])
    con = duckdb.connect(config={"threads": 1})
    load_into(con, tables)
    con.execute(queries.read_sql("views"))
    route = next(r for r in DETAIL_ROUTES if r.name == "company")
    apple_id = next(c["id"] for c in _rows(imported[0], "companies") if c["cik"] == str(APPLE))
    data = next(data for keys, data in details.bodies(con, route, info) if str(keys[0]) == apple_id)
    route.model.model_validate_json(data)
    years = {y["fiscal_year"]: y for y in json.loads(data)["financials"]}
    assert years[2023]["filing"] == {
        "accession_number": "0000320193-23-000106", "filed_date": "2023-11-03",
        "url": "https://www.sec.gov/Archives/edgar/data/320193/000032019323000106/0000320193-23-000106-index.htm",
        "restated": None}
    assert years[2009]["filing"]["restated"] == {
        "accession_number": "0001193125-10-012091", "date": "2010-01-25",
        "url": "https://www.sec.gov/Archives/edgar/data/320193/000119312510012091/0001193125-10-012091-index.htm"}
    assert (years[2023]["period_end"], years[2023]["gross_profit_usd"], years[2023]["shares_outstanding"]) == (
        "2023-09-30", 169148000000, 15550061000)


def test_reimporting_changes_nothing(imported: tuple, tmp_path: Path) -> None:
    named = tmp_path / "company_tickers_lpa.json"
    named.write_text(json.dumps(LPA_LIST), encoding="utf-8")
    result = import_files("auto", [TICKERS, named, FACTS, DATASETS], imported[0], lambda _: None)
    assert result.changed == []


def test_the_plan_reads_company_lists_first() -> None:
    steps, _ = plan("auto", [FACTS, TICKERS, DATASETS])
    assert steps[0] == ("edgar", TICKERS) and [name for name, _ in steps[1:6]] == ["sec-companyfacts"] * 5
