"""The Nasdaq stock screener importer on the real download of 2025-05-23 (``../shared/data``, read in place; the few
files a test writes are slices of it, or documents built from its rows, in the test's temporary folder)."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from generator.importers import ImportResult, import_files, plan
from generator.importers import nasdaq_screener as screener
from generator.importers.base import SourceError
from generator.importers.finalize import BEFORE_LISTING, NO_MARKET_VALUE, stale_valuations
from generator.importers.identity import normalise
from generator.importers.securities import EQUITY, NOTE, PREFERRED, RIGHT, UNIT, WARRANT, issuer, issuer_key, kind
from generator.importers.securities import related as classes_of_one
from generator.importers.store import COLUMNS, Store
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
SCREENER = SHARED_DATA / "nasdaq-screener" / "nasdaq_screener_2025-05-23.csv"
DAY = "2025-05-23"
QUIET = lambda _: None  # noqa: E731


def rows() -> list[dict[str, str]]:
    with SCREENER.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def rows_of(*symbols: str) -> list[dict[str, str]]:
    found = {r["Symbol"].strip(): r for r in rows() if r["Symbol"].strip() in symbols}
    assert set(found) == set(symbols)
    return [found[s] for s in symbols]


def write_csv(path: Path, selected: list[dict[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=screener.COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(selected)
    return path


def table(folder: Path, name: str = "companies") -> list[dict[str, str]]:
    with (folder / f"{name}.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def market_cap(row: dict[str, str]) -> int:
    return int(float(row["Market Cap"] or 0))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ImportResult]:
    into = tmp_path_factory.mktemp("screener") / "canonical"
    return into, import_files("auto", [SCREENER], into, QUIET)


@pytest.fixture(scope="module")
def by_ticker(imported: tuple[Path, ImportResult]) -> dict[str, dict[str, str]]:
    return {r["ticker"]: r for r in table(imported[0]) if r["ticker"]}


# --- the file ------------------------------------------------------------------------------------------------------


def test_the_screener_csv_is_recognised_by_its_header_and_nothing_else_is() -> None:
    assert screener.detect(SCREENER) == screener.RANK
    assert plan("auto", [SCREENER])[0] == [("nasdaq-screener", SCREENER)]
    for other in (SHARED_DATA / "nasdaq-ipos-2021-2025" / "nasdaq_ipos_pricings.csv",
                  SHARED_DATA / "unicorns" / "cbinsights_unicorns_2025-01-07.csv",
                  SHARED_DATA / "nasdaq-calendar-api" / "2024-06.json"):
        assert screener.detect(other) is None, other


def test_apple_is_valued_at_its_market_cap_of_the_file_s_day(by_ticker: dict[str, dict[str, str]]) -> None:
    apple = by_ticker["AAPL"]
    assert (apple["name"], apple["status"], apple["country"], apple["sector"]) == ("Apple Inc.", "public", "us",
                                                                                    "hardware")
    assert (apple["valuation_usd"], apple["valuation_date"], apple["valuation_basis"]) == (
        "2916518743020", DAY, "market-cap")
    assert apple["valuation_is_current"] == ""


def test_every_company_row_with_a_market_value_values_its_company(imported: tuple[Path, ImportResult],
                                                                   by_ticker: dict[str, dict[str, str]]) -> None:
    """Each equity row with a market cap gives its company that value, dated the file's day; share classes give
    their company the value of the class traded most. Issuers of one normalised name (two First Bancorps, Graham
    Holdings and Graham Corporation) are joined by the merge's name rule when no other list tells them apart: those
    are the only rows whose value another row's replaced."""
    equity = [r for r in rows() if kind(r["Symbol"], r["Name"]) == EQUITY]
    symbol = {id(r): r["Symbol"].strip().replace("/", "-") for r in equity}
    classes: dict[str, list[dict[str, str]]] = {}
    for row in equity:
        classes.setdefault(issuer_key(issuer(row["Name"])), []).append(row)
    names: dict[str, set[str]] = {}
    for row in equity:
        names.setdefault(normalise(issuer(row["Name"])), set()).add(symbol[id(row)])
    checked, joined_by_name = 0, set()
    for row in (r for r in equity if market_cap(r) > 0):
        group = [r for r in classes[issuer_key(issuer(row["Name"]))]
                 if r is row or classes_of_one(symbol[id(r)], symbol[id(row)])]
        company = next((by_ticker[symbol[id(r)]] for r in sorted(group, key=lambda r: symbol[id(r)])
                        if symbol[id(r)] in by_ticker), None)
        traded_most = max((r for r in group if market_cap(r) > 0), key=lambda r: int(r["Volume"] or 0))
        if company is None or company["valuation_usd"] != str(market_cap(traded_most)):
            joined_by_name.add(normalise(issuer(row["Name"])))
            continue
        assert (company["valuation_date"], company["valuation_basis"], company["status"]) == (DAY, "market-cap",
                                                                                              "public")
        checked += 1
    assert checked > 5_350
    assert joined_by_name <= {"first bancorp", "graham", "independent bank", "blue owl capital", "toro", "carnival",
                              "mfs municipal income trust", "liberty media"}
    assert all(len(names[name]) > 1 for name in joined_by_name)
    valued = [r for r in table(imported[0]) if r["valuation_usd"]]
    assert all((r["valuation_date"], r["valuation_basis"]) == (DAY, "market-cap") for r in valued)


def test_no_company_is_a_warrant_unit_right_preferred_or_note(imported: tuple[Path, ImportResult],
                                                              by_ticker: dict[str, dict[str, str]]) -> None:
    into, result = imported
    skipped = {r["Symbol"].strip().replace("/", "-") for r in rows() if kind(r["Symbol"], r["Name"]) != EQUITY}
    assert {"ABR^D", "AACBU", "AACBR", "ABLLW", "ABLLL", "RAC-WS", "FITBI"} <= skipped
    assert not skipped & set(by_ticker)
    names = {r["name"] for r in table(into)}
    equity_issuers = {issuer(r["Name"]) for r in rows() if kind(r["Symbol"], r["Name"]) == EQUITY}
    securities_only = {issuer(r["Name"]) for r in rows() if kind(r["Symbol"], r["Name"]) != EQUITY} - equity_issuers
    assert {"Dillard's Capital Trust I", "Comcast Holdings ZONES", "Gen Digital Inc. Contingent Value"} \
        <= securities_only
    assert names <= equity_issuers and not names & securities_only
    counts = {reason.split(":")[1].strip(): n for reason, n in result.context.skipped.items()
              if reason.endswith("securities of a company, not a company")}
    assert counts == {"warrants": 323, "units (a SPAC's share with a warrant or right)": 70, "rights": 37,
                      "preferred shares (and depositary shares of one)": 514, "notes and bonds": 177}
    preferreds = next(r for r in result.context.skipped if r.startswith("nasdaq-screener: preferred"))
    assert result.context.where[preferreds][0] == f"{SCREENER}:40 ABR^D"
    assert by_ticker["ABR"]["valuation_usd"] == "1821678999"  # the common stock of the issuer of ABR^D


@pytest.mark.parametrize(("symbol", "name", "expected"), [
    ("ABR^D", "Arbor Realty Trust 6.375% Series D Cumulative Redeemable Preferred Stock", PREFERRED),
    ("FITBI", "Fifth Third Bancorp Depositary Shares", PREFERRED),
    ("AACBU", "Artius II Acquisition Inc. Units", UNIT),
    ("AACBR", "Artius II Acquisition Inc. Rights", RIGHT),
    ("ABLLW", "Abacus Global Management Inc. Warrant", WARRANT),
    ("PSNYW", "Polestar Automotive Holding UK PLC Class C-1 ADS (ADW)", WARRANT),
    ("RAC/WS", "Rithm Acquisition Corp.", WARRANT),
    ("CCZ", "Comcast Holdings ZONES", NOTE),
    ("EAI", "Entergy Arkansas LLC First Mortgage Bonds 4.875% Series Due September 1 2066", NOTE),
    ("BNS", "Bank Nova Scotia Halifax Pfd 3 Ordinary Shares", EQUITY),
    ("AMX", "America Movil S.A.B. de C.V. American Depositary Shares (each representing the right to receive twenty "
            "(20) Series B Shares", EQUITY),
    ("AB", "AllianceBernstein Holding L.P.  Units", EQUITY),
    ("ET", "Energy Transfer LP Common Units ", EQUITY),
    ("PVL", "Permianville Royalty Trust Trust Units ", EQUITY),
    ("GOOG", "Alphabet Inc. Class C Capital Stock", EQUITY),
])
def test_a_row_s_kind_of_security(symbol: str, name: str, expected: str) -> None:
    assert kind(symbol, name) == expected


@pytest.mark.parametrize(("name", "expected"), [
    ("Apple Inc. Common Stock", "Apple Inc."),
    ("Alphabet Inc. Class C Capital Stock", "Alphabet Inc."),
    ("Boeing Company (The) Common Stock", "Boeing Company"),
    ("Stock Yards Bancorp Inc. Common Stock", "Stock Yards Bancorp Inc."),
    ("E2open Parent Holdings Inc.Class A Common Stock", "E2open Parent Holdings Inc."),
    ("STARWOOD PROPERTY TRUST INC. Starwood Property Trust Inc.", "Starwood Property Trust Inc."),
    ("KANZHUN LIMITED American Depository Shares", "Kanzhun Limited"),
    ("Vermilion Energy Inc. Common (Canada)", "Vermilion Energy Inc."),
    ("First Bancorp Inc  (ME) Common Stock", "First Bancorp Inc (ME)"),
    ("D/B/A Sibanye-Stillwater Limited ADS", "Sibanye-Stillwater Limited"),
    ("RH Common Stock", "RH"),
])
def test_the_issuer_s_name_without_the_security_s_words(name: str, expected: str) -> None:
    assert issuer(name) == expected


def test_share_classes_are_one_company_valued_at_the_class_traded_most(
        imported: tuple[Path, ImportResult], by_ticker: dict[str, dict[str, str]]) -> None:
    """Nasdaq's Market Cap on a class's row is the whole company's at that class's price: price and market cap of
    GOOGL and GOOG give one share count (all of Alphabet's classes), and so do BRK/A and BRK/B; the company takes the
    value of its class traded most, under the ticker of its first class."""
    googl, goog, brk_a, brk_b = rows_of("GOOGL", "GOOG", "BRK/A", "BRK/B")
    for one, other, ratio in ((googl, goog, 1), (brk_a, brk_b, 1500)):  # a class B share is 1/1500 of a class A
        shares = [market_cap(r) / float(r["Last Sale"].lstrip("$")) for r in (one, other)]
        assert abs(shares[0] - shares[1] / ratio) / shares[0] < 1e-4
    alphabet, berkshire = by_ticker["GOOG"], by_ticker["BRK-A"]
    assert (alphabet["name"], alphabet["valuation_usd"]) == ("Alphabet Inc.", str(market_cap(googl)))
    assert (berkshire["name"], berkshire["valuation_usd"]) == ("Berkshire Hathaway Inc.", str(market_cap(brk_b)))
    assert not {"GOOGL", "BRK-B", "FOXA", "NWSA", "ZG"} & set(by_ticker)
    assert [normalise(r["name"]) for r in table(imported[0])].count("alphabet") == 1
    joined = next(r for r in imported[1].context.skipped if "further share classes" in r)
    assert imported[1].context.skipped[joined] == 36


# --- the API's JSON ------------------------------------------------------------------------------------------------


def api_document(selected: list[dict[str, str]]) -> dict[str, object]:
    """The download answer's shape (docs/sources.md), holding rows of the real file under the API's keys."""
    keys = {column: key for key, column in screener.KEYS.items()}
    return {"data": {"asOf": None, "headers": {**{k: c for c, k in keys.items()}, "url": "Url"},
                     "rows": [{**{keys[c]: v for c, v in r.items()},
                               "url": f"/market-activity/stocks/{r['Symbol'].lower()}"} for r in selected]},
            "message": None, "status": {"rCode": 200, "bCodeMessage": None, "developerMessage": None}}


def test_the_api_s_json_dated_by_the_fetch_run_and_named_for_its_exchange(tmp_path: Path) -> None:
    """A fetch run at 03:17 UTC on the 24th is 23:17 in New York on the 23rd: the prices are the 23rd's close."""
    path = tmp_path / "raw" / "2025-05-24T031702Z" / "api.nasdaq.com" / "api" / "screener" / "stocks" / "nasdaq.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(api_document(rows_of("AAPL", "GOOG", "GOOGL", "ABR", "ABR^D", "AACBU"))),
                    encoding="utf-8")
    assert screener.detect(path) == screener.RANK
    result = import_files("auto", [tmp_path / "raw"], tmp_path / "canonical", QUIET)
    assert result.plan == [("nasdaq-screener", path)]
    companies = {r["ticker"]: r for r in table(tmp_path / "canonical")}
    assert set(companies) == {"AAPL", "GOOG", "ABR"}
    apple = companies["AAPL"]
    assert (apple["valuation_usd"], apple["valuation_date"], apple["exchange"]) == ("2916518743020", DAY, "nasdaq")
    assert companies["GOOG"]["valuation_usd"] == "2044383450000"


@pytest.mark.parametrize(("document", "message"), [
    ({"data": {"filters": None, "table": {"headers": {"symbol": "Symbol"}, "rows": []}}}, "ask with download=true"),
    ({"data": None, "message": None, "status": {"rCode": 400}}, "data is null"),
    ({"data": {"headers": {"symbol": "Symbol"}, "rows": [{"symbol": "AAPL", "name": "Apple Inc."}]}},
     r"data.rows\[0\]: missing lastsale"),
])
def test_a_json_document_that_is_no_download_answer_fails_saying_why(tmp_path: Path, document: dict,
                                                                     message: str) -> None:
    path = tmp_path / "2025-05-23" / "screener.json"
    path.parent.mkdir()
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SourceError, match=message):
        import_files("nasdaq-screener", [path], tmp_path / "canonical", QUIET)


# --- the date, the exchange, odd rows ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nasdaq_screener.csv", "nasdaq_screener_1748044800000.csv"])
def test_a_file_without_a_date_is_refused_saying_how_to_date_it(tmp_path: Path, name: str) -> None:
    path = write_csv(tmp_path / name, rows_of("AAPL"))
    with pytest.raises(SourceError, match=rf"{name}: no date: .*nasdaq_screener_YYYY-MM-DD\.csv.*dated folder"):
        import_files("nasdaq-screener", [path], tmp_path / "canonical", QUIET)
    assert not (tmp_path / "canonical").exists()


@pytest.mark.parametrize(("folder", "day"), [
    ("2025-05-23", "2025-05-23"),                # a dated folder a person made: its day
    ("2025-05-23T210500Z", "2025-05-23"),        # 17:05 in New York, after the close
    ("2025-05-24T150000Z", "2025-05-23"),        # Saturday: Friday's close
    ("2025-05-27T120000Z", "2025-05-26"),        # 08:00 before the open: the day before (a holiday: not known)
    ("2025-01-15T040000Z", "2025-01-14"),        # winter time: 23:00 on the 14th
])
def test_a_fetch_run_s_folder_dates_the_prices(tmp_path: Path, folder: str, day: str) -> None:
    assert screener.file_date(tmp_path / folder / "stocks" / "nyse.json") == day


def test_the_file_s_name_says_its_exchange(tmp_path: Path) -> None:
    from generator.importers.base import Context

    ctx = Context()
    assert screener.file_exchange(Path("nasdaq_screener_2025-05-23.csv"), ctx) == ""
    assert screener.file_exchange(Path("nasdaq_screener_nyse_2025-05-23.csv"), ctx) == "nyse"
    assert screener.file_exchange(Path("amex.json"), ctx) == "nyse-american"
    with pytest.raises(SourceError, match="names the exchanges nasdaq and nyse"):
        screener.file_exchange(Path("nyse-nasdaq.json"), ctx)
    assert screener.file_date(Path("x") / "nasdaq_screener_nyse_2025-05-23.csv") == DAY
    assert screener.prices_day(dt.datetime(2025, 3, 10, 13, 45)) == "2025-03-10"  # summer time from March 9


def test_an_odd_row_is_skipped_and_reported_with_its_place(tmp_path: Path) -> None:
    apple, microsoft, nvidia = rows_of("AAPL", "MSFT", "NVDA")
    path = write_csv(tmp_path / f"nasdaq_screener_{DAY}.csv",
                     [apple, {**microsoft, "Market Cap": "about 3 trillion"}, {**nvidia, "Symbol": "NV DA!"}])
    result = import_files("nasdaq-screener", [path], tmp_path / "canonical", QUIET)
    assert [r["ticker"] for r in table(tmp_path / "canonical")] == ["AAPL"]
    odd = {reason: result.context.where[reason] for reason in result.context.skipped if "odd rows" in reason}
    assert odd == {
        "nasdaq-screener: odd rows (a market cap or volume that is no number)":
            [f"{path}:3: column Market Cap: expected a number (got 'about 3 trillion')"],
        "nasdaq-screener: odd rows (a symbol that is no ticker)": [f"{path}:4 NV DA!"],
    }


# --- with the other sources ------------------------------------------------------------------------------------------


def test_a_ticker_on_both_ticker_lists_is_one_company_renamed_or_listed_by_another_class(tmp_path: Path) -> None:
    """EDGAR's list (older than the screener) calls GE General Electric, the screener GE Aerospace: one listing, one
    company. EDGAR holds Embotelladora Andina as AKO-A ("Andina Bottling"); the screener trades AKO/B most."""
    tickers = json.loads((SHARED_DATA / "edgar" / "company_tickers.json").read_text(encoding="utf-8"))
    keep = {k: v for k, v in tickers.items() if v["ticker"] in ("GE", "AKO-A", "AKO-B", "AAPL")}
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "company_tickers.json").write_text(json.dumps(keep), encoding="utf-8")
    write_csv(tmp_path / "src" / f"nasdaq_screener_{DAY}.csv", rows_of("AAPL", "AKO/A", "AKO/B", "GE"))
    result = import_files("auto", [tmp_path / "src"], tmp_path / "canonical", QUIET)
    companies = table(tmp_path / "canonical")
    assert sorted((r["cik"], r["ticker"]) for r in companies) == [("320193", "AAPL"), ("40545", "GE"),
                                                                 ("925261", "AKO-A")]
    ge = next(r for r in companies if r["cik"] == "40545")
    assert (ge["valuation_usd"], ge["valuation_basis"]) == (str(market_cap(rows_of("GE")[0])), "market-cap")
    assert result.report.matched["ticker on two ticker lists (names differ)"] >= 1
    assert result.source_sets == {"edgar+nasdaq-screener": 3}


def test_a_public_company_s_private_mark_is_history_and_its_market_value_current(tmp_path: Path) -> None:
    """CoreWeave: a CB Insights unicorn at $23B on 2025-01-07, listed on 2025-03-28. Without a market value its
    private mark is not current; the screener's market value of 2025-05-23 is, and the flag goes."""
    src = tmp_path / "src"
    src.mkdir()
    for folder, name, needle in (("unicorns", "cbinsights_unicorns_2025-01-07.csv", "CoreWeave,"),
                                 ("nasdaq-ipos-2021-2025", "nasdaq_ipos_pricings.csv", ",CRWV,")):
        lines = (SHARED_DATA / folder / name).read_text(encoding="utf-8").splitlines()
        (src / name).write_text("\n".join([lines[0], *(line for line in lines if needle in line)]) + "\n",
                                encoding="utf-8")
    into = tmp_path / "canonical"
    first = import_files("auto", [src], into, QUIET)
    (coreweave,) = table(into)
    assert (coreweave["status"], coreweave["listing_date"], coreweave["valuation_basis"]) == (
        "public", "2025-03-28", "press-report")
    assert coreweave["valuation_is_current"] == "false"
    assert first.fixes[BEFORE_LISTING] == 1
    later = import_files("nasdaq-screener", [write_csv(tmp_path / f"nasdaq_screener_{DAY}.csv", rows_of("CRWV"))],
                         into, QUIET)
    (coreweave,) = table(into)
    assert (coreweave["valuation_usd"], coreweave["valuation_date"], coreweave["valuation_basis"]) == (
        "49312850644", DAY, "market-cap")
    assert coreweave["valuation_is_current"] == ""
    assert BEFORE_LISTING not in later.fixes


def _company(**values: str) -> dict[str, str]:
    return dict.fromkeys(COLUMNS["companies"], "") | {"status": "public", "ticker": "X", "exchange": "nasdaq",
                                                      **values}


def test_stale_valuations_never_touch_hand_curated_values_nor_market_values() -> None:
    from collections import Counter

    store = Store()
    mark = {"valuation_usd": "1000", "valuation_date": "2024-01-01", "valuation_basis": "press-report"}
    store.rows["companies"] = {
        "1": _company(id="1", listing_date="2024-06-01", **mark),      # imported private mark before listing
        "2": _company(id="2", listing_date="2024-06-01", **mark),      # the same, hand-curated
        "3": _company(id="3", listing_date="2023-01-01", **mark),      # after listing, no market value anywhere
        "4": _company(id="4", valuation_usd="5000", valuation_date="2025-05-23", valuation_basis="market-cap"),
        "5": _company(id="5", status="private", **mark),                # a private company's mark
    }
    for key in ("1", "3", "4", "5"):
        basis = "market-cap" if key == "4" else "press-report"
        for column in ("valuation_usd", "valuation_date", "valuation_basis"):
            store.claim("companies", key, column, "nasdaq-screener" if key == "4" else "cbinsights", basis)
    fixes: Counter[str] = Counter()
    stale_valuations(store, fixes)
    flags = {k: r["valuation_is_current"] for k, r in store.rows["companies"].items()}
    assert flags == {"1": "false", "2": "", "3": "false", "4": "", "5": ""}
    assert fixes == Counter({BEFORE_LISTING: 1, NO_MARKET_VALUE: 1})
    assert store.owner("companies", "1", "valuation_is_current") == ("import", "estimate")


def test_a_company_listed_under_a_new_ticker_since_an_undated_list_is_renamed(tmp_path: Path) -> None:
    """EDGAR's undated list holds Fiserv as FISV; the screener of 2025-05-23 trades it as FI and lists no FISV:
    the record takes FI, and FISV stays as a former ticker. Liberty Broadband's LBRDA, which the screener still
    lists beside LBRDK, is a current class: not renamed."""
    tickers = json.loads((SHARED_DATA / "edgar" / "company_tickers.json").read_text(encoding="utf-8"))
    keep = {k: v for k, v in tickers.items() if v["ticker"] in ("FISV", "LBRDA", "AAPL")}
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "company_tickers.json").write_text(json.dumps(keep), encoding="utf-8")
    write_csv(tmp_path / "src" / f"nasdaq_screener_{DAY}.csv", rows_of("AAPL", "FI", "LBRDA", "LBRDK"))
    into = tmp_path / "canonical"
    result = import_files("auto", [tmp_path / "src"], into, QUIET)
    by_cik = {r["cik"]: r for r in table(into)}
    assert (by_cik["798354"]["ticker"], by_cik["798354"]["status"]) == ("FI", "public")
    assert by_cik["1611983"]["ticker"] == "LBRDA" and by_cik["320193"]["ticker"] == "AAPL"
    aliases = [(a["company_id"], a["kind"], a["alias"]) for a in table(into, "aliases")]
    assert aliases == [(by_cik["798354"]["id"], "ticker", "FISV")]
    assert sum(result.report.renamed.values()) == 1
    assert import_files("auto", [tmp_path / "src"], into, QUIET).changed == []


@pytest.mark.parametrize(("spac", "now", "ticker", "old_ticker"), [
    ("HNR Acquisition Corp.", "EON Resources Inc.", "EONR", "HNRA"),
    ("Digital World Acquisition Corp.", "Trump Media & Technology Group Corp.", "DJT", "DWAC"),
])
def test_a_de_spac_is_one_company_under_its_new_name_and_ticker(real_import: Path, spac: str, now: str, ticker: str,
                                                                 old_ticker: str) -> None:
    """The SPAC's CIK record is the company it became: its name and ticker now, the SPAC's as aliases, its sector
    no longer blank-check, valued at the new ticker's market cap."""
    (company,) = [r for r in table(real_import) if r["ticker"] == ticker]
    assert (company["name"], company["status"], company["valuation_basis"]) == (now, "public", "market-cap")
    assert company["sector"] != "blank-check"
    aliases = {(a["kind"], a["alias"]) for a in table(real_import, "aliases") if a["company_id"] == company["id"]}
    assert {("name", spac), ("ticker", old_ticker)} <= aliases and ("name", now) not in aliases
    assert not [r for r in table(real_import) if r["ticker"] == old_ticker]
