"""Response models: the schema of every row and body the API serves, and the source of the OpenAPI schemas.

Money is whole US dollars (``*_usd``), per-share prices US cents (``*_cents``), ratios decimals, dates ISO 8601.
Every field is always present; a value that is not known is an explicit null.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from generator.api.change_events import ChangeEvent, EventCompany, EventEntity, FieldChange  # noqa: F401
from generator.api.profiles import (  # noqa: F401  (re-exported: every response model is found here)
    Acquisition,
    Analysis,
    CompanyProfile,
    FinancialYear,
    Funding,
    IpoRecord,
    Listing,
    Round,
    RoundInvestorRef,
)
from generator.api.response_base import (  # noqa: F401
    ALSO_KNOWN_AS,
    CONVERTED,
    CURRENT,
    EQUITY,
    OTHER,
    Month,
    Out,
)
from generator.dataset.schema import (
    Basis,
    CompanyStatus,
    FilingForm,
    InvestorType,
    IpoStatus,
    ListingKind,
    NewsOrigin,
    OfferingKind,
    OfferingStatus,
    RoundStage,
    RoundTransaction,
)


class CompanyListItem(Out):
    id: int
    slug: str
    name: str
    sector: str = Field(description="sector slug (names: /api/industries)")
    country: str = Field(description="ISO 3166-1 alpha-2, lowercase")
    status: CompanyStatus
    ticker: str | None
    exchange: str | None = Field(description="exchange slug")
    valuation_usd: int | None = Field(description="current valuation or market cap, whole USD; null if none is current")
    valuation_date: dt.date | None
    valuation_basis: Basis | None
    total_raised_usd: int | None = Field(description=EQUITY)
    last_round_stage: RoundStage | None
    last_round_date: dt.date | None
    url: str = Field(description="path of the company profile")
    valuation_is_current: bool = Field(description=CURRENT + "; the profile has the last known figure")
    also_known_as: list[str] = Field(description=ALSO_KNOWN_AS)


class CompanyRef(Out):
    id: int
    slug: str
    name: str
    sector: str
    country: str
    url: str = Field(description="path of the company profile")


class InvestorRef(Out):
    id: int
    slug: str
    name: str
    url: str = Field(description="path of the investor profile")


class IpoListItem(Out):
    id: int
    status: IpoStatus
    status_date: dt.date = Field(description="the date that goes with the status (see `year`)")
    year: int = Field(description="year of status_date")
    company: CompanyRef
    ticker: str | None
    exchange: str | None = Field(description="exchange slug")
    exchange_name: str | None
    listing_kind: ListingKind
    price_range_low_cents: int | None
    price_range_high_cents: int | None
    offer_price_cents: int | None
    shares_offered: int | None
    proceeds_usd: int | None
    valuation_at_ipo_usd: int | None
    first_day_close_cents: int | None
    first_day_return: float | None = Field(description="first-day close / offer price - 1, ratio")
    announced_date: dt.date | None
    filed_date: dt.date | None
    expected_date: dt.date | None
    priced_date: dt.date | None
    listing_date: dt.date | None
    withdrawn_date: dt.date | None
    postponed_date: dt.date | None
    basis: Basis


class PreIpoListItem(CompanyListItem):
    last_round_post_money_usd: int | None = Field(description="post-money valuation of the latest round that has one")
    latest_secondary_valuation_usd: int | None = Field(description="latest monthly secondary implied valuation")
    latest_secondary_month: Month | None
    secondary_premium_to_last_round: float | None = Field(
        description="latest_secondary_valuation_usd / last_round_post_money_usd - 1, ratio (negative = discount)"
    )
    ipo_status: IpoStatus | None = Field(description="status of the company's latest IPO record, if any")
    latest_secondary_observed_date: dt.date | None = Field(description="date of the transaction behind the mark")


class OfferingListItem(Out):
    id: int
    kind: OfferingKind
    status: OfferingStatus
    company: CompanyRef
    announced_date: dt.date
    year: int = Field(description="year of announced_date")
    close_date: dt.date | None
    price_per_share_cents: int | None
    amount_usd: int | None
    implied_valuation_usd: int | None
    lead_investor: InvestorRef | None
    description: str | None
    basis: Basis
    currency_converted_from: str | None = Field(description=CONVERTED)


CalendarEventType = Literal[
    "filing", "expected-listing", "pricing", "listing", "quiet-period-end", "lockup-expiry", "withdrawal",
    "postponement",
]


class CalendarEvent(Out):
    id: str = Field(description="stable event id: ipo-{ipo id}-{type}")
    type: CalendarEventType
    date: dt.date
    month: Month = Field(description="YYYY-MM of date")
    when: Literal["upcoming", "past"] = Field(description="upcoming = on or after the dataset's as_of date")
    estimated: bool = Field(description="true for dates derived by convention (quiet period 25 days, lock-up 180 "
                            "days after listing) or expected dates, not reported ones")
    ipo_id: int
    ipo_status: IpoStatus
    company: CompanyRef
    exchange: str | None
    ticker: str | None
    description: str


class FundingListItem(Out):
    id: int
    company: CompanyRef
    stage: RoundStage
    announced_date: dt.date
    year: int
    amount_usd: int | None
    post_money_valuation_usd: int | None
    basis: Basis
    lead_investors: list[InvestorRef]
    investors_count: int
    transaction: RoundTransaction = Field(description="equity, stake-purchase, buyout or debt")
    currency_converted_from: str | None = Field(description=CONVERTED)


class ScoreComponent(Out):
    name: str
    value: float | None = Field(description="the input, in the unit the note gives")
    points: float = Field(description="this component's contribution to the score")
    max_points: float
    note: str
    known: bool = Field(description="false when the input is unknown; an unknown input scores 0 points")


class TrendingEntry(Out):
    kind: Literal["gainers", "decliners", "ipo-ready"]
    rank: int = Field(description="1 = strongest within the kind")
    company: CompanyRef
    window_start: Month | None = Field(description="movers: first month of the window")
    window_end: Month | None = Field(description="movers: last month of the window")
    start_valuation_usd: int | None
    end_valuation_usd: int | None
    change: float | None = Field(description="movers: end / start implied valuation - 1, ratio")
    score: float | None = Field(description="ipo-ready: sum of the components' points (0-100)")
    components: list[ScoreComponent] = Field(description="ipo-ready: how the score is made; empty for movers")


class SearchResult(Out):
    type: Literal["company", "investor", "industry"]
    slug: str
    name: str
    subtitle: str | None
    sector: str | None
    country: str | None
    url: str
    ticker: str | None = Field(description="a company's ticker")
    also_known_as: list[str] = Field(description=ALSO_KNOWN_AS + "; empty for investors and industries")


class RecordRef(Out):
    table: Literal["ipos", "funding_rounds", "filings", "offerings", "companies"] = Field(
        description="the dataset table of the record (/api/export?format=json&table=NAME)")
    id: int = Field(description="the record's id (companies: the company's id)")


class NewsListItem(Out):
    id: int
    published_date: dt.date
    headline: str
    summary: str | None
    publisher: str | None = Field(description="who published the item (a feed's publisher)")
    article_url: str | None = Field(description="the article's address, as its feed gives it (an outside URL, not a "
                                    "file of this API)")
    origin: NewsOrigin | None = Field(
        description="feed = publisher and article_url name the article; compiled = written from the dataset's own "
        "records (compiled_from); null = not stated")
    compiled_from: RecordRef | None = Field(
        description="the record a compiled item summarises: an IPO, funding round, filing or offering of the "
        "company, or the company record itself (its acquisition, its valuation)")
    tags: list[str]
    company: CompanyRef


class FilingListItem(Out):
    id: int
    form: FilingForm = Field(description="SEC form type as EDGAR writes it")
    form_slug: str = Field(description="form as a URL slug: lowercase, '/' as '-'")
    filed_date: dt.date
    year: int
    company: CompanyRef
    cik: int | None
    accession_number: str | None
    description: str | None
    edgar_url: str | None = Field(description="the filing's EDGAR folder when the accession number is known, "
                                  "else the filer's EDGAR page")
    edgar_url_kind: Literal["filing", "filer-page"] | None = Field(
        description="filing = edgar_url is the filing itself; filer-page = the accession number is not on record "
        "and edgar_url is the filer's list of filings; null without a CIK")
    filer_cik: int | None = Field(description="CIK the filing was made under (may be a predecessor's)")


class InvestorListItem(Out):
    id: int
    slug: str
    name: str
    type: InvestorType
    country: str
    country_name: str
    founded_year: int | None
    website: str | None
    portfolio_count: int = Field(description="distinct companies in rounds it joined")
    rounds_count: int
    lead_count: int = Field(description="rounds it led")
    url: str


class PortfolioCompany(Out):
    company: CompanyRef
    rounds: int
    led: bool
    first_round_date: dt.date
    last_round_date: dt.date


class LedRound(Out):
    id: int
    company: CompanyRef
    stage: RoundStage
    announced_date: dt.date
    amount_usd: int | None


class InvestorProfile(InvestorListItem):
    portfolio: list[PortfolioCompany] = Field(description="latest round first")
    rounds_led: list[LedRound] = Field(description="newest first")


class StatusCount(Out):
    status: IpoStatus
    count: int


class ValuedCompany(Out):
    company: CompanyRef
    valuation_usd: int | None


class IndustryListItem(Out):
    slug: str
    name: str
    description: str | None
    company_count: int
    public_count: int
    private_count: int
    valued_company_count: int = Field(description="companies with a current valuation")
    total_valuation_usd: int | None = Field(description="sum of current valuations (see valuation_is_current)")
    median_valuation_usd: int | None = Field(description="median of current valuations")
    total_raised_usd: int | None = Field(description=EQUITY)
    ipo_counts: list[StatusCount]
    top_companies: list[ValuedCompany] = Field(description="up to 5, highest current valuation first")
    url: str
    other_transactions_usd: int | None = Field(description=OTHER)


class YearAmount(Out):
    year: int
    rounds: int = Field(description="equity rounds announced that year")
    amount_usd: int | None = Field(description="sum of their disclosed amounts")


class CountryCount(Out):
    country: str
    count: int


class IndustryDetail(IndustryListItem):
    companies_by_country: list[CountryCount]
    funding_by_year: list[YearAmount] = Field(description="newest year first")
    companies: list[ValuedCompany] = Field(description="every company of the sector, highest valuation first")


class Problem(Out):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str


__all__ = [
    "CompanyListItem", "CompanyProfile", "FilingForm", "InvestorType", "OfferingKind", "OfferingStatus",
    "Problem",
]
