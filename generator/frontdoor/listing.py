"""A listing query answered: its values folded and checked, then one published file, or the rows of the smallest
published superset (its *bases*) filtered, sorted and paged in memory."""

from __future__ import annotations

import functools
import itertools
import json
import math
from decimal import Decimal
from urllib.parse import quote

from generator.frontdoor import values as primitives
from generator.frontdoor.common import JSON, PAGE, Answer, Fetch, Invalid, _dumps, not_found
from generator.frontdoor.indexed import from_index, from_prefix
from generator.frontdoor.space import slugify
from generator.frontdoor.values import Row, get

NOT_INDEXED = "{path}: `{name}` is answered from the query index, which does not hold {others}: drop one of them"
"""Why a filter without files that rows do not carry cannot go with one the index does not hold (a 404, as a
combination the files do not publish is on hosts without code)."""


class Listing:
    def __init__(self, fetch: Fetch, route: dict, params: dict[str, str], meta: dict[str, object]) -> None:
        """``meta``: what every listing's ``meta`` carries whatever the query (``as_of``, ``disclaimer``)."""
        self.fetch, self.route, self.params, self.meta = fetch, route, params, meta
        self.filters = {f["name"]: f for f in route["filters"]}
        self._read: dict[str, bytes | None] = {}

    # values --------------------------------------------------------------------------------------------------
    def _value(self, flt: dict, raw: str) -> object:
        """The canonical value of one filter, or ``Invalid`` naming it."""
        name = flt["name"]
        where = f"see {self.route['path']}'s `{name}` in /api/query-space.json or /api/openapi"
        if not raw.strip():
            raise Invalid([{"name": name, "reason": "empty value"}], f"`{name}` is empty")
        return primitives.of(flt).parse(flt, raw, self.fetch, slugify, where)

    def _parse(self) -> tuple[dict[str, object], str, int]:
        problems: list[dict[str, str]] = []
        values: dict[str, object] = {}
        for flt in self.route["filters"]:
            if flt["name"] in self.params:
                try:
                    values[flt["name"]] = self._value(flt, self.params[flt["name"]])
                except Invalid as error:
                    problems += error.params
        asked: str | None = None
        if "sort" in self.params:
            text = self.params["sort"].strip().removeprefix("+")  # %2Bvaluation: ascending, said explicitly
            found = [s for s in self.route["sorts"] if s.lower() == text.lower()]
            if found:
                asked = found[0]
            else:
                problems.append({"name": "sort", "reason": "one of " + ", ".join(self.route["sorts"])})
        page = 1
        if "page" in self.params:
            if PAGE.fullmatch(self.params["page"].strip()):
                page = int(self.params["page"].strip())
            else:
                problems.append({"name": "page", "reason": "a positive integer (1 is the first page)"})
        if problems:
            raise Invalid(problems, f"{self.route['path']}: " + "; ".join(f"`{p['name']}`: {p['reason']}"
                                                                          for p in problems))
        for name, value in self.route["default_filters"].items():  # every query the route's default does not name
            values.setdefault(name, value)
        values = {f["name"]: values[f["name"]] for f in self.route["filters"] if f["name"] in values}
        sort = asked or self.route["default_sort"]
        for name, sorts in self.route.get("value_sorts", {}).items():  # past events: newest first
            if asked is None and str(values.get(name)) in sorts:
                sort = sorts[str(values[name])]
        return values, sort, page

    # what the files hold ---------------------------------------------------------------------------------------
    def combines(self, names: set[str]) -> bool:
        groups = self.route["combinable"]
        return groups is None or any(names <= set(g) for g in groups)

    def sorts_for(self, names: set[str]) -> list[str]:
        """The sorts the files publish for a set of filters (a sort without files: none)."""
        if len(names) <= self.route["sort_depth"] and all(self.filters[n]["sortable"] for n in names):
            return [s for s, spec in self.route["sorts"].items() if spec["files"]]
        return [self.route["default_sort"]]

    def file(self, filters: dict[str, str], sort: str, page: int) -> str:
        order = [f["name"] for f in self.route["filters"]]
        segments = [f"{n}={filters[n]}" for n in order if n in filters] or ["all"]
        return "/".join([self.route["path"], *segments, f"sort={sort},page={page}.json"])

    def _direct(self, values: dict[str, object], sort: str) -> dict[str, str] | None:
        """The file filters when one published file holds the answer, else None."""
        out: dict[str, str] = {}
        for name, value in values.items():
            found = primitives.of(self.filters[name]).exact(self.filters[name], value)
            if found is None:
                return None
            out[name] = found
        if not self.combines(set(out)) or sort not in self.sorts_for(set(out)):
            return None
        return out

    def _bases(self, values: dict[str, object], word: str | None = None) -> list[dict[str, str]]:
        """Published supersets of the answer: its largest combinable set of filters that files narrow (a bound
        moved to its rung, a text query to the words a file indexes); with text, one base per word tried (``word``,
        else the longest, and the words glued)."""
        exact: dict[str, str] = {}
        text: list[str] | None = None
        text_name = ""
        for name, value in values.items():
            flt = self.filters[name]
            reader = primitives.of(flt)
            if reader.several:
                text, text_name = reader.alternatives(flt, value, word), name  # type: ignore[attr-defined]
            elif (base := reader.base(flt, value)) is not None:
                exact[name] = str(base)
        names = list(exact)
        best: dict[str, str] = {}
        for size in range(len(names), -1, -1):  # the largest set that combines, in declaration order
            for chosen in itertools.combinations(names, size):
                if self.combines(set(chosen) | ({text_name} if text else set())):
                    best = {n: exact[n] for n in chosen}
                    break
            else:
                continue
            break
        if text:
            return [{**best, text_name: word} for word in text]
        return [best]

    # answering -------------------------------------------------------------------------------------------------
    def answer(self) -> Answer:
        values, sort, page = self._parse()
        direct = self._direct(values, sort)
        if direct is not None:
            return self._from_file(direct, sort, page, values)
        indexed = from_prefix(self, values, sort, page) or from_index(self, values, sort, page)
        if indexed is not None:
            return indexed
        refused = self._unanswerable(values)
        if refused is not None:
            return refused
        rows: dict[object, Row] = {}
        meta: dict[str, object] = {}
        for base in self._bases(values, self._narrowest(values, sort)):
            found, base_meta = self._all_rows(base, self._base_sort(base, sort))
            meta = meta or base_meta
            for row in found:
                rows.setdefault(tuple(row[k] for k in self.route["key"]), row)  # type: ignore[arg-type]
        chosen = [row for row in rows.values() if self._keep(row, values)]
        chosen.sort(key=functools.cmp_to_key(self._comparator(sort)))
        per_page = self.route["per_page"]
        counts = {name: primitives.of(self.filters[name]).row_counts(self.filters[name], chosen)
                  for name in self.faceted(values) if page == 1}
        return self.page(chosen[(page - 1) * per_page: page * per_page], len(chosen), values, sort, page, meta,
                         counts)

    def _from_file(self, filters: dict[str, str], sort: str, page: int, values: dict[str, object]) -> Answer:
        path = self.file(filters, sort, page)
        body = self.fetch(path)
        if body is not None:
            return Answer(200, body, JSON, path)
        if page > 1 and self.fetch(self.file(filters, sort, 1)) is not None:
            return not_found(f"{self.route['path']}: page {page} is past the last page")
        return self.page([], 0, values, sort, page, {})

    def _once(self, path: str) -> bytes | None:
        if path not in self._read:
            self._read[path] = self.fetch(path)
        return self._read[path]

    def _base_sort(self, base: dict[str, str], sort: str) -> str:
        return sort if sort in self.sorts_for(set(base)) else self.route["default_sort"]

    def _narrowest(self, values: dict[str, object], sort: str) -> str | None:
        """With several words, the one whose files are read: the longest, unless its files run past a page; then the
        one of fewest pages (each one's first page read in turn until one has a page at most; a word without files
        has no row). None: the longest."""
        for name, value in values.items():
            flt = self.filters[name]
            reader = primitives.of(flt)
            if not reader.several or reader.alternatives(flt, value) is None:  # type: ignore[attr-defined]
                continue
            chosen, fewest = None, -1
            for word in reader.filed(flt, value):  # type: ignore[attr-defined]
                base = next(b for b in self._bases(values, word) if b[name] == word)
                first = self._once(self.file(base, self._base_sort(base, sort), 1))
                pages = 0 if first is None else int(json.loads(first)["meta"]["pages"])
                if fewest < 0 or pages < fewest:
                    chosen, fewest = word, pages
                if pages <= 1:
                    break
            return chosen
        return None

    def _all_rows(self, base: dict[str, str], sort: str) -> tuple[list[Row], dict[str, object]]:
        first = self._once(self.file(base, sort, 1))
        if first is None:
            return [], {}
        body = json.loads(first)
        rows = list(body["data"])
        for number in range(2, int(body["meta"]["pages"]) + 1):
            more = self._once(self.file(base, sort, number))
            if more is not None:
                rows += json.loads(more)["data"]
        return rows, body["meta"]

    def _keep(self, row: Row, values: dict[str, object]) -> bool:
        for name, value in values.items():
            flt = self.filters[name]
            if not primitives.of(flt).keep(flt, value, row):
                return False
        return True

    def _unanswerable(self, values: dict[str, object]) -> Answer | None:
        """A filter without files that rows do not carry is answered from the index only: with a filter the index
        does not hold, the query has no answer (a 404 naming both)."""
        unheld = [n for n in values if not primitives.of(self.filters[n]).indexable(self.filters[n], values[n])]
        for name in values:
            if not self.filters[name]["files"] and self.filters[name]["field"] is None and unheld:
                others = ", ".join(f"`{n}`" for n in unheld)
                return not_found(NOT_INDEXED.format(path=self.route["path"], name=name, others=others))
        return None

    def _comparator(self, sort: str):  # noqa: ANN202
        spec = self.route["sorts"][sort]
        keys = self.route["key"]

        def compare(a: Row, b: Row) -> int:
            x, y = get(a, spec["field"]), get(b, spec["field"])
            if spec["lower"]:
                x, y = (str(v).lower() if v is not None else None for v in (x, y))
            if x != y:
                if x is None or y is None:
                    return -1 if y is None else 1  # nulls last in both directions
                order = -1 if x < y else 1  # type: ignore[operator]
                return -order if spec["desc"] else order
            for key in keys:
                kx, ky = a[key], b[key]
                if kx != ky:
                    return -1 if kx < ky else 1  # type: ignore[operator]
            return 0

        return compare

    def faceted(self, values: dict[str, object]) -> list[str]:
        """The filters whose refinements of the answer page 1 counts, as a file's: those one filter deeper that
        the files publish (faceted, not applied, combinable with the applied ones)."""
        applied = {n for n in values if self.filters[n]["files"]}  # a filter without files narrows, no more
        return [f["name"] for f in self.route["filters"] if f["faceted"] and f["name"] not in values
                and f["field"] is not None and self.combines({*applied, f["name"]})]

    def page(self, data: list[Row], total: int, values: dict[str, object], sort: str, page: int,
             base_meta: dict[str, object], counts: dict[str, dict[object, int]] | None = None) -> Answer:
        """The answer's page ``page`` holding ``data``, of ``total`` rows in all; page 1 with the facets of
        ``counts`` (per faceted filter, its values' row counts in the answer)."""
        per_page = self.route["per_page"]
        pages = math.ceil(total / per_page)
        if page > max(pages, 1):
            return not_found(f"{self.route['path']}: page {page} is past the last page ({max(pages, 1)})")
        shown = {name: _shown(value) for name, value in values.items()}
        meta: dict[str, object] = {"total": total, "page": page, "per_page": per_page, "pages": pages, "sort": sort,
                                   "filters": shown}  # first, as a file's page has them
        meta.update({k: v for k, v in base_meta.items() if k not in meta and k not in ("facets", "facets_truncated")})
        for name, value in self.meta.items():
            meta.setdefault(name, value)

        def url(number: int, refined: dict[str, object] | None = None) -> str:
            asked = {**shown, **(refined or {})}
            query = [f"{n}={quote(str(asked[n]), safe='')}" for n in self.route["params"] if n in asked]
            return f"{self.route['path']}?" + "&".join([*query, f"sort={sort}", f"page={number}"])

        last = max(pages, 1)
        links = {"self": url(page), "first": url(1), "prev": url(page - 1) if page > 1 else None,
                 "next": url(page + 1) if page < last else None, "last": url(last)}
        if page == 1:  # as a file's page 1: the refinements with rows, most first, and the URL of each
            limit, facets, cut = self.route["facet_limit"], {}, []
            for name, found in (counts or {}).items():
                ordered = sorted(((v, n) for v, n in found.items() if n), key=lambda vn: (-vn[1], vn[0]))
                if ordered:
                    facets[name] = [{"value": v, "count": n, "url": url(1, {name: v})} for v, n in ordered[:limit]]
                if len(ordered) > limit:
                    cut.append(name)
            meta.update(facets=facets, facets_truncated=cut)
        return Answer(200, _dumps({"data": data, "meta": meta, "links": links}), JSON)


def _shown(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return " ".join(value)
    return value


