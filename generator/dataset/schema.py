"""The canonical dataset: one pydantic model per CSV file in ``data/``.

Each model is the schema of one input table: column names, types, units, allowed values and which columns
are required. ``Table`` adds what a model cannot say by itself: the file name, the primary key and the
foreign keys. The loader validates every row against these and the data dictionary (``data/README.md``)
documents them; a test keeps the two in step.

Conventions: money is whole US dollars in ``*_usd`` integer columns; per-share prices are US cents in
``*_cents`` integer columns; ratios are decimals (0.25 = 25 %); dates are ISO 8601 ``YYYY-MM-DD``; an empty
cell is null. Categorical values are lowercase slugs ``[a-z0-9-]``.

Cells are read strictly (``Integer``, ``Date``: ``cells.py``): integers digits only, within 2^53 - 1; dates
exactly ``YYYY-MM-DD``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from generator.dataset.attribution import Alias, NewsItem, Provenance
from generator.dataset.cells import STRICT_INTEGER, Date, Integer
from generator.dataset.history import Change
from generator.dataset.vocabulary import (  # noqa: F401  (re-exported: the schema is where callers find them)
    ACCESSION_PATTERN,
    MAX_USD,
    NEWS_RECORDS,
    RESERVED_SLUGS,
    SLUG_PATTERN,
    TICKER_PATTERN,
    Accession,
    AliasKind,
    Basis,
    ChangeType,
    Cik,
    CompanyStatus,
    CountryCode,
    CsvBool,
    CurrencyCode,
    Domain,
    EntityKind,
    FilingForm,
    InvestorType,
    IpoStatus,
    ListingKind,
    MarkMethod,
    NewsOrigin,
    NewsTag,
    OfferingKind,
    OfferingStatus,
    RoundStage,
    RoundTransaction,
    Row,
    SignedUsd,
    Slug,
    Text,
    Url,
    UsdAmount,
    UsdCents,
    Year,
)

IPO_STATUS_DATE: dict[str, str] = {
    "pipeline": "announced_date",
    "filed": "filed_date",
    "upcoming": "expected_date",
    "listed": "listing_date",
    "withdrawn": "withdrawn_date",
    "postponed": "postponed_date",
}
"""The date that goes with each IPO status: required for that status, and the source of the row's year."""


class DatasetInfo(BaseModel):
    """``data/dataset.json``: what the dataset is, its as-of date and the disclaimer every response carries."""

    model_config = ConfigDict(extra="forbid")
    title: Text
    as_of: dt.date = Field(description="date the figures were compiled; 'upcoming' and 'trending' are relative to it")
    disclaimer: Text
    license: Text
    sources: list[Text] = Field(min_length=1)


class Sector(Row):
    slug: Slug
    name: Text
    description: Text | None = None


class Country(Row):
    code: CountryCode
    name: Text
    region: Slug = Field(description="continent-level region slug, e.g. north-america, europe, asia-pacific")


class Exchange(Row):
    slug: Slug
    name: Text
    country: CountryCode
    mic: Annotated[str, Field(pattern=r"^[A-Z0-9]{4}$")] | None = Field(None, description="ISO 10383 MIC")


class Company(Row):
    id: Integer = Field(ge=1, description="stable numeric id")
    slug: Slug = Field(description="stable URL slug; never all digits, never a reserved listing word")
    name: Text
    sector: Slug
    country: CountryCode = Field(description="country of headquarters")
    status: CompanyStatus
    founded_year: Year | None = None
    headquarters_city: Text | None = None
    website: Domain | None = None
    description: Text | None = None
    ticker: Annotated[str, Field(pattern=TICKER_PATTERN)] | None = None
    exchange: Slug | None = None
    cik: Cik | None = Field(None, description="SEC Central Index Key")
    listing_date: Date | None = None
    listing_kind: ListingKind | None = None
    valuation_usd: UsdAmount | None = Field(None, description="latest valuation or market capitalisation")
    valuation_date: Date | None = None
    valuation_basis: Basis | None = None
    acquirer: Text | None = None
    acquired_date: Date | None = None
    acquisition_price_usd: UsdAmount | None = None
    valuation_is_current: CsvBool | None = Field(
        None, description="empty = current when status is public or private; false = superseded or stale "
        "(e.g. insolvency, a public write-down without a new figure)"
    )
    valuation_currency_converted_from: CurrencyCode | None = Field(
        None, description="currency the valuation was reported in when valuation_usd is converted"
    )
    unicorn_date: Date | None = Field(
        None, description="date the company was first valued at $1B or more, as a unicorn list dates it (its "
        "'date joined'; month precision in the lists)"
    )
    unicorn_date_source: Text | None = Field(None, description="the list that gives unicorn_date")
    fiscal_year_end: Annotated[str, Field(pattern=r"^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")] | None = Field(
        None, description="month and day the fiscal year ends, MM-DD (EDGAR's fiscalYearEnd; a 52-53-week year "
        "ends near it)"
    )

    @field_validator("slug")
    @classmethod
    def _slug_not_numeric(cls, value: str) -> str:
        if value.isdigit():
            raise ValueError("slug must not be all digits (it would collide with numeric ids)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Company:
        if self.status == "public" and (self.ticker is None or self.exchange is None):
            raise ValueError("a public company needs ticker and exchange")
        if (self.valuation_usd is None) != (self.valuation_basis is None):
            raise ValueError("valuation_usd and valuation_basis go together")
        if self.status == "acquired" and self.acquirer is None:
            raise ValueError("an acquired company needs acquirer")
        if (self.unicorn_date is None) != (self.unicorn_date_source is None):
            raise ValueError("unicorn_date and unicorn_date_source go together")
        return self


class Financial(Row):
    company_id: Integer
    fiscal_year: Year
    revenue_usd: UsdAmount | None = None
    net_income_usd: SignedUsd | None = None
    operating_income_usd: SignedUsd | None = None
    gross_margin: Annotated[float, Field(ge=-10, le=1)] | None = Field(None, description="ratio, 0.6 = 60 %")
    employees: Annotated[int, Field(ge=0), STRICT_INTEGER] | None = None
    basis: Basis
    currency_converted_from: CurrencyCode | None = Field(
        None, description="reporting currency the USD figures were converted from; empty = reported in USD"
    )
    period_end: Date | None = Field(
        None, description="last day of the fiscal year (the SEC's data sets round it to the month end)"
    )
    gross_profit_usd: SignedUsd | None = Field(None, description="gross profit; gross_margin = it / revenue_usd")
    shares_outstanding: Annotated[int, Field(ge=0), STRICT_INTEGER] | None = Field(
        None, description="common shares outstanding at period_end (else on the annual report's cover page)"
    )
    accession_number: Accession | None = Field(
        None, description="SEC accession number of the fiscal year's own annual report (the original, not an "
        "amendment; for a year known only as a comparative, the first report that gave it)"
    )
    filed_date: Date | None = Field(None, description="date the report of accession_number was filed")
    restated_accession_number: Accession | None = Field(
        None, description="a later filing that changed a figure (a restatement, a recast, or the figure "
        "rounded anew); the figures given are the latest filing's"
    )
    restated_date: Date | None = Field(None, description="date the filing of restated_accession_number was filed")


class FundingRound(Row):
    id: Integer = Field(ge=1)
    company_id: Integer
    stage: RoundStage
    announced_date: Date
    amount_usd: UsdAmount | None = None
    post_money_valuation_usd: UsdAmount | None = None
    basis: Basis
    transaction: RoundTransaction | None = Field(
        None, description="empty = debt for stage debt, else equity; stake-purchase = existing shares bought"
    )
    currency_converted_from: CurrencyCode | None = Field(
        None, description="currency the round was announced in when the USD figures are converted"
    )


class RoundInvestor(Row):
    round_id: Integer
    investor_id: Integer
    is_lead: CsvBool


class Investor(Row):
    id: Integer = Field(ge=1)
    slug: Slug
    name: Text
    type: InvestorType
    country: CountryCode
    founded_year: Year | None = None
    website: Domain | None = None


class Ipo(Row):
    id: Integer = Field(ge=1)
    company_id: Integer
    status: IpoStatus
    exchange: Slug | None = None
    ticker: Annotated[str, Field(pattern=TICKER_PATTERN)] | None = None
    listing_kind: ListingKind = "ipo"
    announced_date: Date | None = Field(None, description="first credible report of IPO plans")
    filed_date: Date | None = Field(None, description="first public registration statement")
    expected_date: Date | None = Field(None, description="expected pricing/listing date")
    priced_date: Date | None = None
    listing_date: Date | None = Field(None, description="first trading day")
    withdrawn_date: Date | None = None
    postponed_date: Date | None = None
    price_range_low_cents: UsdCents | None = None
    price_range_high_cents: UsdCents | None = None
    offer_price_cents: UsdCents | None = None
    shares_offered: Annotated[int, Field(ge=0), STRICT_INTEGER] | None = None
    proceeds_usd: UsdAmount | None = None
    valuation_at_ipo_usd: UsdAmount | None = None
    first_day_close_cents: UsdCents | None = None
    basis: Basis

    @model_validator(mode="after")
    def _status_has_its_date(self) -> Ipo:
        date_column = IPO_STATUS_DATE[self.status]
        if getattr(self, date_column) is None:
            raise ValueError(f"status {self.status!r} needs {date_column}")
        low, high = self.price_range_low_cents, self.price_range_high_cents
        if low is not None and high is not None and low > high:
            raise ValueError("price_range_low_cents is above price_range_high_cents")
        return self


class Offering(Row):
    id: Integer = Field(ge=1)
    company_id: Integer
    kind: OfferingKind
    status: OfferingStatus
    announced_date: Date
    close_date: Date | None = None
    price_per_share_cents: UsdCents | None = None
    amount_usd: UsdAmount | None = None
    implied_valuation_usd: UsdAmount | None = None
    lead_investor_id: Integer | None = None
    description: Text | None = None
    basis: Basis
    currency_converted_from: CurrencyCode | None = Field(
        None, description="currency the offering was reported in when the USD figures are converted"
    )


class SecondaryPrice(Row):
    company_id: Integer
    month: Date = Field(description="first day of the month the price point stands for")
    implied_valuation_usd: UsdAmount
    basis: Basis
    method: MarkMethod | None = Field(
        None, description="observed = a reported transaction in that month; carried-forward = the latest "
        "observed mark dated on or before the month"
    )
    observed_date: Date | None = Field(None, description="date of the transaction the mark rests on")
    offering_id: Integer | None = Field(None, description="the tender offer or secondary sale the mark comes from")

    @field_validator("month")
    @classmethod
    def _first_of_month(cls, value: dt.date) -> dt.date:
        if value.day != 1:
            raise ValueError("month must be the first day of a month")
        return value


class Filing(Row):
    id: Integer = Field(ge=1)
    company_id: Integer
    form: FilingForm = Field(description="SEC form type as EDGAR writes it")
    filed_date: Date
    accession_number: Accession | None = None
    description: Text | None = None
    filer_cik: Cik | None = Field(
        None, description="CIK the filing was made under when it is not the company's own (e.g. a predecessor)"
    )


@dataclass(frozen=True)
class ForeignKey:
    column: str
    table: str
    target: str


@dataclass(frozen=True)
class Table:
    name: str
    model: type[Row]
    key: tuple[str, ...]
    foreign_keys: tuple[ForeignKey, ...] = ()
    unique: tuple[str, ...] = field(default=())
    """Further columns whose values must be unique (nulls aside)."""
    optional: bool = False
    """A folder without the file has none of its rows (a table added to the format later: a folder written
    before it still loads)."""

    @property
    def file_name(self) -> str:
        return f"{self.name}.csv"


def _fk(column: str, table: str, target: str = "id") -> ForeignKey:
    return ForeignKey(column, table, target)


TABLES: tuple[Table, ...] = (
    Table("sectors", Sector, ("slug",)),
    Table("countries", Country, ("code",)),
    Table("exchanges", Exchange, ("slug",), (_fk("country", "countries", "code"),)),
    Table(
        "companies", Company, ("id",),
        (_fk("sector", "sectors", "slug"), _fk("country", "countries", "code"), _fk("exchange", "exchanges", "slug")),
        unique=("slug", "ticker", "cik"),
    ),
    Table("aliases", Alias, ("company_id", "kind", "alias"), (_fk("company_id", "companies"),), optional=True),
    Table("financials", Financial, ("company_id", "fiscal_year"), (_fk("company_id", "companies"),)),
    Table("investors", Investor, ("id",), (_fk("country", "countries", "code"),), unique=("slug",)),
    Table("funding_rounds", FundingRound, ("id",), (_fk("company_id", "companies"),)),
    Table(
        "round_investors", RoundInvestor, ("round_id", "investor_id"),
        (_fk("round_id", "funding_rounds"), _fk("investor_id", "investors")),
    ),
    Table("ipos", Ipo, ("id",), (_fk("company_id", "companies"), _fk("exchange", "exchanges", "slug"))),
    Table(
        "offerings", Offering, ("id",),
        (_fk("company_id", "companies"), _fk("lead_investor_id", "investors")),
    ),
    Table(
        "secondary_prices", SecondaryPrice, ("company_id", "month"),
        (_fk("company_id", "companies"), _fk("offering_id", "offerings")),
    ),
    Table("filings", Filing, ("id",), (_fk("company_id", "companies"),), unique=("accession_number",)),
    Table("news", NewsItem, ("id",), (_fk("company_id", "companies"),
                                      *(_fk(column, table) for column, table in NEWS_RECORDS.items()))),
    Table("provenance", Provenance, ("table", "record", "source", "basis"), optional=True),
    Table("changes", Change, ("id",), optional=True),
)
TABLE_BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}
"""Every input table, in load order (a table's foreign keys point at tables listed before it)."""
PROVENANCE = TABLE_BY_NAME["provenance"]
CHANGES = TABLE_BY_NAME["changes"]
"""Optional (written by ``changes record``): the differences each snapshot showed against the one before it."""
"""Optional (written by ``import``): the store of the importers keeps it beside the records it describes."""
