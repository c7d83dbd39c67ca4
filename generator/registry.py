"""The route registry: every endpoint of the API declared once.

From these declarations come the precomputed files (``listing.py``, ``details.py``), the rewrite rules for
Netlify, nginx and ``serve`` (``rewrites.py``), the OpenAPI document (``openapi.py``) and the landing page.
Adding an endpoint or a filter is one declaration here (plus its SQL file and row model).

URL design. Query-string URLs (``/api/companies?sector=fintech&page=2``) are mapped by rewrite rules onto
canonical files whose paths spell the same query as ``name/value`` segments in declaration order, always
ending in ``sort/{sort}/page/{page}.json``:

    /api/companies/sector/fintech/sort/-valuation/page/2.json

Those path-style URLs are the files themselves, so they work on any static host. Detail resources live at
``{path}/{key}.json``; listing segments are directories, so a slug can never collide with them, and the
listing words are also reserved as slugs for clarity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from generator import responses

if TYPE_CHECKING:
    import duckdb

    from generator.schema import DatasetInfo

FilterKind = Literal["category", "ladder", "year", "month"]

MINIMUM_VALUATION_LADDER_USD: tuple[int, ...] = (
    100_000_000, 500_000_000, 1_000_000_000, 5_000_000_000,
    10_000_000_000, 50_000_000_000, 100_000_000_000, 1_000_000_000_000,
)
"""Allowed values of ``minValuation``: whole-USD lower bounds (inclusive) on ``valuation_usd``."""

PAGE_PARAM = "page"
SORT_PARAM = "sort"


@dataclass(frozen=True)
class Filter:
    """One filter dimension of a listing.

    ``column`` is a column of the route's rows; a row matches a value when its column equals it (``multi``: when
    its list contains it; ``ladder``: when it is at least the threshold). ``domain`` is the SQL that lists the
    allowed values, or the literal values themselves.
    """

    name: str
    kind: FilterKind
    column: str
    description: str
    domain: str | tuple[str | int, ...] = ()
    multi: bool = False


@dataclass(frozen=True)
class SortField:
    """A sortable field: ``name`` asc and ``-name`` desc both allowed unless ``directions`` says otherwise."""

    name: str
    expression: str
    directions: tuple[Literal["asc", "desc"], ...] = ("asc", "desc")

    def values(self) -> tuple[str, ...]:
        return tuple(self.name if d == "asc" else f"-{self.name}" for d in self.directions)


@dataclass(frozen=True)
class TextQuery:
    """A text parameter matched as a prefix of any word of ``columns`` (case- and accent-insensitive)."""

    param: str
    columns: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class ListRoute:
    name: str
    path: str
    summary: str
    rows_sql: str
    """Name of the SQL file in ``generator/sql`` whose result holds one row per item (model fields and more)."""
    model: type[BaseModel]
    key: str
    """Unique column: the final tie-break of every order."""
    filters: tuple[Filter, ...]
    sorts: tuple[SortField, ...]
    default_sort: str
    per_page: int
    text: TextQuery | None = None
    description: str = ""

    @property
    def sort_values(self) -> tuple[str, ...]:
        return tuple(value for sort in self.sorts for value in sort.values())

    def file_path(self, filters: dict[str, str], sort: str, page: int | str) -> str:
        """Canonical file of one page; ``filters`` in any order, only active ones."""
        order = [self.text.param] if self.text else []
        order += [f.name for f in self.filters]
        segments = [f"{name}/{filters[name]}" for name in order if name in filters]
        return "/".join([self.path, *segments, f"{SORT_PARAM}/{sort}", f"{PAGE_PARAM}/{page}.json"])

    @property
    def combined_text_error(self) -> str:
        return f"/api/errors/{self.name}-{self.text.param if self.text else 'q'}-with-filter.json"

    def sort_field(self, value: str) -> tuple[SortField, bool]:
        """The field and whether it is descending, for a sort value such as ``-valuation``."""
        name = value.removeprefix("-")
        for sort in self.sorts:
            if sort.name == name:
                return sort, value.startswith("-")
        raise KeyError(value)


DetailBuilder = Callable[["duckdb.DuckDBPyConnection", "DatasetInfo"], Iterator[tuple[tuple[str, ...], BaseModel]]]


@dataclass(frozen=True)
class DetailRoute:
    """A single resource addressed by one of several keys (e.g. id or slug); every key gets the same body."""

    name: str
    path: str
    """Collection path; the resource lives at ``{path}/{key}``."""
    summary: str
    model: type[BaseModel]
    key_names: tuple[str, ...]
    build: DetailBuilder = field(compare=False)
    description: str = ""

    def file_path(self, key: str) -> str:
        return f"{self.path}/{key}.json"


def _company_profiles(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Iterator[tuple[tuple[str, ...], BaseModel]]:
    from generator.details import company_profiles

    return company_profiles(con, info)


COMPANY_FILTERS = (
    Filter("sector", "category", "sector", "Sector slug.", "SELECT DISTINCT sector FROM rows"),
    Filter("country", "category", "country", "ISO 3166-1 alpha-2 country code, lowercase.",
           "SELECT DISTINCT country FROM rows"),
    Filter("minValuation", "ladder", "valuation_usd",
           "Minimum valuation in whole USD (inclusive); one of the documented ladder values.",
           MINIMUM_VALUATION_LADDER_USD),
)

COMPANY_SORTS = (
    SortField("valuation", "valuation_usd"),
    SortField("name", "lower(name)"),
)

ROUTES: tuple[ListRoute | DetailRoute, ...] = (
    ListRoute(
        name="companies",
        path="/api/companies",
        summary="Filtered list of companies",
        description="Every company of the dataset, public and private. Filters combine freely; `q` combines with "
        "`sort` and `page` only.",
        rows_sql="companies",
        model=responses.CompanyListItem,
        key="id",
        filters=COMPANY_FILTERS,
        sorts=COMPANY_SORTS,
        default_sort="-valuation",
        per_page=25,
        text=TextQuery("q", ("name", "ticker"), "Prefix of any word of the company name, or of its ticker; "
                       "lowercase letters and digits (the API lowercases and strips accents when indexing)."),
    ),
    DetailRoute(
        name="company",
        path="/api/companies",
        summary="Full company profile with financials, funding and analysis",
        model=responses.CompanyProfile,
        key_names=("id", "slug"),
        build=_company_profiles,
    ),
)

LIST_ROUTES = tuple(r for r in ROUTES if isinstance(r, ListRoute))
DETAIL_ROUTES = tuple(r for r in ROUTES if isinstance(r, DetailRoute))


def reserved_words() -> frozenset[str]:
    """Path words that listings use below a collection; no slug may be one of them."""
    words = {SORT_PARAM, PAGE_PARAM, "all", "index", "errors"}
    for route in LIST_ROUTES:
        words.update(f.name for f in route.filters)
        if route.text:
            words.add(route.text.param)
    return frozenset(words)
