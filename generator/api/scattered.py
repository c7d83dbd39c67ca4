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

from collections.abc import Callable, Iterator, Sequence

import duckdb

from generator.api.combinations import sql_text
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
    """(indexes into ``route.filters``, in its order, sort) of every set of filters one deeper than files sort
    (``ListRoute.unsorted_sets``), under each sort with files other than the default."""
    index = {f.name: j for j, f in enumerate(route.filters)}
    for names in route.unsorted_sets():
        if len(names) == route.sort_depth + 1:
            for sort in route.published_sorts:
                if sort != route.default_sort:
                    yield tuple(sorted(index[n] for n in names)), sort


def _scattered_sql(route: ListRoute, chosen: tuple[int, ...], sort: str) -> list[str]:
    """SQL statements that add every scattered page of the combinations of ``chosen`` under ``sort`` to
    ``_scattered``: the path its file would have (``ListRoute.file_path``) and its rows' ``_idx`` in order. A page's
    cost is the fewest pages holding its rows among the combination's own in the default order and each filter's
    alone under ``sort``. Each numbering is made in a table of its own first, then the scattered pages, then their rows
    (one statement for all ran past 64 MB of DuckDB's memory at 300k companies)."""
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
    statements = [
        f"CREATE OR REPLACE TEMP TABLE _scattered_pair AS SELECT _idx, {keys}, "
        f"row_number() OVER (PARTITION BY {keys} ORDER BY {rank}) - 1 AS _s, "
        f"row_number() OVER (PARTITION BY {keys} ORDER BY {default}) - 1 AS _d FROM {fanned}"]
    statements += [f"CREATE OR REPLACE TEMP TABLE _scattered_alone{k} AS SELECT _idx, v{k}, "
                   f"row_number() OVER (PARTITION BY v{k} ORDER BY {rank}) - 1 AS _p "
                   f"FROM (SELECT _idx, {rank}, {values(k)} FROM rows)" for k in range(len(filters))]
    joins = " ".join(f"JOIN _scattered_alone{k} a{k} ON a{k}._idx = c._idx AND a{k}.v{k} = c.v{k}"
                     for k in range(len(filters)))
    costs = ", ".join(f"count(DISTINCT a{k}._p // {per_page})" for k in range(len(filters)))
    grouped = ", ".join(f"c.v{k}" for k in range(len(filters)))
    statements.append(  # the pages, then their rows: counting and listing in one aggregate ran past 64 MB
        f"CREATE OR REPLACE TEMP TABLE _scattered_pages AS SELECT {grouped}, c._s // {per_page} AS _page "
        f"FROM _scattered_pair c {joins} GROUP BY ALL "
        f"HAVING least(count(DISTINCT c._d // {per_page}), {costs}) > {FILES}")
    folder = " || '/' || ".join([sql_text(route.path),
                                  *(f"{sql_text(f.name + '=')} || c.v{k}" for k, f in enumerate(filters))])
    same = " AND ".join([f"p.v{k} = c.v{k}" for k in range(len(filters))] + [f"p._page = c._s // {per_page}"])
    statements.append(
        f"INSERT INTO _scattered SELECT {folder} || {sql_text('/sort=' + sort + ',page=')} || (c._s // {per_page} + 1) "
        f"|| '.json' AS path, list(c._idx ORDER BY c._s) AS _rows FROM _scattered_pair c "
        f"JOIN _scattered_pages p ON {same} GROUP BY {grouped}, c._s // {per_page}")
    return statements


BATCH = 1_000
"""Pages fetched from DuckDB at a time."""
TEMP_TABLES = ("_scattered", "_scattered_parts")


def scattered(con: duckdb.DuckDBPyConnection, route: ListRoute, size: Callable[[int], int], meta: bytes) -> int:
    """Find every scattered page of the route (from ``rows`` ranked by ``listing.rank``) into the temp table
    ``_scattered`` (its path and its rows' ``_idx`` in order), each with the answer file it goes in
    (``_scattered_parts``); return how many files (``size(i)``: the bytes of row ``i`` serialized; ``meta``: the
    members of the route's constant meta object). Nothing but each page's path and part is held in Python."""
    con.execute("CREATE OR REPLACE TEMP TABLE _scattered (path VARCHAR, _rows BIGINT[])")
    con.execute("CREATE OR REPLACE TEMP TABLE _scattered_parts (path VARCHAR, part INTEGER)")
    if route.index_file is None or len(route.published_sorts) < 2:
        return 0
    for chosen, sort in _pairs(route):
        for statement in _scattered_sql(route, chosen, sort):
            con.execute(statement)
    work = ("_scattered_pair", "_scattered_pages", *(f"_scattered_alone{k}" for k in range(route.sort_depth + 1)))
    for table in work:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    paths, hashes, total = [], [], 0
    found = con.execute("SELECT path, _rows FROM _scattered")
    while batch := found.fetchmany(BATCH):
        for path, idx in batch:
            paths.append(path)
            hashes.append(fnv1a(path))
            total += len(path) + len(meta) + sum(size(i) + 1 for i in idx) + 24
    if not paths:
        return 0
    parts = max(1, -(-total // PART_BYTES))
    con.execute("INSERT INTO _scattered_parts SELECT unnest($1), unnest($2)", [paths, [h % parts for h in hashes]])
    return parts


def answer_files(
    con: duckdb.DuckDBPyConnection, route: ListRoute, rows: Sequence[bytes], meta: bytes,
) -> Iterator[tuple[str, bytes]]:
    """Each answer file (path, body) of ``scattered``'s pages, one file at a time (``rows``: the route's rows
    serialized, in ``_idx`` order; ``meta``: the members of the route's constant meta object)."""
    found = con.execute("SELECT part, path, _rows FROM _scattered JOIN _scattered_parts USING (path) "
                        "ORDER BY part, path")
    current, answers = -1, []
    while batch := found.fetchmany(BATCH):
        for part, path, idx in batch:
            if part != current and answers:
                yield part_path(route.name, current), b"{\n" + b",\n".join(answers) + b"\n}\n"
                answers = []
            current = part
            answers.append(serialize.string(path) + b':{"data":[' + b",".join(rows[i] for i in idx)
                           + b'],"meta":{' + meta + b"}}")
    if answers:
        yield part_path(route.name, current), b"{\n" + b",\n".join(answers) + b"\n}\n"
