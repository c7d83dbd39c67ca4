"""Scattered pages: a page of two filters with a sort their combination has no files for (``/api/companies?sector=
fintech&country=us&sort=name``), whose rows the published pages hold only spread over more than ``FILES`` of them.

Files publish a sort with one filter at most (``ListRoute.sort_depth``); deeper, the front door picks the page's rows
out of the published pages that hold them, reading the fewest it can (``frontdoor.indexed``): the combination's own
pages in the default order, or one filter's pages in that sort. When the pair is a small share of each filter's rows
and has many rows of its own, a page's 50 rows lie on many pages either way (up to 15 at 100k companies: as many
reads). For such a page the build writes its rows, as the listing files write them, into an answer file; the front
door reads the index and that file: two reads. Pages whose rows lie on at most ``FILES`` pages have none.

The answers of a route share ``parts`` files, chosen by a hash of the page's path (the path its file would have,
``ListRoute.file_path``), so that a file holds about ``PART_BYTES`` whatever the data's size; the query index's
header says how many there are (``"scattered"``), so a resolver reads one only when its page has an answer.
Each file is an object by page path, one answer per line, so a reader can take one answer's text without parsing
the others::

    {
    "/api/companies/sector=fintech/country=us/sort=name,page=3.json":{"data":[rows],"meta":{...}},
    ...
    }

``meta``: the members of the route's constant meta object (``queries.base_meta``), as its pages carry them. Which
pages have answers is decided from the candidates the resolver weighs (the pair's default order, each filter's pages
in the sort), so a page the resolver finds scattered always has one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import duckdb

from generator.api.registry import ListRoute
from generator.api.routes import INDEX_FOLDER
from generator.dataset import serialize

FILES = 3
"""Pages a computed page may read beside the query index (four reads in all); past it, the page has an answer."""
PART_BYTES = 256_000
"""About the size of one file of answers."""


def fnv1a(text: str) -> int:
    """The 32-bit FNV-1a hash of ``text``'s UTF-8 bytes (the JavaScript resolver's ``fnv1a`` is the same)."""
    found = 0x811C9DC5
    for byte in text.encode("utf-8"):
        found = ((found ^ byte) * 0x01000193) & 0xFFFFFFFF
    return found


def stem(route_name: str) -> str:
    """The answer files' path up to the part's number (the query space carries it for the resolvers)."""
    return f"{INDEX_FOLDER}/{route_name}/scattered-"


def part_path(route_name: str, part: int) -> str:
    return f"{stem(route_name)}{part}.json"


def part_of(page_path: str, parts: int) -> int:
    """Which of a route's ``parts`` answer files holds the answer of the page at ``page_path``."""
    return fnv1a(page_path) % parts


def _pairs(route: ListRoute) -> Iterator[tuple[tuple[int, ...], str]]:
    """(indexes into ``route.filters``, sort) of every set of filters one deeper than files sort, that files combine,
    under each sort with files other than the default."""
    index = {f.name: j for j, f in enumerate(route.filters)}
    seen: set[tuple[int, ...]] = set()
    for group in route.file_groups:
        sortable = [index[f.name] for f in group if f.sortable]
        for chosen in itertools.combinations(sortable, route.sort_depth + 1):
            if chosen not in seen:
                seen.add(chosen)
                for sort in route.published_sorts:
                    if sort != route.default_sort:
                        yield chosen, sort


def _scattered_sql(route: ListRoute, chosen: tuple[int, ...], sort: str) -> str:
    """SQL for every scattered page of the combinations of ``chosen`` under ``sort``: its filters' values, its
    number (from 0) and its rows' ``_idx`` in order. A page's cost is the fewest pages holding its rows among the
    combination's own in the default order and each filter's alone under ``sort``."""
    rank, default = f"_r{route.sort_values.index(sort)}", f"_r{route.sort_values.index(route.default_sort)}"
    per_page = route.per_page
    filters = [route.filters[j] for j in chosen]

    def values(k: int) -> str:  # each value of the k-th filter a row matches, as in URLs
        flt = filters[k]
        return f"unnest(list_filter({flt.kind.sql_matches(flt)}, lambda v: v IS NOT NULL))::VARCHAR AS v{k}"

    fanned = "rows"
    for k in range(len(filters)):
        fanned = f"(SELECT *, {values(k)} FROM {fanned})"
    keys = ", ".join(f"v{k}" for k in range(len(filters)))
    alone = [f"(SELECT _idx, v{k}, row_number() OVER (PARTITION BY v{k} ORDER BY {rank}) - 1 AS _p "
             f"FROM (SELECT _idx, {rank}, {values(k)} FROM rows)) a{k}" for k in range(len(filters))]
    joins = " ".join(f"JOIN {a} ON a{k}._idx = c._idx AND a{k}.v{k} = c.v{k}" for k, a in enumerate(alone))
    costs = ", ".join(f"count(DISTINCT a{k}._p // {per_page})" for k in range(len(filters)))
    return (
        f"WITH c AS (SELECT _idx, {keys}, row_number() OVER (PARTITION BY {keys} ORDER BY {rank}) - 1 AS _s, "
        f"row_number() OVER (PARTITION BY {keys} ORDER BY {default}) - 1 AS _d FROM {fanned}) "
        f"SELECT {', '.join(f'c.v{k}' for k in range(len(filters)))}, c._s // {per_page} AS _page, "
        f"list(c._idx ORDER BY c._s) AS _rows FROM c {joins} GROUP BY ALL "
        f"HAVING least(count(DISTINCT c._d // {per_page}), {costs}) > {FILES} ORDER BY ALL"
    )


def scattered(con: duckdb.DuckDBPyConnection, route: ListRoute) -> list[tuple[str, list[int]]]:
    """Every scattered page of the route (from ``rows`` ranked by ``listing.rank``): its path and its rows' ``_idx``
    in order, in path order."""
    if route.index_file is None or len(route.published_sorts) < 2:
        return []
    out = []
    for chosen, sort in _pairs(route):
        for *found, page, rows in con.execute(_scattered_sql(route, chosen, sort)).fetchall():
            filters = {route.filters[j].name: value for j, value in zip(chosen, found, strict=True)}
            out.append((route.file_path(filters, sort, page + 1), rows))
    return sorted(out)


def answer_files(
    route: ListRoute, pages: list[tuple[str, list[int]]], rows: Sequence[bytes], meta: bytes,
) -> tuple[int, list[tuple[str, bytes]]]:
    """The number of answer files and each file (path, body) for ``scattered``'s pages (``rows``: the route's rows
    serialized, in ``_idx`` order; ``meta``: the members of the route's constant meta object)."""
    if not pages:
        return 0, []
    answers = [serialize.string(path) + b':{"data":[' + b",".join(rows[i] for i in found) + b'],"meta":{' + meta
               + b"}}" for path, found in pages]
    parts = max(1, -(-sum(len(a) for a in answers) // PART_BYTES))
    by_part: dict[int, list[bytes]] = {}
    for (path, _), answer in zip(pages, answers, strict=True):
        by_part.setdefault(part_of(path, parts), []).append(answer)
    return parts, [(part_path(route.name, part), b"{\n" + b",\n".join(found) + b"\n}\n")
                   for part, found in sorted(by_part.items())]
