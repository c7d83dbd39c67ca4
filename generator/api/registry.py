"""The route registry: every endpoint of the API declared once.

From these declarations come the precomputed files (``listing.py``, ``details.py``), the rewrite rules for
Netlify, nginx and ``serve`` (``rewrites.py``), the OpenAPI document (``openapi.py``) and the landing page.
Adding an endpoint or a filter is one declaration here (plus its SQL file and row model). The kinds of route,
their URL layout and the query-space constants are in ``routes.py``.
"""

from __future__ import annotations

import typing

from generator.api import responses
from generator.api.kinds import CATEGORY, LADDER_USD, MONTH, SINCE, TEXT, YEAR, YEARS, Bound, UpperBound, Year
from generator.api.routes import (  # noqa: F401  (re-exported: the registry is where callers find them)
    EXPORT_DATASET,
    EXPORT_FORMAT_ALIASES,
    EXPORT_FORMATS,
    FACET_LIMIT,
    PAGE_PARAM,
    PER_PAGE,
    SORT_DEPTH,
    SORT_PARAM,
    UNFILTERED,
    WORD_MAX,
    DetailRoute,
    DocumentRoute,
    ExportRoute,
    Filter,
    FilterKind,
    ListRoute,
    SortField,
)
from generator.dataset import schema

MINIMUM_VALUATION_LADDER_USD: tuple[int, ...] = (
    100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000, 1_000_000_000_000,
)
"""Allowed values of ``minValuation``: whole-USD lower bounds (inclusive) on ``valuation_usd``."""

SEARCH_PREFIX = (3, 3)
"""Shortest and longest indexed prefix on /api/search, in characters: a type-ahead client sends the first two or
three characters of a word and narrows the results itself (each row carries its ``name``); a shorter word is
indexed whole. Longer prefixes would cost a file per distinct prefix of every name (measured at 10k companies:
146k files for 1-24 characters, 10.5k for 1-3, types included); one-character prefixes each list a large share
of every name (about 20 MB at 10k companies)."""


def _category(name: str, description: str, column: str | None = None, **options: object) -> Filter:
    column = column or name
    domain = options.pop("domain", None) or f"SELECT DISTINCT {column} FROM rows"
    kind = options.pop("kind", CATEGORY)
    return Filter(name, kind, column, description, domain, **options)  # type: ignore[arg-type]


def _values(literal: object) -> tuple[str, ...]:
    return tuple(typing.get_args(literal))


WORD_DESCRIPTION = (
    "A whole word of the name, the ticker, or a name or ticker the company is also known by (`also_known_as`: "
    "former names, tickers of earlier listings): lowercase ASCII letters and digits (names are indexed lowercased, "
    "accents removed, split at every other character). Combines with `page` only, in the default order: "
    "a text query with other filters or sorts would cost a file per word of every name per combination. "
    "Type-ahead prefixes are /api/search's job."
)
PREFIX_DESCRIPTION = (
    f"Prefix of a word of the name, ticker or `also_known_as` (former names and tickers), {SEARCH_PREFIX[0]}-"
    f"{SEARCH_PREFIX[1]} characters of lowercase ASCII letters and digits (a shorter word is indexed whole). Send "
    f"at most the first {SEARCH_PREFIX[1]} characters of what the user typed and narrow the rows by their `name`, "
    "`ticker` and `also_known_as`: longer prefixes are not indexed (they answer 404)."
)
SECTOR = _category("sector", "Sector slug (see /api/industries).")
COUNTRY = _category("country", "ISO 3166-1 alpha-2 country code, lowercase.")
MIN_VALUATION = Filter("minValuation", LADDER_USD, "valuation_usd",
                       "Minimum current valuation in whole USD (inclusive); one of the documented ladder values. "
                       "Acquired and closed companies' last figures are history, not current "
                       "(see valuation_is_current).",
                       MINIMUM_VALUATION_LADDER_USD)
WORDS = "name || ' ' || coalesce(ticker, '') || ' ' || array_to_string(also_known_as, ' ')"
"""The words a text filter indexes: of the name, the ticker and the names and tickers a company is also known by
(rows carry the three, so the query front door matches in memory what the files index)."""
COMPANY_TEXT = Filter("q", TEXT, WORDS, WORD_DESCRIPTION, sortable=False)
VALUATION = (SortField("valuation", "valuation_usd", ("desc",)),
             SortField("valuation", "valuation_usd", ("asc",), published=False))
"""Largest first has files; smallest first is the front door's: its rows are the end of the largest-first list's
valued rows (nulls last in both directions), so a page of it reads at most three of those pages and the index
(measured at 10k companies: its files were 899, each a reversed copy of rows published once already)."""
FIRST_DAY_RETURN = SortField("return", "first_day_return", ("desc",))
"""Has files (240 at 10k companies), unlike smallest-first ``sort=valuation``: its order has nothing to do with any
published one, so through the front door alone a page read the pages its rows lie on, up to 47 at 100k companies."""
NAME = SortField("name", "lower(name)")
NAME_ASC = SortField("name", "lower(name)", ("asc",))
FOUNDED = ("founded", "minFounded", "maxFounded")


def _with_ladder(others: tuple[str, ...], also: tuple[str, ...] = ()) -> tuple[tuple[str, ...], ...]:
    """``minValuation`` combined in files with one other filter at most (each with ``also``: filters without
    files, which cost none). Deeper, the answer is the first rows of the same combination without
    ``minValuation`` in its default order (largest valuation first), a page of which the front door reads with the
    index: at most three reads at any size. Measured at 10k companies: those files were 3,634 (1,957 of
    /api/companies, 1,677 of /api/pre-ipos), each a prefix of a published list."""
    return tuple(("minValuation", other, *also) for other in others)


COMPANY_SLUG = _category("company", "Company slug: only items about this company.", "company.slug", open=True)

ROUTES: tuple[ListRoute | DetailRoute | ExportRoute | DocumentRoute, ...] = (
    ListRoute(
        name="companies", path="/api/companies", summary="Filtered list of companies",
        description="Every company of the dataset, public and private. `sector`, `country`, `minValuation` and "
        "`status` combine freely with each other, `sort` and `page` through the query front door; `q` combines with "
        "`page` only. Files hold `minValuation` with one other filter at most, and `sort=valuation` (smallest "
        "first) only through the front door. `founded`, `minFounded` and `maxFounded` (the query front door only) "
        "combine with all of them but `q`.",
        rows_sql="companies", model=responses.CompanyListItem, key="id",
        filters=(COMPANY_TEXT, SECTOR, COUNTRY, MIN_VALUATION,
                 _category("status", "Company status.", domain=_values(schema.CompanyStatus)),
                 Filter("founded", Year(date=False), "founded_year", "Year the company was founded.", published=False),
                 Filter("minFounded", Bound(YEARS), "founded_year", "Founded in this year or later.", published=False),
                 Filter("maxFounded", UpperBound(YEARS), "founded_year", "Founded in this year or earlier.",
                        published=False)),
        combinable=(("q",), ("sector", "country", "status", *FOUNDED),
                    *_with_ladder(("sector", "country", "status"), FOUNDED)),
        sorts=(*VALUATION, NAME_ASC), default_sort="-valuation",
    ),
    DetailRoute(
        name="company", path="/api/companies", summary="Full company profile with financials, funding and analysis",
        model=responses.CompanyProfile, key_names=("id", "slug"), rows_sql="company_profiles", order="id",
        resources="companies",
    ),
    ListRoute(
        name="ipos", path="/api/ipos", summary="IPO pipeline: pipeline, filed, upcoming, listed, withdrawn, postponed",
        description="One row per IPO record. `year` is the year of the date that goes with the status: "
        "announced (pipeline), filed, expected (upcoming), listing (listed), withdrawn, postponed.",
        rows_sql="ipos", model=responses.IpoListItem, key="id",
        filters=(
            _category("status", "IPO status.", domain=_values(schema.IpoStatus)),
            Filter("year", YEAR, "status_date", "Year of the status date.", "SELECT DISTINCT year FROM rows"),
            _category("exchange", "Exchange slug."),
        ),
        sorts=(SortField("date", "status_date"), SortField("proceeds", "proceeds_usd", ("desc",)), FIRST_DAY_RETURN),
        default_sort="-date",
    ),
    ListRoute(
        name="pre-ipos", path="/api/pre-ipos", summary="Private and pre-IPO companies",
        description="Companies that are private on the dataset's as-of date, with last round, secondary-market "
        "marks and IPO plans. Same filters as /api/companies plus `stage` (latest round stage); files hold "
        "`minValuation` with one other filter at most (the query front door answers deeper combinations).",
        rows_sql="pre_ipos", model=responses.PreIpoListItem, key="id",
        filters=(COMPANY_TEXT, SECTOR, COUNTRY, MIN_VALUATION,
                 _category("stage", "Stage of the latest funding round.", "last_round_stage")),
        combinable=(("q",), ("sector", "country", "stage"), *_with_ladder(("sector", "country", "stage"))),
        sorts=(SortField("valuation", "valuation_usd", ("desc",)), NAME_ASC), default_sort="-valuation",
    ),
    ListRoute(
        name="offerings", path="/api/offerings", summary="Private market offerings: tender, secondary, placement",
        rows_sql="offerings", model=responses.OfferingListItem, key="id",
        filters=(
            _category("kind", "Offering kind.", domain=_values(schema.OfferingKind)),
            _category("status", "Offering status.", domain=_values(schema.OfferingStatus)),
            Filter("year", YEAR, "announced_date", "Year announced.", "SELECT DISTINCT year FROM rows"),
        ),
        sorts=(SortField("date", "announced_date", ("desc",)), SortField("amount", "amount_usd", ("desc",)),
               SortField("valuation", "implied_valuation_usd", ("desc",))),
        default_sort="-date",
    ),
    ListRoute(
        name="calendar", path="/api/calendar", summary="IPO calendar events and expected listings",
        description="Filings, expected listings, pricings, listings, quiet-period ends, lock-up expiries, "
        "withdrawals and postponements, from 24 months before the dataset's as-of date onwards. Without a "
        "filter: upcoming events (on or after the as-of date), soonest first. Filters combine freely.",
        rows_sql="calendar", model=responses.CalendarEvent, key="id",
        filters=(
            _category("month", "Month of the event, YYYY-MM.", kind=MONTH),
            _category("type", "Event type.", domain=_values(responses.CalendarEventType)),
            _category("when", "upcoming (on or after as_of) or past.", '"when"', domain=("past", "upcoming")),
        ),
        sorts=(SortField("date", "date"),), default_sort="date",
        default_filters=(("when", "upcoming"),),
    ),
    ListRoute(
        name="funding", path="/api/funding", summary="Funding rounds feed, newest first",
        rows_sql="funding", model=responses.FundingListItem, key="id",
        filters=(
            _category("stage", "Round stage."),
            Filter("year", YEAR, "announced_date", "Year announced.", "SELECT DISTINCT year FROM rows"),
            _category("sector", "Sector slug of the company.", "company.sector"),
        ),
        sorts=(SortField("date", "announced_date", ("desc",)), SortField("amount", "amount_usd", ("desc",))),
        default_sort="-date",
        description="`sort=-amount` (largest first) combines with one filter (the largest seed rounds: "
        "`?stage=seed&sort=-amount`); with two filters, rounds come newest first.",
    ),
    ListRoute(
        name="trending", path="/api/trending", summary="Secondary-price movers and IPO-ready names",
        description="`kind=gainers|decliners`: largest rises and falls of the secondary implied valuation over "
        "the latest six months of data, from observed transactions only (tender offers, reported secondary sales; "
        "each mark uses nothing dated after it); `kind=ipo-ready`: private companies ranked by a transparent score "
        "whose components are listed in each row. Default: gainers.",
        rows_sql="trending", model=responses.TrendingEntry, key="entry_key",
        filters=(_category("kind", "Which list.", domain=("decliners", "gainers", "ipo-ready")),),
        sorts=(SortField("rank", "rank", ("asc",)),), default_sort="rank",
        default_filters=(("kind", "gainers"),),
    ),
    ListRoute(
        name="search", path="/api/search", summary="Unified search with facet counts",
        description="Type-ahead over companies, investors and industries: those with a word of the name (or "
        f"ticker, or a former name or ticker: `also_known_as`) starting with `q`, which is {SEARCH_PREFIX[0]}-"
        f"{SEARCH_PREFIX[1]} characters (the indexed bound: send the first characters of the input and narrow the "
        "rows by `name`, `ticker` and `also_known_as`). `q` and `type` combine; `meta.facets` counts a result set "
        "by type, each with the URL of that refinement.",
        rows_sql="search", model=responses.SearchResult, key="entry_key",
        filters=(Filter("q", TEXT, WORDS, PREFIX_DESCRIPTION, prefixes=SEARCH_PREFIX),
                 _category("type", "Result type.", domain=("company", "industry", "investor"))),
        sorts=(SortField("name", "lower(name)", ("asc",)),), default_sort="name",
    ),
    ListRoute(
        name="news", path="/api/news", summary="News and press feed, newest first",
        rows_sql="news", model=responses.NewsListItem, key="id",
        filters=(COMPANY_SLUG, _category("tag", "Topic tag.", "tags", multi=True,
                                         domain="SELECT DISTINCT unnest(tags) FROM rows")),
        sorts=(SortField("date", "published_date", ("desc",)),), default_sort="-date",
        combinable=(("company",), ("tag",)),
        description="`company` and `tag` each alone: a company's news is a page or two, which the query front door "
        "(and a client) filters by `tag` (measured: the pairs cost 25k files and 29 MB at 10k companies).",
    ),
    ListRoute(
        name="filings", path="/api/filings", summary="SEC filings (S-1, F-1, 424B4 and others), newest first",
        rows_sql="filings", model=responses.FilingListItem, key="id",
        filters=(COMPANY_SLUG, _category("form", "Form type as a slug: s-1, s-1-a, f-1, 424b4, rw, d ...",
                                         "form_slug"),
                 Filter("year", YEAR, "filed_date", "Year filed.", "SELECT DISTINCT year FROM rows")),
        description="`company` alone, and `form` with `year`: a company's filings are a page or two, which the query "
        "front door (and a client) filters by `form` and `year` (measured: company and form together cost 7k files "
        "and 10 MB at 10k companies; company and year 30k files).",
        combinable=(("company",), ("form", "year")),
        sorts=(SortField("date", "filed_date", ("desc",)),), default_sort="-date",
    ),
    ListRoute(
        name="changes", path="/api/changes", summary="What changed: change events, newest first",
        description="Every event within the window (the 90 days up to the dataset's as-of date): the dated facts "
        "of the dataset (an IPO filed, priced, listed, postponed or withdrawn; a round announced; a filing; an "
        "acquisition) and the differences each snapshot recorded against the one before it (a company added, "
        "renamed, removed, delisted or closed; a valuation changed, with its old and new values). An event's `id` "
        "never changes. `type`, `kind` and `company` each alone (a type is of one kind); `since` (a day, the "
        "query front door only) combines with each. The same events as Atom and JSON feeds: "
        "/api/feeds/changes.atom, /api/feeds/changes.json, per company /api/feeds/companies/{slug}.atom and .json "
        "(docs/changes.md).",
        rows_sql="changes", model=responses.ChangeEvent, key="id",
        filters=(_category("type", "Event type.", domain=_values(schema.ChangeType)),
                 _category("kind", "Kind of record the event is about.", "entity.kind",
                           domain=_values(schema.EntityKind)),
                 COMPANY_SLUG,
                 Filter("since", SINCE, "date", "Events dated on this day or later (YYYY-MM-DD).", published=False)),
        combinable=(("company", "since"), ("type", "since"), ("kind", "since")),
        sorts=(SortField("date", "date", ("desc",)),), default_sort="-date",
    ),
    ListRoute(
        name="investors", path="/api/investors", summary="Investor directory with portfolio counts",
        rows_sql="investors", model=responses.InvestorListItem, key="id",
        filters=(_category("type", "Investor type."), COUNTRY),
        sorts=(SortField("portfolio", "portfolio_count", ("desc",)), NAME_ASC,
               SortField("leads", "lead_count", ("desc",))),
        default_sort="-portfolio",
    ),
    DetailRoute(
        name="investor", path="/api/investors", summary="Investor profile with portfolio and rounds led",
        model=responses.InvestorProfile, key_names=("slug",), rows_sql="investor_profiles", order="id",
        resources="investors",
    ),
    ListRoute(
        name="industries", path="/api/industries", summary="Industry-level aggregates",
        rows_sql="industries", model=responses.IndustryListItem, key="slug",
        filters=(),
        sorts=(SortField("companies", "company_count"), SortField("valuation", "total_valuation_usd"), NAME),
        default_sort="-companies",
    ),
    DetailRoute(
        name="industry", path="/api/industries", summary="One industry: aggregates, companies, funding by year",
        model=responses.IndustryDetail, key_names=("slug",), rows_sql="industry_details", order="slug",
        resources="sectors",
    ),
    ExportRoute(
        name="export", path="/api/export", summary="Bulk dataset as json, csv, parquet or JSON Lines",
        description="Without a query: the manifest of every file (URL, rows, bytes and sha256). `format` alone "
        "gives the whole dataset in that format: one zip archive of every table's file plus `manifest.json`; with "
        "`table` it gives that table alone. "
        "CSV is RFC 4180 (UTF-8, header, CRLF); text cells starting with = + - @ tab or CR are prefixed with ' "
        "so spreadsheets do not run them as formulas. "
        "JSON Lines (`jsonl`, media type `application/jsonl`; the front door also takes `format=ndjson`): one row "
        "per line, each the same bytes as that row in the json export, UTF-8, every line ending in a newline.",
        formats=EXPORT_FORMATS,
    ),
    DocumentRoute(
        name="openapi", path="/api/openapi", file="/api/openapi.json",
        summary="OpenAPI 3.0 description of the service",
    ),
)

LIST_ROUTES = tuple(r for r in ROUTES if isinstance(r, ListRoute))
FILE_ROUTES = tuple(r.files_view for r in LIST_ROUTES)
"""The listings as their files publish them (what hosts without code serve): without the filters and sorts declared
``published=False``, which the front door alone answers."""
DETAIL_ROUTES = tuple(r for r in ROUTES if isinstance(r, DetailRoute))
EXPORT_ROUTE = next(r for r in ROUTES if isinstance(r, ExportRoute))
DOCUMENT_ROUTES = tuple(r for r in ROUTES if isinstance(r, DocumentRoute))


def example_urls(domains: dict[str, dict[str, list[str]]], detail_urls: dict[str, list[str]]) -> dict[str, list[str]]:
    """A few URLs of every route that have files, by route name, for the docs: a listing's default, one per filter
    (a value from its ``domains``), its last sort; a detail route's first resource (``detail_urls``, by each key);
    the export's whole dataset and one table; a document's path."""
    examples: dict[str, list[str]] = {}
    for route in LIST_ROUTES:
        urls = [route.path]
        for flt in route.filters:
            values = domains.get(route.name, {}).get(flt.name) or []
            if values:
                urls.append(f"{route.path}?{flt.name}={values[len(values) // 2]}")
        if len(route.published_sorts) > 1:
            urls.append(f"{route.path}?sort={route.published_sorts[-1]}")
        examples[route.name] = urls
    for detail in DETAIL_ROUTES:
        examples[detail.name] = list(detail_urls.get(detail.name, []))
    export = EXPORT_ROUTE.path
    examples[EXPORT_ROUTE.name] = [f"{export}?format=csv", f"{export}?format=json&table=companies"]
    for document in DOCUMENT_ROUTES:
        examples[document.name] = [document.path]
    return examples


def path_words() -> frozenset[str]:
    """Path words that listings use below a collection (lowercased: a profile is found in any case); a filter
    without files has no folder."""
    words = {SORT_PARAM, PAGE_PARAM, UNFILTERED, "index", "errors"}
    for route in LIST_ROUTES:
        words.update(f.name.lower() for f in route.filters if f.published)
    return frozenset(words)


def _check_reserved() -> None:
    """The dataset refuses these words as slugs (``schema.RESERVED_SLUGS``); a new filter must be added there."""
    missing = path_words() - schema.RESERVED_SLUGS
    if missing:
        raise RuntimeError(f"add {sorted(missing)} to generator.dataset.schema.RESERVED_SLUGS: listing paths use them")


_check_reserved()
