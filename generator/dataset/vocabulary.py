"""The dataset's vocabulary: the types of its cells (slugs, codes, amounts, years) and the allowed values of its
categorical columns, which the table models (``schema.py``) are made of."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from generator.dataset.cells import STRICT_INTEGER

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)

    """A row of an input table. Its integer and date columns are ``Integer`` and ``Date``, read strictly
    (``generator/dataset/cells.py``): integers digits only and within 2^53 - 1, dates exactly YYYY-MM-DD."""


Slug = Annotated[str, Field(pattern=SLUG_PATTERN, max_length=80)]
RESERVED_SLUGS = frozenset({
    "all", "index", "errors", "page", "sort",
    "q", "sector", "country", "status", "stage", "kind", "year", "month", "type", "when",
    "exchange", "form", "company", "tag", "minvaluation",
})
"""Words that listing paths use below a collection (``all``, ``sort``, the filter names...), so no slug may be one
of them. The API's registry checks, when it is imported, that every word its paths use is in this list."""
CountryCode = Annotated[str, Field(pattern=r"^[a-z]{2}$", description="ISO 3166-1 alpha-2, lowercase")]
MAX_USD = 10**15
UsdAmount = Annotated[int, Field(ge=0, le=MAX_USD, description="whole US dollars"), STRICT_INTEGER]
SignedUsd = Annotated[
    int, Field(ge=-MAX_USD, le=MAX_USD, description="whole US dollars; negative for a loss"), STRICT_INTEGER
]
UsdCents = Annotated[int, Field(ge=0, description="US cents per share"), STRICT_INTEGER]
Year = Annotated[int, Field(ge=1000, le=2100), STRICT_INTEGER]
Cik = Annotated[int, Field(ge=1, le=9999999999), STRICT_INTEGER]
ACCESSION_PATTERN = r"^\d{10}-\d{2}-\d{6}$"
"""An SEC accession number: the filer agent's CIK, the year, the filing's sequence (0000320193-23-000106)."""
Accession = Annotated[str, Field(pattern=ACCESSION_PATTERN)]
Text = Annotated[str, Field(min_length=1, max_length=2000)]
Domain = Annotated[str, Field(pattern=r"^[a-z0-9-]+(\.[a-z0-9-]+)+$", description="bare domain, no scheme")]
Url = Annotated[str, Field(pattern=r"^https?://\S+$", max_length=2000, description="http or https URL")]

def _csv_bool(value: object) -> object:
    if isinstance(value, str):
        if value not in ("true", "false"):
            raise ValueError("must be true or false")
        return value == "true"
    return value


CsvBool = Annotated[bool, BeforeValidator(_csv_bool), Field(description="true or false")]

Basis = Literal["sec-filing", "company-report", "exchange-data", "market-cap", "press-report", "estimate"]
"""Where a figure comes from. ``market-cap`` is a listed company's market value on a day (price times shares, as an
exchange's list gives it); ``estimate`` marks a figure that is not a disclosed number."""

CompanyStatus = Literal["public", "private", "acquired", "closed", "delisted"]
"""``delisted``: listed once (an IPO on record) and holding no current listing in the sources: delisted, renamed
under another ticker or taken over without the sources saying which; the old ticker stays on the IPO record."""
ListingKind = Literal["ipo", "direct-listing", "spac-merger"]
IpoStatus = Literal["pipeline", "filed", "upcoming", "listed", "withdrawn", "postponed"]
RoundStage = Literal[
    "pre-seed", "seed", "series-a", "series-b", "series-c", "series-d", "series-e", "series-f",
    "series-g", "series-h", "series-i", "series-j", "growth", "private-equity", "corporate",
    "debt", "convertible-note", "grant", "undisclosed",
]
InvestorType = Literal[
    "vc", "growth", "corporate", "sovereign", "crossover", "private-equity", "hedge-fund",
    "asset-manager", "accelerator", "angel", "bank", "family-office",
]
OfferingKind = Literal["tender", "secondary", "placement"]
OfferingStatus = Literal["announced", "open", "closed", "cancelled"]
FilingForm = Literal[
    "S-1", "S-1/A", "F-1", "F-1/A", "424B4", "424B1", "RW", "D", "D/A", "10-K", "20-F", "8-K", "DRS", "S-4",
]
RoundTransaction = Literal["equity", "stake-purchase", "buyout", "debt"]
"""What a funding row is: new equity (incl. convertible notes), a purchase of existing shares, a buyout, or debt."""
MarkMethod = Literal["observed", "carried-forward"]
TICKER_PATTERN = r"^[A-Z0-9.\-]{1,10}$"
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code, e.g. EUR")]
NewsTag = Literal[
    "ipo", "filing", "pricing", "listing", "funding", "valuation", "secondary", "tender", "acquisition",
    "earnings", "layoffs", "product", "regulation", "withdrawal", "spac", "leadership",
]
NewsOrigin = Literal["feed", "compiled"]
"""Where a news item comes from. ``feed``: a news feed or a publisher's page (``publisher`` and ``url`` name it);
``compiled``: written by the dataset's compilers from its own records (the IPO, round, filing or offering it links,
or with no link the company record itself: its acquisition, its valuation). An item that names neither (press
coverage the dataset does not cite) is not published: nothing would let a reader trace it."""
NEWS_RECORDS: dict[str, str] = {
    "ipo_id": "ipos", "round_id": "funding_rounds", "filing_id": "filings", "offering_id": "offerings",
}
"""The news columns that link the record a compiled item summarises, and the table each points at."""
AliasKind = Literal["name", "ticker"]

ChangeType = Literal[
    "company-added", "company-renamed", "company-removed", "company-acquired", "company-delisted", "company-closed",
    "company-listed", "ipo-filed", "ipo-priced", "ipo-listed", "ipo-postponed", "ipo-withdrawn", "round-announced",
    "valuation-changed", "filing-added", "api-deprecated",
]
"""What a change event says happened (``/api/changes``): a dated fact of the dataset (an IPO's dates, a round, a
filing, an acquisition) or a difference one snapshot of the dataset recorded against the one before it."""
EntityKind = Literal["company", "ipo", "round", "filing", "api"]
"""The kind of record a change event is about."""
EVENT_ID_PATTERN = r"^evt-[0-9a-f]{16}$"

