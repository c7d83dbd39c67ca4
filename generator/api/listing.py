"""Precompute every listing page that has content: each non-empty filter combination x each sort x each page.

The work is split where each part is cheapest, and what a listing task holds does not grow with its route's rows
(but the query index, a few bytes per row). DuckDB fans every row out to the filter combinations it belongs to,
counts and digests each combination, lists its rows under each of its sorts one combination after the other, and
takes each combination's facets from the combinations one filter deeper (their row counts are the facet counts,
their first pages the facet URLs), all into tables that spill past its memory limit (``combinations``); a
combination without rows never appears, so no empty page is written. Python serializes each row once into a
scratch file (``Rows``), then walks the combinations in folder order, a batch of combinations and of positions at
a time, and assembles each page by joining its rows' bytes read back from the file.
"""

from __future__ import annotations

import array
import os
import tempfile
import typing
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import duckdb

from generator.api.combinations import (
    ROWS_DIGEST_OF_HASHES,
    TEMP_TABLES,
    Domains,
    Refinements,
    combinations,
    domains,
    pack,
    typed,
    walk,
)
from generator.api.prefix_answers import prefix_answers
from generator.api.queries import base_meta, staged
from generator.api.query_index import filter_entries, query_index
from generator.api.registry import ListRoute
from generator.api.scattered import TEMP_TABLES as SCATTERED_TABLES
from generator.api.scattered import answer_files, scattered
from generator.dataset import serialize
from generator.dataset.schema import DatasetInfo
from generator.output.manifest import unit_key


class Page(NamedTuple):
    path: str
    body: bytes
    inputs: str = ""
    """Key of the combination the page belongs to (see ``render``)."""


Reuse = Callable[[str, str], bool]
"""``reuse(folder, key)``: carry over the previous output's pages of the combination in ``folder`` if they were
rendered from the inputs ``key`` (and say so), else do nothing and return False."""


def materialize(con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo) -> str:
    """Create the route's rows as temp table ``rows`` (with ``_idx``, the position in key order, and ``_h`` and
    ``_g``, two 64-bit DuckDB hashes of the row's content); return a digest of its rows' content (``rows_digest``
    of those hashes; their order follows from it), which with the dataset's metadata and the code determines
    every page of the route."""
    sql, params = staged(con, route.rows_sql, info)
    # Two statements: the route's query into a table first (which spills), then numbered and hashed from it. In one,
    # the query's joins and aggregates and the window's buffer of every row are held at once: at 300k companies
    # `trending` then needs more than 256 MB of DuckDB's memory; in two, 256 MB is enough.
    con.execute(f"CREATE OR REPLACE TEMP TABLE _route_rows AS SELECT * FROM ({sql}) s", params)
    # Numbered over the key's columns alone, joined back by row id: a window over whole rows held more than 64 MB
    # of DuckDB's memory at 300k companies (``trending``'s components).
    con.execute(f"CREATE OR REPLACE TEMP TABLE _numbers AS SELECT rowid AS _rid, "
                f"row_number() OVER (ORDER BY {route.key}) - 1 AS _idx FROM _route_rows")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE rows AS SELECT n._idx, hash(s)::HUGEINT AS _h, hash(s, 1) AS _g, s.* "
        "FROM _route_rows s JOIN _numbers n ON n._rid = s.rowid"
    )
    con.execute("DROP TABLE _route_rows")
    con.execute("DROP TABLE _numbers")
    found = con.execute(f"SELECT {ROWS_DIGEST_OF_HASHES} FROM rows").fetchone()
    return str(found[0]) if found else ""


def rank(con: duckdb.DuckDBPyConnection, route: ListRoute) -> None:
    """Add ``_r<i>`` to ``rows``: each row's position under the route's i-th sort value (only a route that renders
    needs them)."""
    ranks = ", ".join(f"row_number() OVER (ORDER BY {_order_by(route, sort)}) - 1 AS _r{i}"
                      for i, sort in enumerate(route.sort_values))
    # Over the sorts' columns alone, joined back by ``_idx``: windows over whole rows held more than 128 MB of
    # DuckDB's memory at 300k companies (``trending``'s components).
    con.execute(f"CREATE OR REPLACE TEMP TABLE _ranks AS SELECT _idx, {ranks} FROM rows")
    con.execute("CREATE OR REPLACE TEMP TABLE rows AS SELECT r.*, k.* EXCLUDE (_idx) FROM rows AS r "
                "JOIN _ranks AS k USING (_idx)")
    con.execute("DROP TABLE _ranks")


BATCH = 50_000
"""Positions fetched at a time (``_members``), and the most rows serialized at a time."""
BATCH_BYTES = 8_000_000
"""About the bytes of rows serialized at a time: a batch's text is held whole, in DuckDB's result and in Python
(50,000 rows of ``trending``, a few KB each: the task's max RSS 337 MiB at 300k companies, 172 MiB a few MB at a
time)."""
FIRST_BATCH = 1_000
"""Rows serialized first, to measure their width."""


class Rows(Sequence[bytes]):
    """The rows of ``rows`` (see ``materialize``) serialized once (``serialize.table_rows``, about ``BATCH_BYTES``
    at a time, at most ``batch`` rows), in ``_idx`` order, held in an unlinked scratch file where the connection
    spills (else the system's temporary folder) and read back by position: a listing task holds none of them but the
    page it assembles."""

    def __init__(self, con: duckdb.DuckDBPyConnection, route: ListRoute, batch: int | None = None) -> None:
        batch = batch or BATCH
        (spill,) = con.execute("SELECT current_setting('temp_directory')").fetchone() or ("",)
        folder = spill if spill and os.path.isabs(spill) else None
        if folder is not None:
            os.makedirs(folder, exist_ok=True)
        self._file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115  (closed by close())
        self._ends = array.array("q", [0])
        (total,) = con.execute("SELECT count(*) FROM rows").fetchone() or (0,)
        start, step = 0, min(batch, FIRST_BATCH)
        try:
            while start < total:
                con.execute("CREATE OR REPLACE TEMP TABLE _serialized AS SELECT * FROM rows "
                            "WHERE _idx >= $1 AND _idx < $2", [start, start + step])
                for data in serialize.table_rows(con, route.model, "_serialized", "_idx"):
                    self._file.write(data)
                    self._ends.append(self._ends[-1] + len(data))
                start += step
                width = self._ends[-1] // len(self) if len(self) else 1
                step = max(1, min(batch, BATCH_BYTES // max(width, 1)))
        finally:
            con.execute("DROP TABLE IF EXISTS _serialized")
        self._file.flush()

    def __len__(self) -> int:
        return len(self._ends) - 1

    @typing.overload
    def __getitem__(self, i: int) -> bytes: ...
    @typing.overload
    def __getitem__(self, i: slice) -> list[bytes]: ...
    def __getitem__(self, i: int | slice) -> bytes | list[bytes]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = range(len(self))[i]
        start = self._ends[i]
        return os.pread(self._file.fileno(), self._ends[i + 1] - start, start)

    def take(self, positions: list[int]) -> list[bytes]:
        """The rows at ``positions`` (a page's), each read at once, without indexing's checks per row."""
        fd, ends, pread = self._file.fileno(), self._ends, os.pread
        return [pread(fd, ends[i + 1] - ends[i], ends[i]) for i in positions]

    def size(self, i: int) -> int:
        """The bytes of row ``i`` serialized."""
        return self._ends[i + 1] - self._ends[i]

    def close(self) -> None:
        self._file.close()


def load_rows(con: duckdb.DuckDBPyConnection, route: ListRoute) -> list[bytes]:
    """Each row of ``rows`` serialized once, in ``_idx`` order (``Rows``)."""
    rows = Rows(con, route)
    try:
        return list(rows)
    finally:
        rows.close()


def _order_by(route: ListRoute, sort_value: str) -> str:
    field, descending = route.sort_field(sort_value)
    return f"{field.expression} {'DESC' if descending else 'ASC'} NULLS LAST, {route.key}"



NO_FACETS = b'"facets":{},"facets_truncated":[]'

def _value(value: str | int) -> bytes:
    """A filter value as ``serialize.dumps`` writes it (``typed``: ladder and year values are numbers)."""
    return str(value).encode() if isinstance(value, int) else serialize.string(value)


def _facet_meta(route: ListRoute, sort: str, refinements: Refinements) -> bytes:
    """The members ``"facets":{...},"facets_truncated":[...]`` of page 1's meta, serialized (as ``serialize.dumps``
    writes them): per faceted filter, each refinement's value, count and URL under this sort (or the default
    order, where the first refinement does not publish it); the names of the facets cut short."""
    if not refinements:
        return NO_FACETS
    facets = []
    for name, (values, _) in refinements.items():
        refined_sort = sort if sort in values[0][3].sorts else route.default_sort
        page = f"/{route.page_file(refined_sort, 1)}"
        entries = b",".join([
            b'{"value":%s,"count":%d,"url":%s}' % (_value(value), count, serialize.string(folder + page))
            for value, count, folder, _ in values
        ])
        facets.append(serialize.string(name) + b":[" + entries + b"]")
    cut = b",".join([serialize.string(name) for name, (_, short) in refinements.items() if short])
    return b'"facets":{' + b",".join(facets) + b'},"facets_truncated":[' + cut + b"]"


def _filters(route: ListRoute, active: dict[str, str]) -> bytes:
    """The page meta's ``filters`` object, serialized (as ``serialize.dumps`` writes it): the applied filters in
    declaration order, ladder and year values as numbers."""
    return b"{" + b",".join([
        serialize.string(f.name) + b":" + _value(typed(f, active[f.name])) for f in route.filters if f.name in active
    ]) + b"}"


class _Positions:
    """The rows of ``_members`` one after the other, fetched ``batch`` at a time by ``rowid``."""

    def __init__(self, con: duckdb.DuckDBPyConnection, batch: int) -> None:
        self._con, self._batch = con, batch
        self._held: list[int] = []
        self._start = self._at = 0

    def skip(self, count: int) -> None:
        self._at += count

    def take(self, count: int) -> list[int]:
        out: list[int] = []
        while len(out) < count:
            offset = self._at - self._start
            if not 0 <= offset < len(self._held):
                self._start, offset = self._at, 0
                self._held = [i for (i,) in self._con.execute(
                    "SELECT _idx FROM _members WHERE rowid >= $1 AND rowid < $2 ORDER BY rowid",
                    [self._at, self._at + self._batch]).fetchall()]
                if not self._held:
                    raise RuntimeError("fewer positions than the combinations count")
            found = self._held[offset: offset + count - len(out)]
            out += found
            self._at += len(found)
        return out


def _pages(
    route: ListRoute, folder: str, filters: bytes, sort: str, total: int, positions: _Positions,
    rows: Rows, meta: bytes, first_page_meta: bytes, inputs: str = "",
) -> Iterator[Page]:
    """The pages of one non-empty result set (in ``folder``) of ``total`` rows under one sort: its rows' positions
    in ``rows`` (the serialized rows) come from ``positions`` in that sort's order, a page at a time; page 1 also
    carries ``first_page_meta``.

    Each page is ``{"data", "meta": {total, page, per_page, pages, sort, filters, **meta, **first_page_meta},
    "links"}``, assembled from fragments serialized once per result set (``meta``: the members of the route's
    constant meta object, and ``first_page_meta``, already serialized members); each carries ``inputs``."""
    per_page = route.per_page
    pages = -(-total // per_page)
    tail = b"," + meta if meta else b""
    first = b"," + first_page_meta if first_page_meta else b""

    def link(page: int) -> bytes:
        return serialize.string(f"{folder}/{route.page_file(sort, page)}")

    common = b'"per_page":%d,"pages":%d,"sort":%s,"filters":%s' % (
        per_page, pages, serialize.string(sort), filters) + tail
    first_link, last_link = link(1), link(pages)
    for page in range(1, pages + 1):
        chunk = positions.take(min(per_page, total - (page - 1) * per_page))
        yield Page(f"{folder}/{route.page_file(sort, page)}", b"".join((
            b'{"data":[\n', b",\n".join(rows.take(chunk)), b'\n],"meta":{"total":%d,"page":%d,' % (total, page),
            common, first if page == 1 else b"",
            b'},"links":{"self":', link(page), b',"first":', first_link,
            b',"prev":', link(page - 1) if page > 1 else b"null",
            b',"next":', link(page + 1) if page < pages else b"null",
            b',"last":', last_link, b"}}\n",
        )), inputs)


def domains_of(route: ListRoute, paths: list[str]) -> Domains:
    """``combinations.domains`` from the route's page paths (output-relative; their files carried over): a
    one-filter combination is the folder ``<route>/<filter>=<value>`` right above a page."""
    prefix = route.path.lstrip("/") + "/"
    found: dict[str, set[str]] = {f.name: set() for f in route.filters}
    for path in paths:
        parts = path[len(prefix):].split("/") if path.startswith(prefix) else []
        if len(parts) == 2 and "=" in parts[0]:
            name, _, value = parts[0].partition("=")
            if name in found:
                found[name].add(value)
    return {flt.name: pack(sorted(found[flt.name], key=lambda v, f=flt: (typed(f, v), v))) for flt in route.filters}


def _indexed(con: duckdb.DuckDBPyConnection, route: ListRoute, rows: Rows, meta: bytes) -> Iterator[Page]:
    """The route's query index and the answers a resolver reads beside it (short prefixes', scattered pages'):
    its filters' entries computed once for the index and the short prefixes."""
    count = scattered(con, route, rows.size, meta)
    if route.index_file is None:
        return
    entries = filter_entries(con, route)
    index = query_index(con, route, entries, count)
    if index is not None:
        yield Page(route.index_file, index)
        del index
        yield from (Page(path, body) for path, body in prefix_answers(con, route, rows, entries))  # type: ignore[arg-type]
    del entries
    yield from (Page(path, body) for path, body in answer_files(con, route, rows, meta))


def render(
    con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo,
    domains_out: Domains | None = None, reuse: Reuse | None = None,
) -> Iterator[Page]:
    """Every page of one listing route that has rows: each non-empty combination, each of its sorts, each page,
    from the rows ``materialize`` made.

    Each combination's pages are determined by its folder (its filters, hence its sorts) and its key (a digest of
    its rows' content, from which the order under each sort and every facet count follow, and of the dataset's
    metadata: ``combinations``). ``reuse`` may carry a combination's pages over instead (a rebuild where few rows
    changed renders few combinations); the pages rendered carry the key in ``Page.inputs``. The values each filter
    takes alone (the ones that have files) go into ``domains_out``."""
    rows = Rows(con, route)
    try:
        rank(con, route)
        meta = serialize.members(base_meta(info))
        yield from _indexed(con, route, rows, meta)
        found = combinations(con, route, unit_key(meta))
        if domains_out is not None:
            domains_out.update(domains(con, route))
        positions = _Positions(con, BATCH)
        everything = route.sort_values
        for key, folder, count, inputs, shape, refinements in walk(con, route, found):
            if reuse is not None and reuse(folder, inputs):
                positions.skip(count * len(shape.paged))
                continue
            filters = _filters(route, key)
            for sort in shape.paged:
                first = _facet_meta(route, everything[sort], refinements)
                yield from _pages(route, folder, filters, everything[sort], count, positions, rows, meta, first,
                                  inputs if reuse is not None else "")
    finally:
        rows.close()
        for table in (*TEMP_TABLES, *SCATTERED_TABLES):
            con.execute(f"DROP TABLE IF EXISTS {table}")
