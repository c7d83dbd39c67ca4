"""The kinds of route and their URL layout: what ``registry.py`` declares each endpoint with.

URL design. Query-string URLs (``/api/companies?sector=fintech&page=2``) are mapped by rewrite rules onto
canonical files whose paths spell the same query as ``name=value`` folders in declaration order, the file
itself named ``sort={sort},page={page}.json`` (pages without a filter in the folder ``all``):

    /api/companies/sector=fintech/sort=-valuation,page=2.json
    /api/companies/all/sort=name,page=1.json

Those path-style URLs are the files themselves, so they work on any static host. Detail resources live at
``{path}/{key}.json``; every listing file lies in a folder below ``{path}`` whose name contains ``=`` or is
``all``, neither of which a slug or id can be, so the two never collide. One folder per filter combination,
with every sort and page of it as files inside, keeps the number of folders low, which is what makes the
build fast: on a real disk a folder costs several times a small file.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from generator.api.kinds import WORD_MAX, Kind

FilterKind = Kind
__all__ = ["WORD_MAX"]

PER_PAGE = 50
"""Rows per listing page, the same on every route: large enough that most filter combinations fit on one
page (so deep combinations cost one file per sort), small enough for a phone."""

SORT_DEPTH = 1
"""Most filters a query may combine with ``sort``: results with more filters come in the route's default order.
Such results are small (most fit on one page, so a client can reorder them), and every sort of every deeper
combination publishes each row once more per sort (measured: embedded data 16.6k files with every sort
everywhere, against a 15k budget; 10k companies 855 MB with sorts up to two filters, against 600 MB)."""

FACET_LIMIT = 30
"""Most values a facet lists (the most frequent); a facet cut short is named in ``meta.facets_truncated``."""

PAGE_PARAM = "page"
SORT_PARAM = "sort"
INDEX_FOLDER = "/api/query-index"
"""Folder of the listings' query indexes (``ListRoute.index_file``)."""
UNFILTERED = "all"
"""Folder of the pages of a listing without filters (so that no listing file is a detail resource's path)."""


@dataclass(frozen=True)
class Filter:
    """One filter dimension of a listing.

    ``column`` is a column of the route's rows (or an SQL expression over them); which rows a value matches is
    the ``kind``'s to say (``generator.api.kinds``: a category's value equals the column, or with ``multi`` is in
    its list; a bound's is at most the column; a text's is a word of it, or with ``prefixes`` (shortest, longest)
    a prefix of a word of that many characters, a shorter word whole). ``domain`` is the SQL over ``rows`` that
    lists the allowed values, or the values themselves (a ladder's rungs; text filters take every indexed word or
    prefix). ``sortable=False``: a query with this filter takes the route's default order only.
    ``published=False``: the front door answers the filter (from the route's query index), no file holds it.
    """

    name: str
    kind: Kind
    column: str
    description: str
    domain: str | tuple[str | int, ...] = ()
    multi: bool = False
    prefixes: tuple[int, int] | None = None
    sortable: bool = True
    open: bool = False
    """Values too many to list (a company slug): known by their resource, kept out of the query index."""
    published: bool = True

    @property
    def faceted(self) -> bool:
        """Whether listings count this filter's refinements in ``meta.facets`` (its kind says; never a filter
        without files: a facet is the URL of a file)."""
        return self.kind.faceted and self.published


@dataclass(frozen=True)
class SortField:
    """A sortable field: ``name`` asc and ``-name`` desc both allowed unless ``directions`` says otherwise."""

    name: str
    expression: str
    directions: tuple[Literal["asc", "desc"], ...] = ("asc", "desc")
    published: bool = True
    """False: the front door answers this sort (the query index holds its order), no file does."""

    def values(self) -> tuple[str, ...]:
        return tuple(self.name if d == "asc" else f"-{self.name}" for d in self.directions)


@dataclass(frozen=True)
class ListRoute:
    name: str
    path: str
    summary: str
    rows_sql: str
    """Name of the SQL file in ``generator/sql`` giving one row per item (model fields, filter columns).
    It may use the parameter ``$as_of``."""
    model: type[BaseModel]
    key: str
    """Unique column: the final tie-break of every order."""
    filters: tuple[Filter, ...]
    sorts: tuple[SortField, ...]
    default_sort: str
    per_page: int = PER_PAGE
    description: str = ""
    sort_depth: int = SORT_DEPTH
    """Most filters a query may combine with ``sort`` on this route (see ``SORT_DEPTH``)."""
    default_filters: tuple[tuple[str, str], ...] = ()
    """Applied when a query names none of the route's filters."""
    combinable: tuple[tuple[str, ...], ...] | None = None
    """Sets of filter names that may be used together; None: every filter with every other. A request naming
    filters that share no set gets a problem response. Only a measured file budget refuses a combination."""

    def __post_init__(self) -> None:
        for flt in self.filters:  # the front door answers a filter without files from the query index
            if not flt.published and not flt.kind.indexable(flt):
                raise ValueError(f"{self.name}.{flt.name}: a filter without files must be one the index holds")
        if self.default_sort not in self.published_sorts:
            raise ValueError(f"{self.name}: the default sort {self.default_sort} has files")

    @property
    def sort_values(self) -> tuple[str, ...]:
        """Every sort value the route takes (the front door answers the unpublished ones)."""
        return tuple(value for sort in self.sorts for value in sort.values())

    @property
    def published_sorts(self) -> tuple[str, ...]:
        """The sort values that have files."""
        return tuple(value for sort in self.sorts if sort.published for value in sort.values())

    def folder(self, filters: dict[str, str]) -> str:
        """Folder of one filter combination's pages; ``filters`` in any order, only active ones."""
        segments = [f"{f.name}={filters[f.name]}" for f in self.filters if f.name in filters] or [UNFILTERED]
        return "/".join([self.path, *segments])

    @property
    def indexed_filters(self) -> tuple[Filter, ...]:
        """The filters the route's query index holds (``index_file``): every one but open ones and whole-word text,
        when some query over them alone has no file of its own (a ladder value between rungs, a prefix shorter than
        the indexed ones, filters that do not combine, a sort the combination does not publish); else none."""
        closed = tuple(f for f in self.filters if f.kind.indexable(f))
        names = {f.name for f in closed}
        if closed and (any(f.kind.needs_index(f) for f in closed) or len(self.sort_values) > 1
                       or not self.combines(names)):
            return closed
        return ()

    @property
    def index_file(self) -> str | None:
        """The route's query index: per row, in the default order, the value of each indexed filter and its
        position under every other sort, in binary (see ``generator.api.query_index``); None when it has none."""
        return f"{INDEX_FOLDER}/{self.name}.bin" if self.indexed_filters else None

    @staticmethod
    def page_file(sort: str, page: int | str) -> str:
        """Name of one page's file in its combination's folder."""
        return f"{SORT_PARAM}={sort},{PAGE_PARAM}={page}.json"

    def file_path(self, filters: dict[str, str], sort: str, page: int | str) -> str:
        """Canonical file of one page; ``filters`` in any order, only active ones."""
        return f"{self.folder(filters)}/{self.page_file(sort, page)}"

    @property
    def combination_error(self) -> str:
        return f"/api/errors/{self.name}-filter-combination.json"

    @property
    def front_door_error(self) -> str:
        """The problem a host without the front door answers a filter without files with."""
        return f"/api/errors/{self.name}-front-door-only.json"

    def sort_field(self, value: str) -> tuple[SortField, bool]:
        """The field and whether it is descending, for a sort value such as ``-valuation``."""
        name = value.removeprefix("-")
        named = [sort for sort in self.sorts if sort.name == name]  # one field may declare its directions apart
        for sort in [s for s in named if value in s.values()] or named:
            return sort, value.startswith("-")
        raise KeyError(value)

    @property
    def groups(self) -> list[tuple[Filter, ...]]:
        """Sets of filters that may be combined, each in declaration order."""
        if self.combinable is None:
            return [self.filters]
        by_name = {f.name: f for f in self.filters}
        return [tuple(by_name[n] for n in by_name if n in group) for group in self.combinable]

    @property
    def files_view(self) -> ListRoute:
        """The route as its files publish it (what rewrite rules and hosts without code see): without the filters
        and sorts only the front door answers."""
        if all(f.published for f in self.filters) and all(s.published for s in self.sorts):
            return self
        return dataclasses.replace(
            self, filters=tuple(f for f in self.filters if f.published),
            sorts=tuple(s for s in self.sorts if s.published),
            combinable=tuple(tuple(f.name for f in group) for group in self.file_groups))

    @property
    def file_groups(self) -> list[tuple[Filter, ...]]:
        """The groups as the files publish them: without the filters that have no files."""
        out: list[tuple[Filter, ...]] = []
        for group in self.groups:
            published = tuple(f for f in group if f.published)
            if published not in out:
                out.append(published)
        return out

    def incompatible_sets(self) -> list[tuple[str, ...]]:
        """The smallest sets of filters that no group contains (pairs, or e.g. three filters that only
        combine two at a time): a request naming all filters of one of them gets a problem response (from the files:
        filters without files are the front door's)."""
        names = [f.name for f in self.filters if f.published]
        groups = [{f.name for f in g} for g in self.file_groups]
        found: list[tuple[str, ...]] = []
        for size in range(2, len(names) + 1):
            for subset in itertools.combinations(names, size):
                if any(set(subset) <= g for g in groups) or any(set(s) <= set(subset) for s in found):
                    continue
                found.append(subset)
        return found

    def combines(self, names: set[str]) -> bool:
        """Whether these filters may be used together."""
        return any(names <= {f.name for f in group} for group in self.groups)

    def sorts_for(self, names: set[str]) -> tuple[str, ...]:
        """The sort values published for a set of applied filters."""
        by_name = {f.name: f for f in self.filters}
        if len(names) <= self.sort_depth and all(by_name[n].sortable for n in names):
            return self.published_sorts
        return (self.default_sort,)

    def refused_sets(self) -> list[tuple[str, ...]]:
        """Every smallest set of query parameters the route answers with its combination problem: filters that
        share no group, and ``sort`` with a set of filters that takes the default order only."""
        return [*self.incompatible_sets(), *((*names, SORT_PARAM) for names in self.unsorted_sets())]

    def unsorted_sets(self) -> list[tuple[str, ...]]:
        """The smallest filter sets that take the default order only (each refused with ``sort``)."""
        if len(self.published_sorts) < 2:
            return []
        out = [(f.name,) for f in self.filters if not f.sortable and f.published]
        for group in self.file_groups:
            names = [f.name for f in group if f.sortable]
            out += [c for c in itertools.combinations(names, self.sort_depth + 1) if c not in out]
        return out


@dataclass(frozen=True)
class DetailRoute:
    """A single resource addressed by one of several keys (e.g. id or slug); every key gets the same body."""

    name: str
    path: str
    """Collection path; the resource lives at ``{path}/{key}``."""
    summary: str
    model: type[BaseModel]
    key_names: tuple[str, ...]
    rows_sql: str = field(compare=False)
    """Query file (``generator/sql``) with one row per resource: the model's fields, in its order."""
    order: str = field(compare=False)
    """The column the resources are rendered in order of (the first is the docs' example)."""
    resources: str = field(compare=False)
    """The input table with one row per resource, holding ``order``: a shard's positions are counted and bounded on
    it, not on the whole query (which at 300k companies needed more than 128 MB of DuckDB's memory only to count)."""
    description: str = ""

    def file_path(self, key: str) -> str:
        return f"{self.path}/{key}.json"


EXPORT_FORMATS: tuple[str, ...] = ("json", "csv", "parquet", "jsonl")
"""json: each table in the API's envelope; csv, parquet; jsonl: JSON Lines, a table's json rows one per line."""
EXPORT_FORMAT_ALIASES: dict[str, str] = {"ndjson": "jsonl"}
"""Other spellings of a format that the front door accepts (files and rewrite rules use the format's name)."""
EXPORT_DATASET = "dataset"
"""Name of the whole dataset's file in every format: a zip of every table's file plus its manifest."""


@dataclass(frozen=True)
class ExportRoute:
    """The bulk dataset: every input table in each format, with a manifest per format and one overall."""

    name: str
    path: str
    summary: str
    formats: tuple[str, ...]
    description: str = ""

    def index_path(self) -> str:
        """The manifest of every file."""
        return f"{self.path}/index.json"

    def file_path(self, export_format: str, table: str) -> str:
        return f"{self.path}/{export_format}/{table}.{export_format}"

    def dataset_path(self, export_format: str) -> str:
        """The whole dataset in one file: a zip of every table in that format plus its manifest."""
        return f"{self.path}/{export_format}/{EXPORT_DATASET}.zip"

    @property
    def table_without_format_error(self) -> str:
        return f"/api/errors/{self.name}-table-without-format.json"

    @property
    def unknown_format_error(self) -> str:
        return f"/api/errors/{self.name}-unknown-format.json"


@dataclass(frozen=True)
class DocumentRoute:
    """One generated document served at an extensionless path (e.g. the OpenAPI description)."""

    name: str
    path: str
    file: str
    summary: str
    description: str = ""
