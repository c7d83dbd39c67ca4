"""The company profile (``/api/companies/{id|slug}``): its groups, each a model; part of ``responses``."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from generator.api.response_base import ALSO_KNOWN_AS, CONVERTED, CURRENT, EQUITY, OTHER, Month, Out
from generator.dataset.schema import (
    AliasKind,
    Basis,
    CompanyStatus,
    IpoStatus,
    ListingKind,
    RoundStage,
    RoundTransaction,
)


class Listing(Out):
    ticker: str | None
    exchange: str | None
    exchange_name: str | None
    cik: int | None = Field(description="SEC Central Index Key")
    edgar_url: str | None = Field(description="SEC EDGAR company page, built from the CIK")
    listing_date: dt.date | None
    listing_kind: ListingKind | None


class Acquisition(Out):
    acquirer: str
    acquired_date: dt.date | None
    price_usd: int | None


class RestatedFiling(Out):
    accession_number: str
    date: dt.date = Field(description="the day it was filed")
    url: str | None = Field(description="its EDGAR index page, built from the company's CIK; null without one")


class FinancialFiling(Out):
    accession_number: str = Field(description="the fiscal year's own annual report (the original, not an amendment)")
    filed_date: dt.date | None
    url: str | None = Field(description="its EDGAR index page, built from the company's CIK; null without one")
    restated: RestatedFiling | None = Field(
        description="a later filing that changed a figure (the figures given are its); null when none did")


class FinancialYear(Out):
    fiscal_year: int = Field(description="as the company labels it (Apple's fiscal 2023 ends 2023-09-30)")
    period_end: dt.date | None = Field(description="last day of the fiscal year")
    revenue_usd: int | None
    net_income_usd: int | None
    operating_income_usd: int | None
    gross_profit_usd: int | None
    gross_margin: float | None = Field(description="ratio, 0.6 = 60 %")
    net_margin: float | None = Field(description="net income / revenue, ratio")
    revenue_growth: float | None = Field(description="revenue / previous fiscal year's revenue - 1, ratio")
    employees: int | None
    shares_outstanding: int | None = Field(description="common shares outstanding at the period end")
    basis: Basis
    currency_converted_from: str | None = Field(description=CONVERTED)
    filing: FinancialFiling | None = Field(description="the SEC filing the figures come from; null when none is "
                                           "named")


class RoundInvestorRef(Out):
    id: int
    slug: str
    name: str
    is_lead: bool


class Round(Out):
    id: int
    stage: RoundStage
    announced_date: dt.date
    amount_usd: int | None
    post_money_valuation_usd: int | None
    basis: Basis
    investors: list[RoundInvestorRef]
    transaction: RoundTransaction = Field(description="equity, stake-purchase, buyout or debt")
    currency_converted_from: str | None = Field(description=CONVERTED)


class Funding(Out):
    total_raised_usd: int | None = Field(description=EQUITY)
    rounds_count: int
    investors_count: int
    last_round_stage: RoundStage | None
    last_round_date: dt.date | None
    rounds: list[Round] = Field(description="newest first")
    other_transactions_usd: int | None = Field(description=OTHER)


class IpoRecord(Out):
    id: int
    status: IpoStatus
    status_date: dt.date = Field(description="the date that goes with the status")
    exchange: str | None
    ticker: str | None
    listing_kind: ListingKind
    filed_date: dt.date | None
    expected_date: dt.date | None
    listing_date: dt.date | None
    offer_price_cents: int | None
    proceeds_usd: int | None
    valuation_at_ipo_usd: int | None
    first_day_return: float | None = Field(description="first-day close / offer price - 1, ratio")


class Analysis(Out):
    valuation_to_revenue: float | None = Field(description="valuation_usd / latest fiscal-year revenue")
    revenue_growth: float | None = Field(description="latest fiscal-year revenue growth, ratio")
    sector_rank: int | None = Field(description="1 = highest valuation in its sector")
    sector_companies: int = Field(description="companies in the sector")
    sector_percentile: float | None = Field(description="share of valued sector peers at or below it, ratio")
    months_since_last_round: int | None
    latest_secondary_valuation_usd: int | None
    latest_secondary_month: Month | None
    secondary_premium_to_last_round: float | None = Field(
        description="latest secondary implied valuation / last round post-money - 1, ratio"
    )
    methodology: dict[str, str] = Field(description="how each metric is computed")


class Unicorn(Out):
    date_joined: dt.date = Field(description="first valued at $1B or more, as the list dates it (month precision)")
    source: str = Field(description="the unicorn list that gives the date")


class AliasRecord(Out):
    kind: AliasKind
    alias: str = Field(description="the name or ticker")
    from_date: dt.date | None = Field(description="first day the company used it, when a source dates it")
    to_date: dt.date | None = Field(description="last day the company used it; null when no source dates its end")
    source: str | None = Field(description="where it is known from (EDGAR submissions formerNames, a source that "
                               "calls the company so, its listed IPO record)")


SourceGroup = Literal["company", "also_known_as", "ipos", "funding", "financials", "filings"]


class SourceRecord(Out):
    """Who gave one group of the profile's facts, and where (``provenance.csv``, written by ``import``)."""

    group: SourceGroup = Field(description="the facts: the company's own fields, its former names and tickers, "
                               "its IPOs, funding rounds and their investors, fiscal years, filings")
    source: str = Field(description="the importer that read them, e.g. edgar-submissions, nasdaq-calendar")
    basis: Basis = Field(description="what kind of source it is (a higher basis replaces a lower one's value)")
    fields: list[str] = Field(description="the columns whose current value it gave (canonical column names); "
                              "empty when it describes the records but another source's values stand")
    records: int = Field(description="records of the group it describes")
    places: list[str] = Field(description="where: a file and line, or a document and the key or accession in it, "
                              "under the folder the dataset was imported from; the first five")
    more_places: bool = Field(description="it gives these facts in more places than listed")


class CompanyProfile(Out):
    id: int
    slug: str
    name: str
    sector: str = Field(description="sector slug")
    sector_name: str
    country: str = Field(description="ISO 3166-1 alpha-2, lowercase")
    country_name: str
    status: CompanyStatus
    founded_year: int | None
    headquarters_city: str | None
    website: str | None
    description: str | None
    valuation_usd: int | None
    valuation_date: dt.date | None
    valuation_basis: Basis | None
    listing: Listing
    acquisition: Acquisition | None
    financials: list[FinancialYear] = Field(description="oldest fiscal year first")
    funding: Funding
    ipos: list[IpoRecord]
    analysis: Analysis
    valuation_is_current: bool = Field(description=CURRENT)
    valuation_currency_converted_from: str | None = Field(description=CONVERTED)
    unicorn: Unicorn | None = Field(description="when a unicorn list says the company was first valued at $1B")
    also_known_as: list[AliasRecord] = Field(description=ALSO_KNOWN_AS + "; names first, each kind oldest first")
    sources: list[SourceRecord] = Field(description="where each group of these facts comes from, as the import "
                                        "recorded it; empty for a dataset curated by hand (its `dataset.json` "
                                        "sources apply) or a record no import touched")
