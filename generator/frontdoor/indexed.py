"""A listing query without a file of its own, answered through the route's query index (``api.query_index``): the
index gives every row of the answer in the asked order (so its total), then, among the published combinations
that hold the answer, the one whose pages hold the asked page's rows in the fewest files; only those pages are read.
The first page of a prefix shorter than the indexed ones (``/api/search?q=a``) has an answer in a file of its
first character's that says where its rows are, its total and its facets (``api.prefix_answers``): it and at most
three pages are read.
"""

from __future__ import annotations

import itertools
import json
from typing import Protocol

from generator.api.prefix_answers import entry as prefix_entry
from generator.api.prefix_answers import path as prefix_path
from generator.api.query_index import decode
from generator.api.scattered import FILES as SCATTERED_FILES
from generator.api.scattered import part_of
from generator.frontdoor import values as primitives
from generator.frontdoor.common import Answer, Fetch, not_found
from generator.frontdoor.values import Mask, all_of


class Listing(Protocol):
    """What this module uses of ``listing.Listing`` (which calls it)."""

    fetch: Fetch
    route: dict
    filters: dict[str, dict]

    def combines(self, names: set[str]) -> bool: ...
    def sorts_for(self, names: set[str]) -> list[str]: ...
    def file(self, filters: dict[str, str], sort: str, page: int) -> str: ...
    def faceted(self, values: dict[str, object]) -> list[str]: ...
    def page(self, data: list[dict], total: int, values: dict[str, object], sort: str, page: int,
             base_meta: dict[str, object], counts: dict[str, dict[object, int]] | None = None) -> Answer: ...


def _candidates(listing: Listing, exact: dict[str, str]) -> list[tuple[tuple[str, ...], str]]:
    """(filters, sort) of every published combination that holds the answer and that no larger one of the same
    sort contains: per sort in the route's order, the subsets of ``exact`` from the largest, in declaration
    order."""
    route = listing.route
    names = list(exact)
    out: list[tuple[tuple[str, ...], str]] = []
    for sort in route["sorts"]:
        kept: list[set[str]] = []
        for size in range(len(names), -1, -1):
            for chosen in itertools.combinations(names, size):
                if not chosen and route["default_filters"]:
                    continue  # the unfiltered folder of a route with default filters is not "every row"
                if any(set(chosen) <= k for k in kept):
                    continue
                if listing.combines(set(chosen)) and sort in listing.sorts_for(set(chosen)):
                    kept.append(set(chosen))
                    out.append((chosen, sort))
    return out


_PARSED: dict[str, tuple[bytes, dict]] = {}
"""Query index path -> (its bytes, decoded) of the last request that read it: a request that reads the same bytes
again (the file unchanged) reuses what was decoded. Never mutated; one entry per index path, replaced when the
bytes differ (a rebuild, another build in the process)."""


def _parsed(path: str, raw: bytes) -> dict:
    cached = _PARSED.get(path)
    if cached is not None and cached[0] == raw:
        return cached[1]
    index = decode(raw)
    _PARSED[path] = (raw, index)
    return index


_RANKS: dict[tuple[str, str], tuple[dict, list[int] | range]] = {}
"""(query index path, sort) -> (the decoded index, each row's place in that sort): kept while the index is."""


def _ranks(path: str, index: dict, sort: str) -> list[int] | range:
    """Each row's place in ``sort`` (the default order: its number)."""
    if sort == index["order"]:
        return range(index["rows"])
    cached = _RANKS.get((path, sort))
    if cached is not None and cached[0] is index:
        return cached[1]
    ranked = [0] * index["rows"]
    for place, i in enumerate(index["orders"][sort]):
        ranked[i] = place
    _RANKS[(path, sort)] = (index, ranked)
    return ranked


def _scattered(listing: Listing, parts: int, path: str) -> dict | None:
    """The answer of the page at ``path`` (the path its file would have) from its route's answer files
    (``api.scattered``), or None when it has none."""
    raw = listing.fetch(f"{listing.route['scattered']}{part_of(path, parts)}.json")
    return None if raw is None else json.loads(raw).get(path)


def from_prefix(listing: Listing, values: dict[str, object], sort: str, page: int) -> Answer | None:
    """The first page of a short prefix (alone, or with one value of a filter ``with`` names) from its own file, or
    None when the query is not one (or the file is missing: no row, or an older build)."""
    found = listing.route.get("prefixes")
    if found is None or page != 1 or sort != listing.route["default_sort"]:
        return None
    word, others = values.get(found["filter"]), {n: str(v) for n, v in values.items() if n != found["filter"]}
    if not isinstance(word, list) or len(word) != 1 or len(word[0]) >= found["below"] or len(others) > 1 \
            or any(n not in found["with"] for n in others):
        return None
    raw = listing.fetch(prefix_path(found, word[0]))
    short = None if raw is None else json.loads(raw).get(prefix_entry(found, word[0], others))
    if short is None:
        return None
    files = []
    for path in short["files"]:
        body = listing.fetch(path)
        if body is None:
            return None
        files.append(json.loads(body))
    rows = [short["data"][i] if f < 0 else files[f]["data"][i] for f, i in short["rows"]]
    counts = {n: dict(short["counts"][n]) for n in listing.faceted(values) if n in short["counts"]}
    return listing.page(rows, short["total"], values, sort, page, files[0]["meta"], counts)


def from_index(listing: Listing, values: dict[str, object], sort: str, page: int) -> Answer | None:
    """The answer, or None when the route has no index or the query a filter it does not hold (text, an open
    domain): the caller then reads whole combinations."""
    route = listing.route
    filters = listing.filters
    if not route.get("index") or not all(primitives.of(filters[n]).indexable(filters[n], v) for n, v in values.items()):
        return None
    raw = listing.fetch(route["index"])
    if raw is None:
        return None
    index = _parsed(route["index"], raw)
    rows, per_page = index["rows"], route["per_page"]
    held = {n: index["filters"][e] if isinstance(e, str) else e for n, e in index["filters"].items()}  # a name: the
    if any(name not in held for name in values):  # same entry as that filter's (two bounds on one column)
        return None
    masks = {n: primitives.of(filters[n]).mask(held[n], filters[n], v) for n, v in values.items()}
    mask = all_of(list(masks.values()), rows)

    def order(name: str) -> range | list[int]:
        return range(rows) if name == index["order"] else index["orders"][name]

    matches = [i for i in order(sort) if mask[i]]
    total, pages = len(matches), -(-len(matches) // per_page)
    if page > max(pages, 1):
        return not_found(f"{route['path']}: page {page} is past the last page ({max(pages, 1)})")
    chosen = matches[(page - 1) * per_page: page * per_page]
    if not chosen:
        return listing.page([], 0, values, sort, page, {})
    exact: dict[str, str] = {}
    bases: dict[str, Mask] = {}
    for name, value in values.items():  # below the lowest rung, a short prefix, a filter without files: the other
        flt = filters[name]  # filters' files hold the answer
        reader = primitives.of(flt)
        base = reader.base(flt, value)
        if base is not None:
            exact[name] = str(base)
            bases[name] = masks[name] if base is value else reader.mask(held[name], flt, base)
    conjunctions: dict[tuple[str, ...], Mask] = {}  # one per set of filters, whichever sort; every filter its own
    if len(bases) == len(values) and all(found is masks[n] for n, found in bases.items()):  # base: the query's
        conjunctions[tuple(bases)] = mask
    best: tuple[int, tuple[str, ...], str, dict[int, int]] | None = None
    needed = set(chosen)
    for names, base_sort in _candidates(listing, exact):
        if best is not None and best[0] == 1:
            break  # no combination holds the page in fewer files
        where: dict[int, int] = {}
        if not names:  # every row: a row's place is its rank in the sort
            ranked = _ranks(route["index"], index, base_sort)
            where = {i: ranked[i] for i in chosen}
        else:
            if names not in conjunctions:
                conjunctions[names] = all_of([bases[n] for n in names], rows)
            base = conjunctions[names]
            position = 0
            pages: set[int] = set()
            for i in order(base_sort):
                if base[i]:
                    if i in needed:
                        where[i] = position
                        pages.add(position // per_page)
                        if len(where) == len(needed) or (best is not None and len(pages) >= best[0]):
                            break  # found, or it cannot read fewer files than the best
                    position += 1
        files = len({p // per_page for p in where.values()})
        if len(where) == len(needed) and (best is None or files < best[0]):
            best = (files, names, base_sort, where)
    counts = {n: primitives.of(filters[n]).counts(held[n], filters[n], mask)
              for n in listing.faceted(values) if page == 1 and n in held}
    whole = {n: primitives.of(filters[n]).exact(filters[n], v) for n, v in values.items()}  # a published value each
    if (best is None or best[0] > SCATTERED_FILES) and index.get("scattered") and None not in whole.values():
        answer = _scattered(listing, index["scattered"], listing.file(whole, sort, page))  # type: ignore[arg-type]
        if answer is not None and len(answer["data"]) == len(chosen):
            return listing.page(answer["data"], total, values, sort, page, answer["meta"], counts)
    if best is None:
        return None
    _, names, base_sort, where = best
    found: dict[int, dict] = {}
    meta: dict[str, object] = {}
    for number in sorted({p // per_page + 1 for p in where.values()}):
        body = listing.fetch(listing.file({n: exact[n] for n in names}, base_sort, number))
        if body is None:
            return None
        document = json.loads(body)
        meta = meta or document["meta"]
        for i, p in where.items():
            if p // per_page + 1 == number and p % per_page < len(document["data"]):
                found[i] = document["data"][p % per_page]
    if len(found) != len(chosen):
        return None
    return listing.page([found[i] for i in chosen], total, values, sort, page, meta, counts)
