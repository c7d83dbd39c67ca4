"""Provenance per fact: every record an import writes names the source that gave it and where (a file and line, or
a document and the key or accession in it); the profile says where each group of its facts comes from; the exports
carry ``provenance`` like every table. Made-up files for the rules, the real files for the places' truth."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import duckdb
import pytest

from generator.api import details, queries
from generator.api.registry import DETAIL_ROUTES
from generator.dataset.database import load_into
from generator.dataset.load import validate
from generator.importers import import_files
from generator.importers.store import MAX_PLACES, Places
from generator.pipeline.build import BuildConfig, build
from tests.conftest import SHARED_DATA

QUIET = lambda _: None  # noqa: E731
HEADER = "company,valuation_usd_b,date_joined_ddmmyy,country,city,industry,select_investors\n"
UNICORNS = "cbinsights_unicorns_2025-01-07.csv"


def _provenance(folder: Path) -> list[dict[str, str]]:
    with (folder / "provenance.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _entry(folder: Path, table: str, record: str, source: str) -> dict[str, str]:
    """The source's entry of its own basis (a new company's name is also an ``estimate`` entry of the source)."""
    (found,) = [r for r in _provenance(folder) if (r["table"], r["record"], r["source"]) == (table, record, source)
                and r["basis"] != "estimate"]
    return found


def _company_id(folder: Path, name: str) -> str:
    with (folder / "companies.csv").open(encoding="utf-8", newline="") as handle:
        return next(r["id"] for r in csv.DictReader(handle) if r["name"] == name)


def _unicorns(folder: Path, rows: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / UNICORNS).write_text(HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")
    return folder / UNICORNS


ROWS = ['Acme Robotics,2.50,01/12/21,United States,Austin,Industrials,"Alpha Ventures"',
        'Bravo Pay,1.20,15/03/22,Germany,Berlin,Fintech,""']


# --- where: a file under the folder imported, and the line -------------------------------------------------------


def test_each_record_names_the_line_of_the_file_under_the_folder_imported(tmp_path: Path) -> None:
    _unicorns(tmp_path / "src" / "lists", ROWS)
    into = tmp_path / "canonical"
    import_files("auto", [tmp_path / "src"], into, QUIET)
    acme = _entry(into, "companies", _company_id(into, "Acme Robotics"), "cbinsights")
    bravo = _entry(into, "companies", _company_id(into, "Bravo Pay"), "cbinsights")
    assert acme["places"] == f"lists/{UNICORNS}:2" and bravo["places"] == f"lists/{UNICORNS}:3"
    assert {"valuation_usd", "headquarters_city"} <= set(acme["fields"].split(";"))
    text = (into / "provenance.csv").read_text(encoding="utf-8")
    assert str(tmp_path) not in text and "/tmp" not in text  # nothing of this machine's paths


def test_a_file_given_by_itself_is_named_by_its_name(tmp_path: Path) -> None:
    path = _unicorns(tmp_path / "src", ROWS)
    into = tmp_path / "canonical"
    import_files("cbinsights", [path], into, QUIET)
    assert _entry(into, "companies", _company_id(into, "Bravo Pay"), "cbinsights")["places"] == f"{UNICORNS}:3"


def test_a_reimport_changes_no_place_and_a_changed_value_adds_where_it_now_is(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _unicorns(src, ROWS)
    into = tmp_path / "canonical"
    import_files("auto", [src], into, QUIET)
    before = (into / "provenance.csv").read_bytes()
    assert import_files("auto", [src], into, QUIET).changed == []
    assert (into / "provenance.csv").read_bytes() == before
    # Bravo Pay moves to line 4 with a corrected date joined: the value's new place is listed beside the old
    _unicorns(src, [ROWS[0], 'Other Co,1.00,01/01/23,France,Paris,Fintech,""',
                    'Bravo Pay,1.20,16/03/22,Germany,Berlin,Fintech,""'])
    import_files("auto", [src], into, QUIET)
    places = _entry(into, "companies", _company_id(into, "Bravo Pay"), "cbinsights")["places"].split(";")
    assert places == [f"{UNICORNS}:3", f"{UNICORNS}:4"]
    assert [r["name"] for r in csv.DictReader((into / "companies.csv").open())].count("Bravo Pay") == 1


def test_places_keep_the_first_five_and_say_there_are_more() -> None:
    places = Places()
    for line in range(2, 10):
        places.add(f"a.csv:{line}")
    places.add("a.csv:3")  # given again: listed once
    assert places.render() == "a.csv:2;a.csv:3;a.csv:4;a.csv:5;a.csv:6;+" and MAX_PLACES == 5
    document = Places()
    for place in ("CIK1.json", "CIK1.json#0000000001-23-000001", "CIK1.json#0000000001-24-000001"):
        document.add(place)
    assert document.render() == "CIK1.json"  # a key within a document already named adds nothing
    assert Places.parse(places.render()).render() == places.render()
    assert Places.parse("x.csv:2").render() == "x.csv:2"


# --- the build: the profile's sources and the exported table ------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("provenance")
    _unicorns(folder / "src", ROWS)
    maven = folder / "src" / "maven_unicorns_2022-03.csv"
    maven.write_text("Company;Valuation;Date Joined;Industry;City;Country;Continent;Year Founded;Funding\n"
                     "Acme Robotics;2000000000;01.12.2021;Industrials;Austin;United States;North America;2016;"
                     "$300M\n", encoding="utf-8")
    into = folder / "canonical"
    import_files("auto", [folder / "src"], into, QUIET)
    out = folder / "dist"
    build(BuildConfig(into, out))
    return into, out


def test_the_profile_says_where_each_group_of_its_facts_comes_from(built: tuple[Path, Path]) -> None:
    into, out = built
    acme = _company_id(into, "Acme Robotics")
    profile = json.loads((out / "api" / "companies" / f"{acme}.json").read_text(encoding="utf-8"))["data"]
    by_source = {s["source"]: s for s in profile["sources"] if s["group"] == "company"}
    assert set(by_source) == {"cbinsights", "maven"}
    assert by_source["cbinsights"]["places"] == [f"{UNICORNS}:2"]
    assert by_source["maven"]["places"] == ["maven_unicorns_2022-03.csv:2"]
    assert "founded_year" in by_source["maven"]["fields"] and by_source["maven"]["basis"] == "press-report"
    # the newer list's valuation stands: it is the one that names valuation_usd
    assert "valuation_usd" in by_source["cbinsights"]["fields"]
    assert "valuation_usd" not in by_source["maven"]["fields"]
    assert all(s["records"] == 1 and not s["more_places"] for s in by_source.values())


def test_the_exports_carry_provenance_as_every_table(built: tuple[Path, Path]) -> None:
    into, out = built
    exported = (out / "api" / "export" / "csv" / "provenance.csv").read_text(encoding="utf-8").splitlines()
    source = (into / "provenance.csv").read_text(encoding="utf-8").splitlines()
    assert exported == source  # the same rows, in the same (key) order
    manifest = json.loads((out / "api" / "export" / "index.json").read_text(encoding="utf-8"))["data"]
    listed = {f["table"]: f["rows"] for fmt in manifest["formats"] for f in fmt["files"]}
    assert listed["provenance"] == len(source) - 1


def test_each_group_names_its_sources_in_the_profile(tiny_build: Path) -> None:
    def sources(company: int) -> dict[tuple[str, str], dict]:
        path = tiny_build / "api" / "companies" / f"{company}.json"
        return {(s["group"], s["source"]): s for s in json.loads(path.read_text(encoding="utf-8"))["data"]["sources"]}

    airbnb, stripe = sources(1), sources(4)
    assert list(airbnb) == [("company", "edgar"), ("ipos", "nasdaq-calendar"), ("financials", "sec-companyfacts")]
    assert airbnb[("company", "edgar")]["places"] == ["edgar/company_tickers.json#12",
                                                      "sec-submissions/CIK0001559720.json"]
    assert airbnb[("company", "edgar")]["fields"] == ["cik", "exchange", "ticker"]
    assert airbnb[("ipos", "nasdaq-calendar")] | {"places": None} == {
        "group": "ipos", "source": "nasdaq-calendar", "basis": "exchange-data", "fields": [], "records": 1,
        "places": None, "more_places": False}
    assert airbnb[("financials", "sec-companyfacts")]["fields"] == ["net_income_usd", "revenue_usd"]
    funding = stripe[("funding", "crunchbase")]
    assert funding["places"] == ["crunchbase/crunchbase-rounds.csv:812", "crunchbase/crunchbase-rounds.csv:813"]
    assert funding["more_places"] and funding["records"] == 1


def test_a_dataset_without_provenance_says_so(embedded_build: Path) -> None:
    profile = json.loads((embedded_build / "api" / "companies" / "1.json").read_text(encoding="utf-8"))["data"]
    assert profile["sources"] == []
    assert (embedded_build / "api" / "export" / "csv" / "provenance.csv").read_text().startswith("table,record,")


# --- the real files: every place is a row of its source that holds what the record says ---------------------------

real = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
_PLACE = re.compile(r"^(?P<file>[^#:]+)(?::(?P<line>\d+)|#(?P<key>.+))?$")


def _lines(path: Path, cache: dict[Path, list[str]]) -> list[str]:
    if path not in cache:
        cache[path] = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return cache[path]


@real
def test_every_place_of_the_real_import_is_in_its_file(real_import: Path) -> None:
    cache: dict[Path, list[str]] = {}
    rows = _provenance(real_import)
    unplaced = [r for r in rows if not r["places"] and r["source"] != "import"]
    assert unplaced == []
    for row in rows:
        for place in filter(None, row["places"].split(";")):
            if place == "+":
                continue
            match = _PLACE.match(place)
            assert match, place
            path = SHARED_DATA / match["file"]
            assert path.is_file(), place
            if match["line"] and path.suffix in (".csv", ".idx"):
                assert int(match["line"]) <= len(_lines(path, cache)), place


@real
def test_a_market_value_names_the_screener_row_that_gives_it(real_import: Path) -> None:
    companies = {r["id"]: r for r in csv.DictReader((real_import / "companies.csv").open(encoding="utf-8"))}
    files: dict[str, dict[int, dict[str, str]]] = {}
    checked = 0
    for row in _provenance(real_import):
        if row["source"] != "nasdaq-screener" or row["table"] != "companies" or "valuation_usd" not in row["fields"]:
            continue
        match = _PLACE.match(row["places"].split(";")[0])
        assert match and match["line"], row
        if match["file"] not in files:
            with (SHARED_DATA / match["file"]).open(encoding="utf-8", newline="") as handle:
                reader, by_line = csv.DictReader(handle), {}
                for cells in reader:
                    by_line[reader.line_num] = cells  # the line the row ends on: each row is one line
                files[match["file"]] = by_line
        cells = files[match["file"]][int(match["line"])]
        assert int(float(cells["Market Cap"])) == int(companies[row["record"]]["valuation_usd"]), (row, cells)
        checked += 1
    assert checked > 5000  # every market value the screener gives names the row it is read from


@real
def test_an_ipo_names_the_calendar_row_of_its_deal(real_import: Path) -> None:
    ipos = {r["id"]: r for r in csv.DictReader((real_import / "ipos.csv").open(encoding="utf-8"))}
    documents: dict[str, dict] = {}
    checked = 0
    for row in _provenance(real_import):
        if row["table"] != "ipos" or row["source"] != "nasdaq-calendar":
            continue
        for place in row["places"].split(";"):
            match = _PLACE.match(place)
            if not match or not match["key"]:
                continue
            table: object = documents.setdefault(match["file"], json.loads((SHARED_DATA / match["file"]).read_text()))
            *keys, index = re.split(r"\.|\[|\]", match["key"].rstrip("]"))
            for key in keys:
                table = table[key]  # type: ignore[index]
            deal = table[int(index)]  # type: ignore[index]
            ticker = ipos[row["record"]]["ticker"]  # a filed deal's ticker can change before it prices: priced rows
            if ".priced." in place and ticker and deal["proposedTickerSymbol"]:  # AAM.U is also written AAMU
                assert re.sub(r"\W", "", deal["proposedTickerSymbol"]) == re.sub(r"\W", "", ticker), (row, deal)
                checked += 1
    assert checked > 10


@real
def test_financial_years_name_their_document_and_filing(tmp_path: Path) -> None:
    tickers, facts = SHARED_DATA / "edgar" / "company_tickers.json", SHARED_DATA / "sec-companyfacts"
    into = tmp_path / "canonical"
    import_files("auto", [tickers, facts], into, QUIET)
    apple = next(r for r in csv.DictReader((into / "companies.csv").open(encoding="utf-8")) if r["cik"] == "320193")
    entry = _entry(into, "financials", f"{apple['id']}|2023", "sec-companyfacts")
    assert entry["places"] == "CIK0000320193.json#0000320193-23-000106"
    info, tables = validate(into)
    con = duckdb.connect(config={"threads": 1})
    load_into(con, tables)
    con.execute(queries.read_sql("views"))
    route = next(r for r in DETAIL_ROUTES if r.name == "company")
    data = next(data for keys, data in details.bodies(con, route, info) if str(keys[0]) == apple["id"])
    sources = {(s["group"], s["source"]): s for s in json.loads(data)["sources"]}
    assert sources[("company", "edgar")]["places"][0] == "company_tickers.json#0"  # Apple is the list's key "0"
    financials = sources[("financials", "sec-companyfacts")]
    assert financials["records"] >= 15 and financials["basis"] == "sec-filing"
    assert "revenue_usd" in financials["fields"] and financials["more_places"]
    assert all(re.fullmatch(r"CIK0000320193\.json#\d{10}-\d{2}-\d{6}", p) for p in financials["places"])
