"""A listing query answered: its values folded and checked, then one published file, or the rows of the smallest
published superset (its *bases*) filtered, sorted and paged in memory."""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from decimal import ROUND_CEILING, Decimal
from urllib.parse import quote

from generator.frontdoor.common import JSON, NUMBER, PAGE, Answer, Fetch, Invalid, _dumps, not_found, query_words, words
from generator.frontdoor.indexed import from_index
from generator.frontdoor.space import slugify

Row = dict[str, object]
TEXT_MAX = 200
"""Longest ``q`` (characters): the OpenAPI document's maxLength."""
MAX_BOUND = Decimal(2**53)
"""Above every valuation (the dataset's integers are at most 2^53 - 1): a larger bound means the same."""


def _get(row: Row, dotted: str) -> object:
    value: object = row
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _terms(row: Row, fields: list[str]) -> list[list[str]]:
    return [words(str(value)) for f in fields if (value := row.get(f)) is not None]


def text_matches(query: list[str], row: Row, fields: list[str], prefix: bool) -> bool:
    """Whole words (``prefix`` False): every word of the query is a word of a field, or the query's words
    glued together are one (``open ai`` finds OpenAI). Search (``prefix``): every word starts a word of a field,
    or the glued words do."""
    terms = [t for found in _terms(row, fields) for t in found]

    def hit(word: str) -> bool:
        return any(t.startswith(word) for t in terms) if prefix else word in terms

    return all(hit(w) for w in query) or hit("".join(query))


LISTED_MAX = 25
"""A filter with at most this many values lists them all in the problem of an unknown value."""


def unknown_hint(flt: dict, folded: str, where: str) -> str:
    """What a 400 for an unknown value says: the values it may have meant (another source's word for one, or those
    its separator-free spelling starts), every value when there are few (each as the dictionary writes it: ``S-1/A``),
    and where they are all listed."""
    canonical = sorted(set(flt.get("values", {}).values()))
    shown = flt.get("shown", {})
    compact = folded.replace("-", "")
    suggested = flt.get("suggestions", {}).get(compact)
    meant = [suggested] if suggested else [v for v in canonical if compact and v.replace("-", "").startswith(compact)]
    hint = f"did you mean {' or '.join(f'`{shown.get(v, v)}`' for v in meant)}? " if 0 < len(meant) <= 3 else ""
    if 0 < len(canonical) <= LISTED_MAX:
        return f"{hint}one of {', '.join(shown.get(v, v) for v in canonical)}; {where}"
    return hint + where


class Listing:
    def __init__(self, fetch: Fetch, route: dict, params: dict[str, str], meta: dict[str, object]) -> None:
        """``meta``: what every listing's ``meta`` carries whatever the query (``as_of``, ``disclaimer``)."""
        self.fetch, self.route, self.params, self.meta = fetch, route, params, meta
        self.filters = {f["name"]: f for f in route["filters"]}

    # values --------------------------------------------------------------------------------------------------
    def _value(self, flt: dict, raw: str) -> object:
        """The canonical value of one filter, or ``Invalid`` naming it."""
        name, kind = flt["name"], flt["kind"]
        where = f"see {self.route['path']}'s `{name}` in /api/query-space.json or /api/openapi"
        if not raw.strip():
            raise Invalid([{"name": name, "reason": "empty value"}], f"`{name}` is empty")
        if kind == "ladder":
            text = raw.strip()
            if not NUMBER.fullmatch(text) or text.startswith("-"):
                raise Invalid([{"name": name, "reason": "a non-negative number (e.g. 1500000000 or 1.5e9)"}],
                              f"`{name}`: {raw!r} is not a non-negative number")
            # valuations are whole dollars: a bound is the whole dollar at or above it (exact, and shown as such)
            return min(Decimal(text).to_integral_value(rounding=ROUND_CEILING), MAX_BOUND)
        if kind == "text":
            if len(raw) > TEXT_MAX:
                raise Invalid([{"name": name, "reason": f"at most {TEXT_MAX} characters"}], f"`{name}` is too long")
            found = query_words(raw, flt["optional_words"])
            if not found:
                raise Invalid([{"name": name, "reason": "no letters or digits"}], f"`{name}`: {raw!r} has no word")
            return found
        if kind == "year":
            text = raw.strip()
            if not re.fullmatch(r"[0-9]{4}", text):  # ASCII digits only ("²²²²" is not a year)
                raise Invalid([{"name": name, "reason": "a year, four digits"}], f"`{name}`: {raw!r} is not a year")
            return int(text)
        folded = slugify(raw)
        compact = folded.replace("-", "")  # separators dropped: "ecommerce", "seriesA", "U.K."
        padded = re.sub(r"-([0-9])$", r"-0\1", folded)  # a month written 2025-7 is 2025-07
        if "exists" in flt:  # a resource by any of its keys (``company=1``, ``company=Stripe``): the files' key
            found = self.fetch(flt["exists"].replace("{value}", folded)) if folded else None
            if found is not None:
                return json.loads(found)["data"][flt["canonical"]]
        elif folded in flt["values"]:
            return flt["values"][folded]
        elif compact in flt["values"]:
            return flt["values"][compact]
        elif "pattern" in flt and re.fullmatch(flt["pattern"], padded):
            return padded
        raise Invalid([{"name": name, "reason": f"unknown value {raw!r}: {unknown_hint(flt, folded, where)}"}],
                      f"`{name}`: unknown value {raw!r}")

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
        if len(names) <= self.route["sort_depth"] and all(self.filters[n]["sortable"] for n in names):
            return list(self.route["sorts"])
        return [self.route["default_sort"]]

    def file(self, filters: dict[str, str], sort: str, page: int) -> str:
        order = [f["name"] for f in self.route["filters"]]
        segments = [f"{n}={filters[n]}" for n in order if n in filters] or ["all"]
        return "/".join([self.route["path"], *segments, f"sort={sort},page={page}.json"])

    def _direct(self, values: dict[str, object], sort: str) -> dict[str, str] | None:
        """The file filters when one published file holds the answer, else None."""
        out: dict[str, str] = {}
        for name, value in values.items():
            flt = self.filters[name]
            if flt["kind"] == "ladder":
                if value not in [Decimal(r) for r in flt["ladder"]]:
                    return None
                out[name] = str(int(value))  # type: ignore[call-overload]
            elif flt["kind"] == "text":
                shortest, longest = flt["prefixes"] or (1, flt["word_max"])
                if len(value) != 1 or not shortest <= len(value[0]) <= longest:  # type: ignore[arg-type]
                    return None
                out[name] = value[0]  # type: ignore[index]
            else:
                out[name] = str(value)
        if not self.combines(set(out)) or sort not in self.sorts_for(set(out)):
            return None
        return out

    def _bases(self, values: dict[str, object]) -> list[dict[str, str]]:
        """Published supersets of the answer: its largest combinable set of exact filters (a ladder value lowered
        to its rung, a text query to the words a file indexes); with text, one base per word tried."""
        exact: dict[str, str] = {}
        text: list[str] | None = None
        text_name = ""
        for name, value in values.items():
            flt = self.filters[name]
            if flt["kind"] == "ladder":
                rungs = [r for r in flt["ladder"] if Decimal(r) <= value]  # type: ignore[operator]
                if rungs:
                    exact[name] = str(max(rungs))
            elif flt["kind"] == "text":
                shortest, longest = flt["prefixes"] or (1, flt["word_max"])
                glued = "".join(value)  # type: ignore[arg-type]
                tried = [max(value, key=len), glued]  # type: ignore[type-var]
                text = sorted({w[:longest] for w in tried if len(w) >= shortest})
                if len(text) < 2 and flt["prefixes"] and any(len(w) < shortest for w in tried):
                    text = None  # a word shorter than any indexed prefix: every row is a candidate
                text_name = name
            else:
                exact[name] = str(value)
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
        indexed = from_index(self, values, sort, page)
        if indexed is not None:
            return indexed
        rows: dict[object, Row] = {}
        meta: dict[str, object] = {}
        for base in self._bases(values):
            base_sort = sort if sort in self.sorts_for(set(base)) else self.route["default_sort"]
            found, base_meta = self._all_rows(base, base_sort)
            meta = meta or base_meta
            for row in found:
                rows.setdefault(tuple(row[k] for k in self.route["key"]), row)  # type: ignore[arg-type]
        chosen = [row for row in rows.values() if self._keep(row, values)]
        chosen.sort(key=functools.cmp_to_key(self._comparator(sort)))
        per_page = self.route["per_page"]
        counts = {name: _counts(self.filters[name], chosen) for name in self.faceted(values) if page == 1}
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

    def _all_rows(self, base: dict[str, str], sort: str) -> tuple[list[Row], dict[str, object]]:
        first = self.fetch(self.file(base, sort, 1))
        if first is None:
            return [], {}
        body = json.loads(first)
        rows = list(body["data"])
        for number in range(2, int(body["meta"]["pages"]) + 1):
            more = self.fetch(self.file(base, sort, number))
            if more is not None:
                rows += json.loads(more)["data"]
        return rows, body["meta"]

    def _keep(self, row: Row, values: dict[str, object]) -> bool:
        for name, value in values.items():
            flt = self.filters[name]
            if flt["kind"] == "text":
                if not text_matches(value, row, flt["text_fields"], bool(flt["prefixes"])):  # type: ignore[arg-type]
                    return False
                continue
            if flt["field"] is None:
                continue  # held by every base (a filter rows do not carry is always in the base)
            found = _get(row, flt["field"])
            if flt["kind"] == "ladder":
                if found is None or Decimal(str(found)) < value:  # type: ignore[operator]
                    return False
            elif flt["multi"]:
                if not isinstance(found, list) or value not in found:
                    return False
            elif found != value:
                return False
        return True

    def _comparator(self, sort: str):  # noqa: ANN202
        spec = self.route["sorts"][sort]
        keys = self.route["key"]

        def compare(a: Row, b: Row) -> int:
            x, y = _get(a, spec["field"]), _get(b, spec["field"])
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
        the files publish (every kind but text, not applied, combinable with the applied ones)."""
        return [f["name"] for f in self.route["filters"] if f["kind"] != "text" and f["name"] not in values
                and f["field"] is not None and self.combines({*values, f["name"]})]

    def page(self, data: list[Row], total: int, values: dict[str, object], sort: str, page: int,
             base_meta: dict[str, object], counts: dict[str, dict[object, int]] | None = None) -> Answer:
        """The answer's page ``page`` holding ``data``, of ``total`` rows in all; page 1 with the facets of
        ``counts`` (per faceted filter, its values' row counts in the answer)."""
        per_page = self.route["per_page"]
        pages = math.ceil(total / per_page)
        if page > max(pages, 1):
            return not_found(f"{self.route['path']}: page {page} is past the last page ({max(pages, 1)})")
        shown = {name: _shown(value) for name, value in values.items()}
        meta = {k: v for k, v in base_meta.items() if k not in ("facets", "facets_truncated")}
        meta.update(total=total, page=page, per_page=per_page, pages=pages, sort=sort, filters=shown)
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


def _counts(flt: dict, rows: list[Row]) -> dict[object, int]:
    """How many of ``rows`` each value of a filter matches (a ladder's: each rung at or below a row's number)."""
    counts: dict[object, int] = {}
    for row in rows:
        found = _get(row, flt["field"])
        if flt["kind"] == "ladder":
            keys = [r for r in flt["ladder"] if found is not None and Decimal(str(found)) >= r]
        elif flt["multi"]:
            keys = sorted(set(found)) if isinstance(found, list) else []
        else:
            keys = [] if found is None else [found]
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    return counts


def _shown(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return " ".join(value)
    return value


