"""The query space: one JSON description of every parameter the API accepts, generated from the route registry and
the data, written into the output (``/api/query-space.json``) and read by every resolver (Python and JavaScript).

It says, per listing route: the parameters in declaration order; each filter's kind, the row field it tests,
whether it has files, and its values as its kind describes them (``generator.api.kinds``: a category's values with
their names and codes folded to slugs, ``"united-states" -> "us"``; a number's pattern, rounding, comparison and
rungs; a text's fields and prefix bounds; the problems of bad values), which the resolvers read with the primitives
of ``values.py``; the sorts with the row field each orders by; which combinations and sorts are published as files;
the page size.
Per detail route, export and document: their paths. Nothing here depends on a request.
"""

from __future__ import annotations

import re
import unicodedata

import duckdb

from generator.api.declared import VOCABULARIES, vocabulary
from generator.api.prefix_answers import plan
from generator.api.queries import base_meta
from generator.api.registry import (
    DETAIL_ROUTES,
    DOCUMENT_ROUTES,
    EXPORT_DATASET,
    EXPORT_FORMAT_ALIASES,
    EXPORT_FORMATS,
    EXPORT_ROUTE,
    FACET_LIMIT,
    LIST_ROUTES,
    PAGE_PARAM,
    SORT_PARAM,
    Filter,
    ListRoute,
)
from generator.api.rewrites import HEADERS
from generator.api.scattered import stem
from generator.dataset.countries import ALPHA3, COUNTRIES, COUNTRY_ALIASES
from generator.dataset.schema import TABLES, DatasetInfo

QUERY_SPACE_FILE = "/api/query-space.json"
VERSION = 1
TRACKING = ("utm_*", "fbclid", "gclid", "msclkid", "mc_cid", "mc_eid")
"""Parameters a link tracker adds: ignored by the front door (they never change an answer)."""
LEGAL_FORMS = ("ab", "ag", "as", "asa", "bv", "co", "corp", "corporation", "gmbh", "group", "holding", "holdings",
               "inc", "incorporated", "kk", "limited", "llc", "llp", "lp", "ltd", "nv", "oyj", "plc", "pte", "pty",
               "sa", "se", "spa", "the")
"""Words of a company's legal form (and "the") that a text query may carry without the name having them:
``q=Stripe Inc`` finds Stripe. Only dropped beside a word that is not one of them (``q=group`` is a word)."""
OPEN_DOMAINS = {"company": ("/api/companies/{value}.json", "slug")}
"""Filters whose values are resources too many to list: a value is known when its resource exists (by any of its
keys: ``company=1`` or ``company=Stripe``), and stands for the field of that resource the files use (its slug)."""
SUGGESTIONS = {("ipos", "status"): {"priced": "listed", "trading": "listed"}}
"""Words of other sources for a value (Nasdaq's "priced"): not values, but the 400 names the value meant."""
VALUE_SORTS = {("calendar", "when"): {"past": "-date"}}
"""A default order that follows a filter's value: past events newest first (unless ``sort`` says otherwise)."""


def slugify(text: str) -> str:
    """Case and accents folded, every run of other characters one hyphen: ``"S-1" -> "s-1"``,
    ``"Côte d'Ivoire" -> "cote-d-ivoire"``. The JavaScript resolver folds the same way."""
    decomposed = unicodedata.normalize("NFKD", text)  # every mark dropped (category M), as the JavaScript's \p{M}
    ascii_text = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M")).lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def _names(con: duckdb.DuckDBPyConnection, sql: str) -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for value, *others in con.execute(sql).fetchall():
        names.setdefault(value, []).extend(str(o) for o in others if o)
    return names


def _other_names(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, list[str]]]:
    """Display names and codes by filter name: what a person may write instead of a slug."""
    alpha3 = {code: a3.lower() for a3, code in ALPHA3.items()}
    countries = _names(con, "SELECT code, name FROM countries ORDER BY code")
    for code, found in countries.items():
        found += [n for n in (alpha3.get(code), COUNTRIES.get(code, ("",))[0]) if n]
        found += sorted(name for name, known in COUNTRY_ALIASES.items() if known == code)
    return {
        "sector": _names(con, "SELECT slug, name FROM sectors ORDER BY slug"),
        "country": countries,
        "exchange": _names(con, "SELECT slug, name, mic FROM exchanges ORDER BY slug"),
    }


def _initials(name: str) -> str:
    """The initials of a name of several words (``"Artificial Intelligence" -> "ai"``), else ''; not of a name
    that joins two things (``"Media & Entertainment"``: its initials abbreviate neither)."""
    found = [w for w in slugify(name).split("-") if w]
    joined = "&" in name or "and" in found
    return "".join(w[0] for w in found) if len(found) > 1 and not joined else ""


INITIALS = ("sector",)
"""Filters whose names of several words are also taken by their initials (``AI``): sectors. Not exchanges
(``ASE``, ``SET`` name other exchanges) nor countries (initials collide with ISO codes: South Korea is not SK)."""


def _aliases(values: list[str], names: dict[str, list[str]], initials: bool = False) -> dict[str, str]:
    """Folded spelling -> value, for every value and each of its names and codes; then, where no such spelling
    is the same, each of those without its separators (``"ecommerce"``, ``"seriesa"``, ``"s1"``) and, with
    ``initials``, the initials of a name of several words (``"ai"``). A spelling that would name two values is
    left out (ambiguous). The resolvers look a value up as folded, then without its separators."""
    exact: dict[str, set[str]] = {}
    loose: dict[str, set[str]] = {}
    for value in values:
        spellings = [value, *names.get(value, [])]
        for spelling in spellings:
            exact.setdefault(slugify(spelling), set()).add(value)
        for spelling in spellings:
            short = _initials(spelling) if initials and spelling != value else ""
            for derived in (slugify(spelling).replace("-", ""), short):
                loose.setdefault(derived, set()).add(value)
    found = {**{k: v for k, v in loose.items() if k not in exact}, **exact}
    return {alias: next(iter(v)) for alias, v in sorted(found.items()) if len(v) == 1 and alias}


def _field(route: ListRoute, flt: Filter) -> str | None:
    """The row field a filter tests in memory (dotted into a struct), or None when rows do not carry it."""
    column = flt.kind.row_field(flt)
    fields = route.model.model_fields
    if column in fields:
        return column
    head, _, tail = column.partition(".")
    return column if tail and head in fields else None


class _Vocabulary:
    """What the query space knows of a route's values beyond the registry (``kinds.Vocabulary``)."""

    def __init__(self, route: ListRoute, names: dict[str, dict[str, list[str]]]) -> None:
        self.route, self.names = route, names

    def text(self, flt: Filter) -> dict[str, object]:
        """The row fields whose words a text filter indexes (``name || ' ' || coalesce(ticker, '')``), and the
        words a query may carry that a name need not have."""
        fields = self.route.model.model_fields
        found = [word for word in re.findall(r"[a-z_]+", flt.column) if word in fields]
        return {"text_fields": found or ["name"], "optional_words": list(LEGAL_FORMS)}

    def choices(self, flt: Filter, values: list[str]) -> dict[str, object]:
        """A category's values by every spelling (or the resource that proves one), as written, and the words of
        other sources for them."""
        if flt.name in OPEN_DOMAINS:
            exists, canonical = OPEN_DOMAINS[flt.name]
            return {"exists": exists, "canonical": canonical}
        route, names = self.route, self.names.get(flt.name, {})
        declared = [str(v) for v in flt.domain] if isinstance(flt.domain, tuple) else []
        written = vocabulary(VOCABULARIES[route.name, flt.name]) if (route.name, flt.name) in VOCABULARIES else {}
        names = {**names, **{slug: [*names.get(slug, []), w] for slug, w in written.items() if w != slug}}
        entry: dict[str, object] = {"values": _aliases(sorted({*values, *declared, *written, *names}), names,
                                                       flt.name in INITIALS)}
        if any(w != slug for slug, w in written.items()):  # the 400 lists the values as written (``S-1/A``)
            entry["shown"] = {slug: w for slug, w in sorted(written.items()) if w != slug}
        if (route.name, flt.name) in SUGGESTIONS:
            entry["suggestions"] = SUGGESTIONS[route.name, flt.name]
        return entry


def _filter(route: ListRoute, flt: Filter, values: list[str], names: dict[str, dict[str, list[str]]]) -> dict:
    """A filter's description for the resolvers: its name, kind and row field, whether it has files and facets,
    and its values as its kind describes them (``kinds.Kind.describe``)."""
    return {"name": flt.name, "kind": flt.kind.name, "field": _field(route, flt), "multi": flt.multi,
            "sortable": flt.sortable, "files": flt.published, "faceted": flt.faceted,
            **flt.kind.describe(flt, values, _Vocabulary(route, names))}


KEY_FIELDS = {"search": ["type", "slug"], "trending": ["kind", "rank"]}
"""Routes whose unique key is made in SQL from row fields (``type || ':' || slug``): the fields, compared in turn,
which order the rows as that key does."""


def _key(route: ListRoute) -> list[str]:
    if route.key in route.model.model_fields:
        return [route.key]
    return KEY_FIELDS[route.name]


def _sorts(route: ListRoute) -> dict[str, dict[str, object]]:
    sorts: dict[str, dict[str, object]] = {}
    for value in route.sort_values:
        field, descending = route.sort_field(value)
        folded = field.expression.startswith("lower(")
        column = field.expression.removeprefix("lower(").removesuffix(")")
        sorts[value] = {"field": column, "desc": descending, "lower": folded, "files": field.published}
    return sorts


def _list_route(route: ListRoute, domains: dict[str, list[str]], names: dict[str, dict[str, list[str]]]) -> dict:
    return {
        "path": route.path, "key": _key(route), "per_page": route.per_page,
        "params": [*(f.name for f in route.filters), SORT_PARAM, PAGE_PARAM],
        "filters": [_filter(route, f, domains.get(f.name, []), names) for f in route.filters],
        "sorts": _sorts(route), "default_sort": route.default_sort, "sort_depth": route.sort_depth,
        "combinable": None if route.combinable is None and all(f.published for f in route.filters)
        else [[f.name for f in g] for g in route.file_groups],  # the combinations that have files
        "default_filters": dict(route.default_filters), "index": route.index_file, "prefixes": plan(route),
        "scattered": stem(route.name),
        "value_sorts": {name: sorts for (r, name), sorts in VALUE_SORTS.items() if r == route.name},
        "facet_limit": FACET_LIMIT,
    }


def query_space(con: duckdb.DuckDBPyConnection, info: DatasetInfo, domains: dict[str, dict[str, list[str]]],
                snapshot: dict[str, str] | None = None) -> dict:
    """The description; ``domains``: each listing's filter values that have files (from the build); ``snapshot``:
    the build's (``exports.snapshot``), which the hosts name in every /api/ response's ``Dataset-Snapshot``."""
    names = _other_names(con)
    return {
        "version": VERSION, "meta": base_meta(info), "tracking": list(TRACKING), "snapshot": snapshot,
        "routes": {r.name: _list_route(r, domains.get(r.name, {}), names) for r in LIST_ROUTES},
        "details": {r.name: {"path": r.path, "keys": list(r.key_names)} for r in DETAIL_ROUTES},
        "export": {"path": EXPORT_ROUTE.path, "formats": list(EXPORT_FORMATS), "format_aliases": EXPORT_FORMAT_ALIASES,
                   "tables": [t.name for t in TABLES], "dataset": EXPORT_DATASET,
                   "attachments": {rule.path: value for rule in HEADERS for name, value in rule.values
                                   if name == "Content-Disposition"}},
        "documents": {r.path: r.file for r in DOCUMENT_ROUTES},
    }
