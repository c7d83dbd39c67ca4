"""The embedded dataset: its size and spread, and its agreement with the SEC's own ticker list."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from generator.dataset.load import validate
from generator.dataset.schema import IPO_STATUS_DATE, TABLES

from . import oracle
from .conftest import EMBEDDED, SHARED_DATA


@pytest.fixture(scope="module")
def tables() -> dict[str, list[dict]]:
    _, parsed = validate(EMBEDDED)
    return {name: p.rows for name, p in parsed.items()}


def test_embedded_dataset_is_valid_and_large_enough(tables: dict[str, list[dict]]) -> None:
    companies = tables["companies"]
    assert len(companies) >= 200
    assert len({c["sector"] for c in companies}) >= 10
    assert len({c["country"] for c in companies}) >= 12
    listed = {i["company_id"] for i in tables["ipos"] if i["status"] == "listed"}
    assert len(listed) >= 80
    private = [c for c in companies if c["status"] == "private"]
    assert len(private) >= 80
    rounds_by_company = Counter(r["company_id"] for r in tables["funding_rounds"])
    assert sum(1 for c in private if c["valuation_usd"] and rounds_by_company[c["id"]]) >= 80
    assert {c["status"] for c in companies} >= {"public", "private", "acquired"}
    assert len(tables["ipos"]) >= 150
    assert {i["status"] for i in tables["ipos"]} == set(IPO_STATUS_DATE)
    assert len(tables["investors"]) >= 100
    assert len(tables["funding_rounds"]) >= 400
    portfolio = Counter()
    round_company = {r["id"]: r["company_id"] for r in tables["funding_rounds"]}
    for investor, _company in {(ri["investor_id"], round_company[ri["round_id"]]) for ri in tables["round_investors"]}:
        portfolio[investor] += 1
    assert sum(1 for n in portfolio.values() if n >= 5) >= 20, "portfolio counts should be meaningful"
    assert any(ri["is_lead"] for ri in tables["round_investors"])
    assert len(tables["offerings"]) >= 40
    assert {o["kind"] for o in tables["offerings"]} == {"tender", "secondary", "placement"}
    series = Counter(p["company_id"] for p in tables["secondary_prices"])
    assert len(series) >= 15 and sum(1 for n in series.values() if n >= 2) >= 5, "observed marks should make movers"
    assert len(tables["filings"]) >= 200
    assert {"S-1", "F-1", "424B4"} <= {f["form"] for f in tables["filings"]}
    assert len(tables["news"]) >= 150
    years = Counter(f["company_id"] for f in tables["financials"])
    assert sum(1 for n in years.values() if n >= 2) >= 100


def test_tickers_and_ciks_agree_with_the_sec_list(tables: dict[str, list[dict]]) -> None:
    path = SHARED_DATA / "edgar" / "company_tickers.json"
    if not path.exists():
        pytest.skip("../shared/data is not beside the project")
    sec = {row["ticker"]: int(row["cik_str"]) for row in json.loads(path.read_text()).values()}
    checked, wrong = 0, []
    companies = {c["id"]: c for c in tables["companies"]}
    pairs = [(c["ticker"], c["cik"], c["name"]) for c in companies.values() if c["ticker"]]
    pairs += [(i["ticker"], companies[i["company_id"]]["cik"], companies[i["company_id"]]["name"])
              for i in tables["ipos"] if i["ticker"] and i["status"] == "listed"]
    for ticker, cik, name in pairs:
        if ticker in sec and cik is not None:
            checked += 1
            if sec[ticker] != cik:
                wrong.append(f"{name}: {ticker} has CIK {sec[ticker]} in the SEC list, {cik} here")
    assert not wrong, "\n".join(wrong)
    assert checked >= 80, f"only {checked} tickers could be checked"


def test_no_invented_urls_or_identifiers() -> None:
    for table in [t for t in TABLES if (EMBEDDED / t.file_name).exists()]:  # provenance.csv: none, curated by hand
        text = (EMBEDDED / table.file_name).read_text(encoding="utf-8")
        assert not re.search(r"https?://", text), f"{table.file_name} holds a URL"
    for filing in oracle.read(EMBEDDED, "filings"):
        assert filing["accession_number"] == "" or re.fullmatch(r"\d{10}-\d{2}-\d{6}", filing["accession_number"])


def test_estimates_say_so(tables: dict[str, list[dict]]) -> None:
    assert all(p["method"] == "observed" and p["offering_id"] for p in tables["secondary_prices"])
    bases = Counter(c["valuation_basis"] for c in tables["companies"] if c["valuation_usd"] is not None)
    assert bases["estimate"] > 0 and set(bases) <= {"estimate", "press-report", "exchange-data", "sec-filing",
                                                    "company-report"}
