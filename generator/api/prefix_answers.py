"""Short prefixes' first pages: a search of one or two letters (``/api/search?q=a``) answered in at most four reads.

No file lists the rows of a prefix shorter than the text filter's shortest indexed one (``Filter.prefixes``): they
would cost a copy of most rows (14.6 MB at 10k companies for /api/search). Through the query index such a query
picks its page's rows out of the name-ordered list, one read per page they sit on (up to 48). For the first page
of each such prefix, alone or with one value of another filter (``type=company``), the build writes an answer,
and the answers of the prefixes that begin with one character share a file (``/api/query-index/<route>/<text>=<first
character>.json``, an object by ``<text>=<prefix>[,<filter>=<value>]``, one answer per line, so that a reader
can take one answer's text without parsing the others; one file per character, not one per prefix and value, which
at 10k companies were 983 files of 0.75 KB on average)::

    {
    "q=st":{"data": [rows no file below holds, as the listing files write them],
     "files": ["/api/search/q=abb/sort=name,page=1.json", ...],
     "rows": [[0, 3], [-1, 0], ...], "total": 732, "counts": {"type": [["company", 410], ...]}},
    "q=st,type=company":{...}
    }

``files``: at most ``FILES`` published pages (the combination's own, or a longer prefix's), chosen so that they hold
the most of the page's rows; ``rows``: the page's rows in order, each ``[file, position]`` in one of them or
``[-1, i]``, the i-th of ``data``; ``total``, and per filter the index holds as codes, each value's count among
every row of the answer (the facets page 1 carries). The answer is exactly the query index's (same rows, total,
order, facets); the resolver reads this file, takes its answer, reads the files it names, and takes ``meta`` from the
first of them.
A query it does not cover (another page, several words, two other filters) goes through the index.
"""

from __future__ import annotations

import array
import bisect
import collections
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb

from generator.api.compact import Lists, coded
from generator.api.kinds import INDEX_PREFIX, text_terms
from generator.api.query_index import column
from generator.api.routes import INDEX_FOLDER, Filter, ListRoute
from generator.dataset import serialize

FILES = 3
"""Published pages a short prefix's first page reads beside its own file: four reads in all."""


def plan(route: ListRoute) -> dict[str, Any] | None:
    """Where a route's short prefixes are answered (the query space carries it for the resolvers): the folder, the
    text filter, the length below which a prefix has no files, the filters one value of which may go with it; None
    when the route has no such text filter or a facet the index does not hold as codes."""
    if route.index_file is None:
        return None
    text = next((f for f in route.indexed_filters if f.prefixes is not None and f.published), None)
    if text is None or text.prefixes is None or not 2 <= text.prefixes[0] <= INDEX_PREFIX + 1:
        return None  # the index's word beginnings decide which rows a shorter prefix matches
    others = [f for f in route.indexed_filters if f is not text]
    if any(f.kind.faceted and not _coded(f) for f in others):
        return None
    return {"folder": f"{INDEX_FOLDER}/{route.name}", "filter": text.name, "below": text.prefixes[0],
            "with": [f.name for f in others if f.published and _coded(f) and route.combines({text.name, f.name})]}


def _coded(flt: Filter) -> bool:
    return flt.kind.index_entry(flt, [None]).get("codes") is not None


def path(found: dict[str, Any], prefix: str) -> str:
    """The file of the first pages of the prefixes that begin with ``prefix``'s first character."""
    return f"{found['folder']}/{found['filter']}={prefix[0]}.json"


def entry(found: dict[str, Any], prefix: str, context: dict[str, str]) -> str:
    """A prefix's first page's name in its file, with the other filter's value of ``context`` (at most one)."""
    return ",".join([f"{found['filter']}={prefix}", *(f"{n}={v}" for n, v in context.items())])


class _Route:
    """A route's rows as the prefixes' pages need them: numbered in the default order, with its filters' query
    index ``entries``; each row's terms (``text_terms`` of the text filter) and the rows of each term and of each
    word beginning of the index in arrays (``compact``), not a Python object per row."""

    def __init__(self, con: duckdb.DuckDBPyConnection, route: ListRoute, found: dict[str, Any],
                 entries: dict[str, object]) -> None:
        default = f"_r{route.sort_values.index(route.default_sort)}"
        self.route, self.found = route, found
        text = next(f for f in route.filters if f.name == found["filter"])
        self.text = text
        self.idx = array.array("q", column(con, f"SELECT _idx FROM rows ORDER BY {default}"))
        terms = coded(([w for w in t if w is not None] for t in column(
            con, f"SELECT {text_terms(text.column, text.prefixes)} FROM rows ORDER BY {default}")), True)
        self.term_values: list[str] = terms["values"]
        self.term_codes = {t: i for i, t in enumerate(self.term_values)}
        self.terms: Lists = terms["codes"]
        self.by_term = self.terms.inverted(len(self.term_values))
        self.held: dict[str, Any] = {n: entries[e] if isinstance(e, str) else e for n, e in entries.items()}
        self.postings = self.held[text.name]["codes"].inverted(len(self.held[text.name]["values"]))
        self._ranks: dict[tuple[str | None, str, str], Sequence[int]] = {}
        self._having: dict[tuple[tuple[str, str], ...], bytes] = {}

    def value(self, name: str, row: int) -> list[str]:
        entry = self.held[name]
        code = entry["codes"][row]
        codes = code if isinstance(code, list) else [] if code is None else [code]
        return [entry["values"][c] for c in codes]

    def having(self, context: dict[str, str]) -> bytes:
        """Per row, 1 when it has each value of ``context``, else 0."""
        key = tuple(context.items())
        if key not in self._having:
            self._having[key] = bytes(all(v in self.value(n, r) for n, v in context.items())
                                      for r in range(len(self.idx)))
        return self._having[key]

    def members(self, term: str | None, context: dict[str, str]) -> Sequence[int]:
        """The rows, in order, of the published combination of ``term`` (a text value, or None) and ``context``."""
        key = (term, *next(iter(context.items()), ("", "")))
        if key not in self._ranks:
            code = self.term_codes.get(term) if term is not None else None
            rows = range(len(self.idx)) if term is None else self.by_term.part(code) if code is not None else ()
            having = self.having(context)
            self._ranks[key] = array.array("i", (r for r in rows if having[r]))
        return self._ranks[key]

    def file(self, term: str | None, context: dict[str, str], row: int) -> tuple[str, int]:
        """The page of that combination holding ``row`` (default sort), and the row's place on it."""
        members = self.members(term, context)
        at = bisect.bisect_left(members, row)
        filters = {**({self.text.name: term} if term is not None else {}), **context}
        per_page = self.route.per_page
        return self.route.file_path(filters, self.route.default_sort, at // per_page + 1), at % per_page

    def answer(self, prefix: str, context: dict[str, str], rows: list[bytes]) -> bytes | None:
        entry = self.held[self.text.name]
        starting = [self.postings.part(i) for i, v in enumerate(entry["values"]) if v.startswith(prefix)]
        having = self.having(context)
        matches = [r for r in sorted(set().union(*starting)) if having[r]]
        if not matches:
            return None
        chosen = matches[:self.route.per_page]
        every = not context and bool(self.route.default_filters)  # the unfiltered folder is not every row then
        words = self.term_values
        held_by = {r: [self.file(t, context, r) for t in [None, *(words[c] for c in self.terms.part(r)
                                                                  if words[c].startswith(prefix))]
                       if self.route.combines({*context, *([self.text.name] if t else [])}) and (t or not every)]
                   for r in chosen}
        files: list[str] = []
        left = set(chosen)
        while left and len(files) < FILES:
            count: dict[str, int] = {}
            for r in sorted(left):
                for name in dict.fromkeys(p for p, _ in held_by[r]):
                    count[name] = count.get(name, 0) + 1
            files.append(min(count, key=lambda name: (-count[name], name)))
            left = {r for r in left if all(p != files[-1] for p, _ in held_by[r])}
        inline = [r for r in chosen if r in left]
        places = [[-1, inline.index(r)] if r in left
                  else next([files.index(p), at] for p, at in held_by[r] if p in files) for r in chosen]
        counts: dict[str, list[list[object]]] = {}
        for name, found in self.held.items():
            if name == self.text.name or name in context or "codes" not in found:
                continue
            tally = collections.Counter(found["codes"].of(matches))
            counts[name] = [[found["values"][c], n] for c, n in sorted(tally.items())]
        return (b'{"data":[' + b",".join(rows[self.idx[r]] for r in inline) + b'],"files":'
                + serialize.dumps(files) + b',"rows":' + serialize.dumps(places) + b',"total":'
                + serialize.dumps(len(matches)) + b',"counts":' + serialize.dumps(counts) + b"}\n")


def prefix_answers(con: duckdb.DuckDBPyConnection, route: ListRoute, rows: list[bytes],
                   entries: dict[str, object]) -> Iterator[tuple[str, bytes]]:
    """The files of the short prefixes' first pages, one per first character (``rows``: the route's rows
    serialized, in ``_idx`` order; ``entries``: its query index's, ``query_index.filter_entries``): every prefix
    some row's word begins with, alone and with each value of each filter of ``plan``'s ``with``."""
    found = plan(route)
    if found is None:
        return
    made = _Route(con, route, found, entries)
    beginnings = made.held[found["filter"]]["values"]
    prefixes = sorted({v[:n] for v in beginnings for n in range(1, found["below"]) if len(v) >= n})
    contexts: list[dict[str, str]] = [{}, *({n: v} for n in found["with"] for v in made.held[n]["values"])]
    for first, same in itertools.groupby(prefixes, key=lambda prefix: prefix[0]):
        answers = []
        for prefix, context in itertools.product(list(same), contexts):
            body = made.answer(prefix, context, rows)
            if body is not None:
                answers.append(serialize.dumps(entry(found, prefix, context)) + b":" + body.rstrip(b"\n"))
        if answers:
            yield path(found, first), b"{\n" + b",\n".join(answers) + b"\n}\n"
