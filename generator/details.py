"""Single resources: the company profile (and, later, investor and industry details)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import partial
from typing import NamedTuple

import duckdb
from pydantic import BaseModel

from generator import responses
from generator.queries import read_sql
from generator.schema import DatasetInfo

EDGAR_COMPANY_URL = "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK={cik:010d}"

ANALYSIS_METHODOLOGY = {
    "valuation_to_revenue": "current valuation_usd divided by revenue_usd of the latest fiscal year with revenue; "
    "null without positive revenue or without a current valuation",
    "revenue_growth": "latest fiscal-year revenue divided by the previous fiscal year's revenue, minus 1",
    "sector_rank": "rank by current valuation_usd (highest = 1) among companies of the same sector with one",
    "sector_percentile": "share of the sector's valued companies whose valuation is at or below this one",
    "months_since_last_round": "whole calendar months from the latest funding round to the dataset's as_of date",
    "secondary_premium_to_last_round": "latest monthly secondary implied valuation divided by the latest "
    "disclosed round post-money valuation, minus 1",
}


def _records(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None) -> Iterator[dict]:
    result = con.execute(sql, params or {})
    names = [d[0] for d in result.description]
    while batch := result.fetchmany(10_000):
        for values in batch:
            yield dict(zip(names, values, strict=True))


def _grouped(
    con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None, by: str = "company_id"
) -> dict[object, list[dict]]:
    """Rows of a query file grouped by one column (removed from the rows), in query order."""
    groups: dict[object, list[dict]] = defaultdict(list)
    for record in _records(con, read_sql(name), params):
        groups[record.pop(by)].append(record)
    return groups


class Detail(NamedTuple):
    """One resource to render: the keys it is published under (id first, or slug), the records it is made from
    (their ``repr`` keys its unit: equal inputs render equal files) and how to make its response model."""

    keys: tuple[str, ...]
    inputs: tuple[object, ...]
    make: Callable[[], BaseModel]


def company_profiles(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[Detail]:
    """Every company's profile, keyed by (id, slug)."""
    financials = _grouped(con, "company_financials")
    rounds = _grouped(con, "company_rounds")
    ipos = _grouped(con, "company_ipos")
    analysis = {r.pop("company_id"): r for r in _records(con, read_sql("company_analysis"), {"as_of": info.as_of})}
    analysis_current = dict(con.execute("SELECT company_id, valuation_is_current FROM company_valuation").fetchall())
    companies = _records(con, """
        SELECT c.*, s.name AS sector_name, n.name AS country_name, e.name AS exchange_name
        FROM companies c JOIN sectors s ON s.slug = c.sector JOIN countries n ON n.code = c.country
        LEFT JOIN exchanges e ON e.slug = c.exchange ORDER BY c.id
    """)
    for c in companies:
        inputs = (c, financials.get(c["id"], []), rounds.get(c["id"], []), ipos.get(c["id"], []),
                  analysis[c["id"]], analysis_current[c["id"]])
        yield Detail((str(c["id"]), c["slug"]), inputs, partial(_company_profile, *inputs))


def _company_profile(
    c: dict, financials: list[dict], company_rounds: list[dict], ipos: list[dict], analysis: dict, current: bool
) -> responses.CompanyProfile:
    disclosed = [r for r in company_rounds if r["amount_usd"] is not None]
    amounts = [r["amount_usd"] for r in disclosed if r["transaction"] == "equity"]
    others = [r["amount_usd"] for r in disclosed if r["transaction"] != "equity"]
    investor_ids = {i["id"] for r in company_rounds for i in r["investors"]}
    latest = company_rounds[0] if company_rounds else None
    return responses.CompanyProfile(
        id=c["id"], slug=c["slug"], name=c["name"],
        sector=c["sector"], sector_name=c["sector_name"], country=c["country"], country_name=c["country_name"],
        status=c["status"], founded_year=c["founded_year"], headquarters_city=c["headquarters_city"],
        website=c["website"], description=c["description"],
        valuation_usd=c["valuation_usd"], valuation_date=c["valuation_date"],
        valuation_basis=c["valuation_basis"],
        listing=responses.Listing(
            ticker=c["ticker"], exchange=c["exchange"], exchange_name=c["exchange_name"], cik=c["cik"],
            edgar_url=EDGAR_COMPANY_URL.format(cik=c["cik"]) if c["cik"] else None,
            listing_date=c["listing_date"], listing_kind=c["listing_kind"],
        ),
        acquisition=responses.Acquisition(
            acquirer=c["acquirer"], acquired_date=c["acquired_date"], price_usd=c["acquisition_price_usd"],
        ) if c["acquirer"] else None,
        financials=financials,
        funding=responses.Funding(
            total_raised_usd=sum(amounts) if amounts else None,
            rounds_count=len(company_rounds),
            investors_count=len(investor_ids),
            last_round_stage=latest["stage"] if latest else None,
            last_round_date=latest["announced_date"] if latest else None,
            rounds=company_rounds,
            other_transactions_usd=sum(others) if others else None,
        ),
        ipos=ipos,
        analysis=responses.Analysis(**analysis, methodology=ANALYSIS_METHODOLOGY),
        valuation_is_current=current,
        valuation_currency_converted_from=c["valuation_currency_converted_from"],
    )


def investor_profiles(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[Detail]:
    """Every investor with its portfolio and the rounds it led, keyed by slug."""
    portfolio = _grouped(con, "investor_portfolio", by="investor_id")
    led = _grouped(con, "investor_rounds_led", by="investor_id")
    for investor in _records(con, read_sql("investors") + " ORDER BY i.id"):
        inputs = (investor, portfolio.get(investor["id"], []), led.get(investor["id"], []))
        yield Detail((investor["slug"],), inputs, partial(_investor_profile, *inputs))


def _investor_profile(investor: dict, portfolio: list[dict], led: list[dict]) -> responses.InvestorProfile:
    return responses.InvestorProfile(**investor, portfolio=portfolio, rounds_led=led)


def industry_details(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[Detail]:
    """Every sector's aggregates with its companies, countries and funding by year, keyed by slug."""
    companies = _grouped(con, "industry_companies", by="sector")
    countries = _grouped(con, "industry_countries", by="sector")
    funding = _grouped(con, "industry_funding", by="sector")
    for industry in _records(con, read_sql("industries") + " ORDER BY s.slug"):
        slug = industry["slug"]
        inputs = (industry, countries.get(slug, []), funding.get(slug, []), companies.get(slug, []))
        yield Detail((slug,), inputs, partial(_industry_detail, *inputs))


def _industry_detail(
    industry: dict, countries: list[dict], funding: list[dict], companies: list[dict]
) -> responses.IndustryDetail:
    return responses.IndustryDetail(
        **industry, companies_by_country=countries, funding_by_year=funding, companies=companies,
    )
