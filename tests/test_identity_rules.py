"""Each identity rule on made-up facts (no files, no ../shared/data): strong keys join, weak keys join only with
corroboration and within their dates, numbered series and other eras stay apart, status follows the record's own
events. The same rules on the real files: tests/test_entities.py (counts) and the importers' tests (examples)."""

from __future__ import annotations

from generator.importers.base import CompanyFact, IpoFact, RoundFact, Source
from generator.importers.finalize import finalize
from generator.importers.merge import Merger
from generator.importers.store import Store

FILINGS = Source("edgar", "sec-filing", "made-up EDGAR list", current_tickers=True)
DEALS = Source("nasdaq", "exchange-data", "made-up Nasdaq deals")
UNICORNS = Source("cbinsights", "press-report", "made-up unicorn list")
ROUNDS = Source("crunchbase", "press-report", "made-up 2013 rounds")


def merged(*facts: tuple[object, Source]) -> tuple[Store, Merger]:
    store = Store()
    merger = Merger(store, ticker_lists=frozenset({FILINGS.name}))
    for fact, source in facts:
        merger.apply(fact, source)
    return store, merger


def companies(store: Store) -> list[dict[str, str]]:
    return sorted(store.rows["companies"].values(), key=lambda r: int(r["id"]))


def named(store: Store, name: str) -> list[dict[str, str]]:
    return [r for r in companies(store) if r["name"] == name]


def priced(name: str, ticker: str, day: str, deal: str = "") -> IpoFact:
    company = CompanyFact(name, ticker=ticker, date=day, defaults={"status": "public", "listing_date": day})
    return IpoFact(company, {"status": "listed", "ticker": ticker, "priced_date": day, "listing_date": day,
                             "listing_kind": "ipo"}, deal=deal)


def filed(name: str, day: str, deal: str) -> IpoFact:
    return IpoFact(CompanyFact(name, defaults={"status": "private"}),
                   {"status": "filed", "filed_date": day, "listing_kind": "ipo"}, deal=deal)


# --- strong keys ---------------------------------------------------------------------------------------------------


def test_a_cik_joins_whatever_the_names() -> None:
    store, _ = merged((CompanyFact("Facebook, Inc.", cik="1326801", ticker="FB"), FILINGS),
                      (CompanyFact("Meta Platforms", cik="1326801"), FILINGS))
    assert [r["cik"] for r in companies(store)] == ["1326801"]


def test_a_deal_s_filing_and_pricing_are_one_ipo_of_one_company_under_both_names() -> None:
    store, _ = merged((filed("EON Resources Inc.", "2021-01-29", "1300521-1"), DEALS),
                      (priced("HNR Acquisition Corp.", "HNRAU", "2022-02-11", "1300521-1"), DEALS))
    (company,) = companies(store)
    (ipo,) = store.rows["ipos"].values()
    assert (ipo["status"], ipo["filed_date"], ipo["listing_date"]) == ("listed", "2021-01-29", "2022-02-11")
    names = {a["alias"] for a in store.rows["aliases"].values()} | {company["name"]}
    assert names == {"EON Resources Inc.", "HNR Acquisition Corp."}


def test_rows_of_two_deals_are_two_ipos() -> None:
    store, _ = merged((filed("Alpha Corp", "2021-01-05", "1-1"), DEALS),
                      (filed("Alpha Corp", "2023-06-01", "1-2"), DEALS))
    assert len(store.rows["ipos"]) == 2 and len(companies(store)) == 1  # one company, filing twice


# --- weak keys, within their dates ---------------------------------------------------------------------------------


def test_a_ticker_reused_years_later_brings_nothing_of_the_other_era() -> None:
    """Cogent Systems listed as COGT in 2004; Cogent Biosciences holds COGT now: two companies."""
    store, _ = merged((CompanyFact("Cogent Biosciences, Inc.", cik="1622229", ticker="COGT"), FILINGS),
                      (priced("Cogent Systems", "COGT", "2004-09-24"), DEALS))
    assert len(companies(store)) == 2
    (ipo,) = store.rows["ipos"].values()
    assert store.rows["companies"][ipo["company_id"]]["name"] == "Cogent Systems"


def test_a_name_in_two_cities_is_two_companies() -> None:
    store, _ = merged((CompanyFact("Branch", fields={"headquarters_city": "Redwood City"}), UNICORNS),
                      (CompanyFact("Branch", fields={"headquarters_city": "Columbus"}), UNICORNS))
    assert len(named(store, "Branch")) == 2


def test_a_name_in_two_countries_is_two_companies() -> None:
    store, _ = merged((CompanyFact("Nova Pay", country="de"), UNICORNS),
                      (CompanyFact("Nova Pay", country="br"), UNICORNS))
    assert sorted(r["country"] for r in named(store, "Nova Pay")) == ["br", "de"]


def test_rounds_before_the_founding_are_another_company_s() -> None:
    """A unicorn founded in 2019 and a 2013 company of its name that raised in 2012: the 2012 round is evidence of
    two companies, not data of the unicorn."""
    unicorn = CompanyFact("Ramp", fields={"founded_year": "2019", "unicorn_date": "2021-03-29",
                                          "unicorn_date_source": "made-up list"})
    old_round = RoundFact(CompanyFact("Ramp", defaults={"status": "private"}),
                          {"stage": "seed", "announced_date": "2012-05-01", "amount_usd": "500000"})
    store, merger = merged((unicorn, UNICORNS), (old_round, ROUNDS))
    assert len(named(store, "Ramp")) == 2
    (round_row,) = store.rows["funding_rounds"].values()
    assert store.rows["companies"][round_row["company_id"]]["founded_year"] == ""
    assert merger.report.kept_apart == {"same name, a round or investment before the company's founding": 1}


def test_numbered_vehicles_of_one_sponsor_are_different_companies() -> None:
    store, _ = merged((priced("Hennessy Capital Acquisition Corp.", "HCAC", "2014-01-17"), DEALS),
                      (priced("Hennessy Capital Acquisition Corp. II", "HCAC", "2015-07-23"), DEALS))
    assert len(companies(store)) == 2


# --- status and value from the record's own events ------------------------------------------------------------------


def test_acquired_then_listed_again_is_public() -> None:
    """Bought in 2006 (a 2013 list says acquired), listed in 2024: the latest event stands."""
    acquired = CompanyFact("Reddit", fields={"status": "acquired", "acquirer": "Advance",
                                             "acquired_date": "2006-10-31"})
    store, _ = merged((acquired, ROUNDS), (priced("Reddit", "RDDT", "2024-03-21"), DEALS),
                      (CompanyFact("Reddit, Inc.", cik="1713445", ticker="RDDT", fields={"status": "public"}), FILINGS))
    finalize(store, ["made-up"], frozenset({FILINGS.name}))
    (reddit,) = companies(store)
    assert (reddit["status"], reddit["ticker"]) == ("public", "RDDT")


def test_a_company_reorganised_under_its_name_keeps_its_listing() -> None:
    """Accenture plc's CIK was assigned in 2009; Accenture listed as ACN in 2001: the same name, one company."""
    store, _ = merged((CompanyFact("Accenture plc", cik="1467373", ticker="ACN"), FILINGS),
                      (priced("Accenture plc", "ACN", "2001-07-19"), DEALS))
    (company,) = companies(store)
    assert company["listing_date"] == "2001-07-19"
