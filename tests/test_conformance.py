"""Conformance: Netlify's own matcher, ``serve`` and the nginx mirror land on the same file with the same status.

The table of URLs is generated from the route registry, so it grows with it: for every listing, its query
forms (each filter alone with a real value of the build, the pairs and the whole of each group of filters that
combine, filters that do not combine, sorts, pages, extra, reordered, repeated, bare and empty parameters,
unknown values); for every detail route, each key form and an unknown key; then the catch-alls. Each URL
carries the file and status the API contract (BRIEF section 3) says it must give; three implementations are
held to it:

- Netlify: ``tests/netlify/resolve.mjs`` (``@netlify/redirect-parser`` + ``netlify-redirector``, run once);
- ``serve``: over HTTP (status and body bytes) and through ``Site.resolve`` (the exact file);
- nginx: the generated config, run on a free loopback port (status, body bytes and API headers).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from generator.api.registry import (
    DETAIL_ROUTES,
    DOCUMENT_ROUTES,
    EXPORT_ROUTE,
    PAGE_PARAM,
    SORT_PARAM,
    DetailRoute,
    DocumentRoute,
    ExportRoute,
    Filter,
    ListRoute,
)
from generator.api.registry import (
    FILE_ROUTES as LIST_ROUTES,
)
from generator.api.registry import (
    LIST_ROUTES as DECLARED_ROUTES,
)
from generator.api.rewrites import CONTENT_TYPES, HEADERS, NOT_FOUND_FILE, SITE_404_FILE, headers_for, rules
from generator.hosts import configs
from generator.hosts.serve import Site

from .conftest import ROOT, Served

RESOLVE = ROOT / "tests" / "netlify" / "resolve.mjs"
UNKNOWN_PARAM = "utm_source"
UNKNOWN_VALUE = "no-such-value-0"
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")

# What a URL is meant to give; the table checks the build agrees before any host is asked.
OK = "ok"  # the canonical file, 200
PROBLEM = "problem"  # a problem document served with 404 by a rule
MISSING = "missing"  # no such file: the site's 404 page


@dataclass(frozen=True)
class Case:
    url: str
    file: str
    status: int
    note: str
    problem: str | None = None
    """Set when the build does not match the intent of the case (reported by ``test_table_is_sound``)."""


@dataclass
class Build:
    """Facts read back from a built folder: filter values, page counts, detail keys."""

    root: Path
    _values: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def exists(self, url_path: str) -> bool:
        """Whether a file is deployed at exactly this path (none has an empty segment)."""
        return "//" not in url_path and (self.root / url_path.lstrip("/")).is_file()

    def meta(self, url_path: str) -> dict:
        return json.loads((self.root / url_path.lstrip("/")).read_bytes())["meta"]

    def values(self, route: ListRoute, flt: Filter) -> list[str]:
        """Values of ``flt`` with a published page 1, most results first (ties by value)."""
        if (route.name, flt.name) not in self._values:
            self._values[route.name, flt.name] = self._read_values(route, flt)
        return self._values[route.name, flt.name]

    def _read_values(self, route: ListRoute, flt: Filter) -> list[str]:
        folder = self.root / route.path.lstrip("/")
        prefix = f"{flt.name}="
        found = []
        for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
            if entry.is_dir() and entry.name.startswith(prefix):
                value = entry.name[len(prefix):]
                page = route.file_path({flt.name: value}, route.default_sort, 1)
                if self.exists(page):
                    found.append((-self.meta(page).get("total", 0), value))
        return [value for _, value in sorted(found)]

    def value(self, route: ListRoute, flt: Filter) -> str | None:
        values = self.values(route, flt)
        return values[0] if values else None

    def pages(self, route: ListRoute, filters: dict[str, str], sort: str) -> int:
        first = route.file_path(filters, sort, 1)
        return int(self.meta(first)["pages"]) if self.exists(first) else 0

    def detail_keys(self, route: DetailRoute) -> dict[str, str]:
        """One resource of the route: its value of every key name."""
        folder = self.root / route.path.lstrip("/")
        for entry in sorted(folder.glob("*.json")):
            data = json.loads(entry.read_bytes()).get("data")
            if isinstance(data, dict) and all(name in data for name in route.key_names):
                return {name: str(data[name]) for name in route.key_names}
        return {}


def expected_target(route: ListRoute, params: dict[str, str]) -> tuple[str, int]:
    """The contract of a listing URL, read from the registry (not from the rules): file and rule status.

    Filters that no group of ``route.groups`` holds together give the route's combination problem (404);
    filters that all sit in one group give their file; the route's default filters apply when none is named."""
    named = [f.name for f in route.filters if f.name in params]
    groups = [{f.name for f in group} for group in route.groups]
    if not any(set(named) <= g for g in groups):
        return route.combination_error, 404
    by_name = {f.name: f for f in route.filters}
    if SORT_PARAM in params and len(route.sort_values) > 1 and (
        len(named) > route.sort_depth or not all(by_name[n].sortable for n in named)
    ):
        return route.combination_error, 404  # such results come in the default order only
    sort = params.get(SORT_PARAM, route.default_sort)
    page = params.get(PAGE_PARAM, "1")
    filters = {name: params[name] for name in named} or dict(route.default_filters)
    return route.file_path(filters, sort, page), 200


Params = list[tuple[str, str | None]]
"""Query parameters in URL order; ``None`` writes the bare name without ``=``."""


def query_string(params: Params) -> str:
    return "&".join(name if value is None else f"{name}={value}" for name, value in params)


class Table:
    """Builds the cases of one spec against a build."""

    def __init__(self, build: Build) -> None:
        self.build = build
        self.cases: list[Case] = []

    def _add(self, url: str, file: str, status: int, note: str, intent: str, target: str, exists: bool) -> None:
        problem = None
        if intent == OK and not (exists and status == 200):
            problem = f"expected the build to have {target} (200)"
        elif intent == PROBLEM and not (exists and status == 404):
            problem = f"expected the problem file {target} (404)"
        elif intent == MISSING and exists:
            problem = f"expected no file at {target}"
        self.cases.append(Case(url, file, status, note, problem))

    def listing(self, route: ListRoute, params: Params, intent: str, note: str, path: str | None = None,
                encoded: bool = False) -> None:
        """``encoded``: the URL spells every character of each value as its percent-escape."""
        effective = {name: value for name, value in params if value is not None}  # the last repeated key wins
        target, status = expected_target(route, effective)
        exists = self.build.exists(target)
        query = query_string([(n, _percent(v) if encoded and v is not None else v) for n, v in params])
        url = (path or route.path) + (f"?{query}" if query else "")
        self._add(url, target if exists else SITE_404_FILE, status if exists else 404, note, intent, target, exists)

    def intended(self, route: ListRoute, params: Params, note: str, encoded: bool = False) -> None:
        """A listing URL whose intent follows from the contract: its file, or the combination problem."""
        effective = {name: value for name, value in params if value is not None}
        _, status = expected_target(route, effective)
        self.listing(route, params, OK if status == 200 else PROBLEM, note, encoded=encoded)

    def direct(self, url: str, target: str, status: int, intent: str, note: str) -> None:
        """A URL whose answer is ``target`` with ``status`` when that file exists, else the site's 404 page."""
        exists = self.build.exists(target)
        self._add(url, target if exists else SITE_404_FILE, status if exists else 404, note, intent, target, exists)


# The specs: one per (route, kind of URL), known at collection time; the URLs come from the build. -------------


def _chosen(t: Table, route: ListRoute, filters: list[Filter]) -> list[tuple[str, str]]:
    """The value with most results of each filter that has one in the build, in the given order."""
    out = []
    for flt in filters:
        value = t.build.value(route, flt)
        if value is not None:
            out.append((flt.name, value))
    return out


def _together(t: Table, route: ListRoute, filters: list[Filter]) -> list[tuple[str, str]]:
    """Values of these filters that have rows together, found as a client would: the first filter's value with
    most results, then each next filter's most frequent refinement in ``meta.facets`` of the result so far."""
    out: list[tuple[str, str]] = []
    for flt in filters:
        if not out or not flt.faceted:
            value = t.build.value(route, flt)
        else:
            page = route.file_path(dict(out), route.default_sort, 1)
            buckets = t.build.meta(page).get("facets", {}).get(flt.name, []) if t.build.exists(page) else []
            value = str(buckets[0]["value"]) if buckets else None
        if value is not None:
            out.append((flt.name, value))
    return out


def _incompatible(route: ListRoute) -> list[tuple[Filter, ...]]:
    """Smallest sets of filters that no group contains (computed here independently of the registry)."""
    groups = [set(group) for group in route.groups]
    found: list[tuple[Filter, ...]] = []
    for size in range(2, len(route.filters) + 1):
        for combo in itertools.combinations(route.filters, size):
            if any(set(combo) <= g for g in groups) or any(set(f) <= set(combo) for f in found):
                continue
            found.append(combo)
    return found


def spec_plain(t: Table, route: ListRoute) -> None:
    default = route.file_path(dict(route.default_filters), route.default_sort, 1)
    t.listing(route, [], OK, "no query")
    t.listing(route, [], OK, "trailing slash", path=route.path + "/")
    t.listing(route, [(UNKNOWN_PARAM, "x")], OK, "unknown parameter only")
    t.direct(default, default, 200, OK, "path-style file URL")


def spec_each_filter(t: Table, route: ListRoute) -> None:
    for flt in route.filters:
        values = t.build.values(route, flt)
        for value in values[:2]:
            t.listing(route, [(flt.name, value)], OK, f"{flt.name} alone")
        for sort in route.sort_values[:1] + route.sort_values[-1:] if values else ():
            t.intended(route, [(flt.name, values[0]), (SORT_PARAM, sort), (PAGE_PARAM, "1")],
                       f"{flt.name}, sort and page")


def spec_every_value(t: Table, route: ListRoute) -> None:
    """Every published value of every filter, alone (text filters: their first 40 prefixes)."""
    for flt in route.filters:
        values = t.build.values(route, flt)
        for value in values[:40] if flt.kind.name == "text" else values:
            t.listing(route, [(flt.name, value)], OK, f"{flt.name}={value}")


def spec_groups(t: Table, route: ListRoute) -> None:
    """Filters that combine: every pair of a group, then the whole group with sort and page, in both orders."""
    for group in route.groups:
        chosen = _together(t, route, list(group))
        sort = route.sort_values[-1]
        for pair in itertools.combinations(chosen, 2):
            t.listing(route, list(pair), OK, "pair of filters")
            t.listing(route, list(reversed(pair)), OK, "pair of filters, reordered")
            t.intended(route, [*pair, (SORT_PARAM, sort)], "pair of filters and a sort")
        if len(chosen) < 3:
            continue
        t.listing(route, chosen, OK, "a whole group")
        t.intended(route, [*chosen, (SORT_PARAM, sort), (PAGE_PARAM, "1")], "a whole group, sort and page")
        t.intended(route, [(PAGE_PARAM, "1"), (SORT_PARAM, sort), *reversed(chosen)], "all of it, reordered")
        t.listing(route, [*chosen, (PAGE_PARAM, "1"), (UNKNOWN_PARAM, "x")], OK,
                  "a whole group, page and an unknown parameter")


def spec_facets(t: Table, route: ListRoute) -> None:
    """The refinements that page 1 of the default listing offers: each facet URL (the file), and the same
    query in query-string form, for the first values of every facet."""
    first = route.file_path(dict(route.default_filters), route.default_sort, 1)
    if not t.build.exists(first):
        return
    meta = t.build.meta(first)
    for name, buckets in meta.get("facets", {}).items():
        for bucket in buckets[:3]:
            t.direct(bucket["url"], bucket["url"], 200, OK, f"facet {name}={bucket['value']}: its URL")
            params = [*((k, str(v)) for k, v in meta["filters"].items()), (name, str(bucket["value"]))]
            t.listing(route, params, OK, f"facet {name}={bucket['value']} as a query")


def spec_incompatible(t: Table, route: ListRoute) -> None:
    """Filters that do not combine get the route's problem document, whatever the order and values."""
    for combo in _incompatible(route):
        values = [(f.name, t.build.value(route, f) or UNKNOWN_VALUE) for f in combo]
        names = " with ".join(f.name for f in combo)
        t.listing(route, values, PROBLEM, names)
        t.listing(route, [*values[:0:-1], (SORT_PARAM, route.default_sort), values[0]], PROBLEM,
                  f"{names}, reordered, sorted")
        t.listing(route, [*values[:-1], (combo[-1].name, "")], PROBLEM, f"{names}, the last one empty")
        t.listing(route, [*((f.name, UNKNOWN_VALUE) for f in combo), (PAGE_PARAM, "2")], PROBLEM,
                  "unknown values do not matter")
    chosen = _chosen(t, route, list(route.filters))
    t.intended(route, chosen, "every filter of the route")


def spec_sorts(t: Table, route: ListRoute) -> None:
    for sort in route.sort_values:
        t.listing(route, [(SORT_PARAM, sort)], OK, "sort")
        t.listing(route, [(PAGE_PARAM, "1"), (SORT_PARAM, sort)], OK, "sort and page 1, reordered")


def spec_pages(t: Table, route: ListRoute) -> None:
    defaults = dict(route.default_filters)
    pages = t.build.pages(route, defaults, route.default_sort)
    t.listing(route, [(PAGE_PARAM, "1")], OK, "page 1")
    if pages >= 2:
        t.listing(route, [(PAGE_PARAM, "2")], OK, "page 2")
        t.listing(route, [(PAGE_PARAM, str(pages)), (SORT_PARAM, route.default_sort)], OK, "last page")
    t.listing(route, [(PAGE_PARAM, str(pages + 1))], MISSING, "page beyond the last")
    for name, value in _chosen(t, route, list(route.filters)):
        filtered = t.build.pages(route, {name: value}, route.default_sort)
        if filtered >= 2:
            t.listing(route, [(PAGE_PARAM, "2"), (name, value)], OK, f"{name} and page 2")
        t.listing(route, [(name, value), (PAGE_PARAM, str(filtered + 1))], MISSING, f"{name}, beyond the last")


def spec_odd_parameters(t: Table, route: ListRoute) -> None:
    for flt in route.filters:
        values = t.build.values(route, flt)
        if not values:
            continue
        last, other = values[0], values[-1] if len(values) > 1 else UNKNOWN_VALUE
        t.listing(route, [(flt.name, other), (flt.name, last)], OK, "repeated key: the last wins")
        t.listing(route, [(flt.name, last), (flt.name, None)], OK, "repeated key, then bare: the bare one ignored")
        t.listing(route, [(UNKNOWN_PARAM, "1"), (flt.name, last), ("x", "")], OK, "extra parameters around")
        t.listing(route, [(flt.name, None)], OK, "bare name without '=': not present")
    t.listing(route, [(SORT_PARAM, "nope"), (SORT_PARAM, route.sort_values[0])], OK, "repeated sort: the last wins")


def _percent(text: str) -> str:
    return "".join(f"%{byte:02X}" for byte in text.encode())


def spec_encoded(t: Table, route: ListRoute) -> None:
    """Values with every character percent-encoded (``type=%6C%69...``): decoded before matching on every host (the
    nginx mirror once decoded at most 12 escapes and answered 404). Each filter at its longest published value, then
    values of the route's largest group that have rows together, with page 1."""
    for flt in route.filters:
        values = t.build.values(route, flt)
        if values:
            longest = max(values, key=lambda v: (len(v), v))
            t.listing(route, [(flt.name, longest)], OK, "every character percent-encoded", encoded=True)
    together = _together(t, route, list(max(route.groups, key=len)))
    if len(together) > 1:
        t.intended(route, [*together, (PAGE_PARAM, "1")], "a group, percent-encoded", encoded=True)


def spec_bad_values(t: Table, route: ListRoute) -> None:
    for flt in route.filters:
        t.listing(route, [(flt.name, "")], MISSING, "empty value")
        t.listing(route, [(flt.name, UNKNOWN_VALUE)], MISSING, "unknown value")
        value = t.build.value(route, flt)
        if value is not None and value.upper() != value:
            t.listing(route, [(flt.name, value.upper())], MISSING, "values are case-sensitive")
    for name, value in ((SORT_PARAM, ""), (SORT_PARAM, "nope"), (PAGE_PARAM, ""), (PAGE_PARAM, "0"),
                        (PAGE_PARAM, "x")):
        t.listing(route, [(name, value)], MISSING, f"bad {name}")


def spec_detail(t: Table, route: DetailRoute) -> None:
    keys = t.build.detail_keys(route)
    for name in route.key_names:
        if name not in keys:
            continue
        key = keys[name]
        target = route.file_path(key)
        t.direct(f"{route.path}/{key}", target, 200, OK, f"by {name}")
        t.direct(f"{route.path}/{key}/", target, 200, OK, f"by {name}, trailing slash")
        t.direct(f"{route.path}/{key}?{UNKNOWN_PARAM}=x", target, 200, OK, f"by {name}, with a query")
        t.direct(target, target, 200, OK, f"by {name}, the file itself")
    t.direct(f"{route.path}/{UNKNOWN_VALUE}", route.file_path(UNKNOWN_VALUE), 200, MISSING, "unknown key")
    t.direct(f"{route.path}/{UNKNOWN_VALUE}/x", NOT_FOUND_FILE, 404, PROBLEM, "below a key: the catch-all")


def spec_document(t: Table, route: DocumentRoute) -> None:
    t.direct(route.path, route.file, 200, OK, "extensionless path")
    t.direct(f"{route.path}/", route.file, 200, OK, "trailing slash")
    t.direct(f"{route.path}?{UNKNOWN_PARAM}=x", route.file, 200, OK, "with a query")
    t.direct(route.file, route.file, 200, OK, "the file itself")


def spec_export(t: Table, route: ExportRoute) -> None:
    t.direct(route.path, route.index_path(), 200, OK, "no query: the manifest")
    t.direct(f"{route.path}?table=companies", route.table_without_format_error, 404, PROBLEM,
             "table without format: a problem")
    for export_format in route.formats:
        folder = t.build.root / "api" / "export" / export_format
        tables = sorted(p.stem for p in folder.glob(f"*.{export_format}") if p.stem != "dataset")
        dataset = route.dataset_path(export_format)
        t.direct(f"{route.path}?format={export_format}", dataset, 200, OK, "format alone: the whole dataset")
        t.direct(f"{route.path}?{UNKNOWN_PARAM}=1&format={export_format}", dataset, 200, OK,
                 "the whole dataset, extra parameter")
        t.direct(dataset, dataset, 200, OK, "the whole dataset, the file itself")
        for table in tables[:2]:
            target = route.file_path(export_format, table)
            t.direct(f"{route.path}?format={export_format}&table={table}", target, 200, OK, "a table")
            t.direct(f"{route.path}?table={table}&format={export_format}", target, 200, OK, "a table, reordered")
            t.direct(target, target, 200, OK, "a table, the file itself")
        t.direct(f"{route.path}?format={export_format}&table={UNKNOWN_VALUE}",
                 route.file_path(export_format, UNKNOWN_VALUE), 200, MISSING, "unknown table")
    t.direct(f"{route.path}?format={UNKNOWN_VALUE}", route.unknown_format_error, 404, PROBLEM, "unknown format")
    t.direct(f"{route.path}?format=", route.unknown_format_error, 404, PROBLEM, "empty format: unknown")


def spec_site(t: Table) -> None:
    t.direct("/api/unknown", NOT_FOUND_FILE, 404, PROBLEM, "unknown endpoint")
    t.direct("/api/unknown/deeper?sector=x", NOT_FOUND_FILE, 404, PROBLEM, "unknown endpoint, deeper")
    t.direct("/api", NOT_FOUND_FILE, 404, PROBLEM, "/api itself matches /api/*")
    t.direct("/api/", NOT_FOUND_FILE, 404, PROBLEM, "/api/")
    t.direct("/no-such-page", "/no-such-page", 200, MISSING, "outside /api, no rule: the site's 404 page")
    t.direct(SITE_404_FILE, SITE_404_FILE, 200, OK, "the 404 page itself is a file")
    t.direct(NOT_FOUND_FILE, NOT_FOUND_FILE, 200, OK, "a problem file itself is a file")


@dataclass(frozen=True)
class Spec:
    id: str
    fill: Callable[[Table], None]


def _specs() -> list[Spec]:
    out = []
    list_kinds = {
        "plain": spec_plain, "each-filter": spec_each_filter, "every-value": spec_every_value,
        "groups": spec_groups, "facets": spec_facets,
        "incompatible": spec_incompatible, "sorts": spec_sorts, "pages": spec_pages,
        "odd-parameters": spec_odd_parameters, "bad-values": spec_bad_values, "encoded": spec_encoded,
    }
    for route in LIST_ROUTES:
        for kind, fill in list_kinds.items():
            if kind == "incompatible" and not _incompatible(route):
                continue
            if kind == "groups" and all(len(group) < 2 for group in route.groups):
                continue
            if kind == "facets" and not any(f.faceted and f.name not in dict(route.default_filters)
                                            for f in route.filters):
                continue
            if kind in ("each-filter", "every-value", "odd-parameters", "encoded") and not route.filters:
                continue
            out.append(Spec(f"{route.name}:{kind}", functools.partial(fill, route=route)))
    out.append(Spec(f"{EXPORT_ROUTE.name}:export", functools.partial(spec_export, route=EXPORT_ROUTE)))
    for document in DOCUMENT_ROUTES:
        out.append(Spec(f"{document.name}:document", functools.partial(spec_document, route=document)))
    for detail in DETAIL_ROUTES:
        out.append(Spec(f"{detail.name}:detail", functools.partial(spec_detail, route=detail)))
    out.append(Spec("site", spec_site))
    return out


SPECS = _specs()
SPEC_IDS = [spec.id for spec in SPECS]


EMBEDDED_TABLE = os.environ.get("CONFORMANCE_DATASET") == "embedded"
"""``CONFORMANCE_DATASET=embedded`` runs the table on the embedded dataset instead of the tiny fixture."""


@pytest.fixture(scope="session")
def conformance_build(request: pytest.FixtureRequest) -> Path:
    """The build the table runs on (by default the tiny fixture: small enough to serve three ways in seconds)."""
    return request.getfixturevalue("embedded_build" if EMBEDDED_TABLE else "tiny_build")


@pytest.fixture(scope="session")
def conformance_site(request: pytest.FixtureRequest) -> Served:
    """``serve`` on ``conformance_build``."""
    return request.getfixturevalue("site" if EMBEDDED_TABLE else "tiny_site")


@pytest.fixture(scope="session")
def table(conformance_build: Path) -> dict[str, list[Case]]:
    build = Build(conformance_build)
    out = {}
    for spec in SPECS:
        t = Table(build)
        spec.fill(t)
        out[spec.id] = t.cases
    return out


def all_cases(table: dict[str, list[Case]]) -> list[Case]:
    return [case for cases in table.values() for case in cases]


def checked(table: dict[str, list[Case]], spec: str) -> list[Case]:
    """The cases of a spec the hosts are held to: those whose intent the build meets (the others fail
    ``test_table_is_sound``, which names them; what a host gives for them is not specified)."""
    return [case for case in table[spec] if case.problem is None]


def _split(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.path, parts.query


# Netlify ----------------------------------------------------------------------------------------------------------


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: Netlify's matcher runs on node (scripts/test sets it up)")
    if not (ROOT / "node_modules" / "@netlify" / "redirect-parser").is_dir():
        pytest.fail("node_modules is missing: run `npm ci` (scripts/test does)")
    return node


def run_resolve(toml: Path, publish: Path, requests: list[dict[str, str]]) -> list[dict]:
    done = subprocess.run(
        [_node(), str(RESOLVE), str(toml), str(publish)],
        input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert done.returncode == 0, f"resolve.mjs failed:\n{done.stderr}"
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests)
    return answers


@pytest.fixture(scope="session")
def netlify(table: dict[str, list[Case]], conformance_build: Path, tmp_path_factory: pytest.TempPathFactory,
            ) -> dict[str, dict]:
    """Netlify's answer for every URL of the table, from one run of its parser and matcher."""
    toml = tmp_path_factory.mktemp("netlify") / "netlify.toml"
    toml.write_text(configs.netlify_toml(), encoding="utf-8")
    urls = sorted({case.url for case in all_cases(table)})
    requests = [dict(zip(("path", "query"), _split(url), strict=True)) for url in urls]
    return dict(zip(urls, run_resolve(toml, conformance_build, requests), strict=True))


# nginx ------------------------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_nginx(nginx: str, conf: Path, prefix: Path, port: int) -> subprocess.Popen[bytes] | None:
    log = (prefix / "stderr.log").open("wb")
    process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix), "-e", "stderr"], stdout=log, stderr=log)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return None
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    process.wait()
    return None


@pytest.fixture(scope="session")
def nginx_site(conformance_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    nginx = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/sbin/nginx") if Path(p).exists()), None)
    if nginx is None:
        pytest.skip("nginx is not installed (scripts/test installs it): the nginx mirror is not checked")
    for _attempt in range(3):  # a free port may be taken between the probe and nginx's bind
        prefix = tmp_path_factory.mktemp("nginx")
        port = _free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(configs.nginx_conf(conformance_build, port), encoding="utf-8")
        process = _start_nginx(nginx, conf, prefix, port)
        if process is not None:
            break
    else:
        pytest.fail(f"nginx did not start:\n{(prefix / 'stderr.log').read_text(errors='replace')}")
    try:
        yield Served(conformance_build, f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# The checks -------------------------------------------------------------------------------------------------------


def _report(failures: list[str], cases: list[Case]) -> None:
    assert not failures, f"{len(failures)} of {len(cases)} URLs differ:\n" + "\n".join(failures)


def test_table_is_sound(table: dict[str, list[Case]], conformance_build: Path) -> None:
    """Every URL gives what its kind promises on this build (a real value really has a file, and so on)."""
    problems = [f"{case.url} ({case.note}): {case.problem}" for case in all_cases(table) if case.problem]
    assert not problems, "\n".join(problems)
    build = Build(conformance_build)
    odd = [f"{route.name}: {flt.name}={value}" for route in LIST_ROUTES for flt in route.filters
           for value in build.values(route, flt) if not SLUG.match(value)]
    assert not odd, "filter values must be lowercase slugs, to survive every host's encoding: " + ", ".join(odd)
    for spec_id, cases in table.items():
        assert cases, f"{spec_id}: no URL on this build"


def test_table_covers_every_route(table: dict[str, list[Case]]) -> None:
    for route in LIST_ROUTES:
        assert table[f"{route.name}:plain"], route.name
    for route in DETAIL_ROUTES:
        assert any(case.status == 200 for case in table[f"{route.name}:detail"]), f"{route.name}: no resource"


@pytest.mark.parametrize("spec", SPEC_IDS)
def test_netlify(spec: str, table: dict[str, list[Case]], netlify: dict[str, dict], conformance_build: Path) -> None:
    cases = checked(table, spec)
    failures = []
    for case in cases:
        answer = netlify[case.url]
        if (answer["file"], answer["status"]) != (case.file, case.status):
            failures.append(f"  {case.url} ({case.note}): expected {case.status} {case.file}, Netlify gives "
                            f"{answer['status']} {answer['file']} (rule target {answer.get('to')})")
        elif case.status == 200:
            assert (conformance_build / case.file.lstrip("/")).is_file()
    _report(failures, cases)


def _expected_headers(case: Case) -> dict[str, str]:
    """Content-Type by the file served, then the [[headers]] of the request path and of the file served."""
    path = _split(case.url)[0]
    out = {"Content-Type": CONTENT_TYPES.get(Path(case.file).suffix, "application/octet-stream")}
    return {**out, **headers_for(path), **headers_for(case.file)}


HEADER_NAMES = sorted({"Content-Type", *(name for rule in HEADERS for name, _ in rule.values)})


@pytest.mark.parametrize("spec", SPEC_IDS)
def test_serve(spec: str, table: dict[str, list[Case]], conformance_site: Served, conformance_build: Path) -> None:
    assert conformance_site.root == conformance_build
    site = Site(conformance_build)
    cases = checked(table, spec)
    failures = []
    for case in cases:
        status, file, _ = site.resolve(*_split(case.url))
        served = "/" + file.relative_to(site.root).as_posix() if file else None
        response = conformance_site.get(case.url)
        body = (conformance_build / case.file.lstrip("/")).read_bytes()
        if (status, served) != (case.status, case.file):
            failures.append(f"  {case.url} ({case.note}): expected {case.status} {case.file}, Site.resolve gives "
                            f"{status} {served}")
        elif (response.status, response.body) != (case.status, body):
            failures.append(f"  {case.url} ({case.note}): expected {case.status} {case.file}, HTTP gives "
                            f"{response.status} with another body")
    _report(failures, cases)


@pytest.mark.parametrize("spec", SPEC_IDS)
def test_nginx(spec: str, table: dict[str, list[Case]], nginx_site: Served, conformance_build: Path) -> None:
    cases = checked(table, spec)
    failures = []
    for case in cases:
        response = nginx_site.get(case.url)
        body = (conformance_build / case.file.lstrip("/")).read_bytes()
        if (response.status, response.body) != (case.status, body):
            failures.append(f"  {case.url} ({case.note}): expected {case.status} {case.file}, nginx gives "
                            f"{response.status} {response.body[:80]!r}")
            continue
        expected = _expected_headers(case)
        got = {name: response.headers.get(name) for name in HEADER_NAMES}
        want = {name: expected.get(name) for name in HEADER_NAMES}
        if got != want:
            failures.append(f"  {case.url} ({case.note}): headers {got} != {want}")
    _report(failures, cases)


def test_nginx_answers_options_like_serve(nginx_site: Served, conformance_site: Served) -> None:
    for base in (nginx_site.base, conformance_site.base):
        request = urllib.request.Request(base + "/api/companies?sector=x", method="OPTIONS")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 204
            assert response.headers["Access-Control-Allow-Origin"] == "*"
            assert "GET" in response.headers["Access-Control-Allow-Methods"]


def _escape_attempt(conformance_build: Path) -> tuple[str, bytes]:
    """A query value with raw "/" and ".." that would climb out of the build to a planted file."""
    planted = conformance_build.parent / f"outside-the-build,{PAGE_PARAM}=1.json"
    planted.write_bytes(b'{"escaped": true}')
    route = LIST_ROUTES[0]
    sort = route.default_sort
    depth = route.path.count("/") + 2  # back over "sort=...", the route's folders and the build folder itself
    value = f"{sort}/" + "../" * depth + "outside-the-build"
    return f"{route.path}?{SORT_PARAM}={value}", planted.read_bytes()


def test_no_host_serves_a_file_outside_the_build(conformance_build: Path, conformance_site: Served,
                                                 nginx_site: Served) -> None:
    url, planted = _escape_attempt(conformance_build)
    for name, host in (("serve", conformance_site), ("nginx", nginx_site)):
        response = host.get(url)
        assert (response.status, response.body != planted) == (404, True), f"{name} served {url} from outside"
    [answer] = run_resolve(ROOT / "netlify.toml", conformance_build, [dict(zip(("path", "query"), _split(url),
                                                                               strict=True))])
    assert (answer["status"], answer["file"]) == (404, SITE_404_FILE)


# netlify.toml itself ----------------------------------------------------------------------------------------------


def test_committed_netlify_toml_is_generated() -> None:
    committed = (ROOT / "netlify.toml").read_text(encoding="utf-8")
    assert committed == configs.netlify_toml(), "netlify.toml is out of date: run python -m generator netlify-toml"


def test_netlify_parser_reads_committed_toml_without_errors(tmp_path: Path) -> None:
    """resolve.mjs exits non-zero on any parse error, or when fewer redirects parse than the file declares."""
    assert run_resolve(ROOT / "netlify.toml", tmp_path, []) == []


def expected_rule_count() -> int:
    """From the registry alone. A listing has one rule per smallest set of filters that share no group, one per
    smallest set that takes no sort (a text filter that sorts in the default order only; the route's
    ``sort_depth`` + 1 filters of a group) when it has more than one sort, then one per distinct subset of
    (a group + sort + page) that does not name such a set with sort. Then 4 for the export (format + table,
    any other format: a problem, table alone: a problem, neither) plus one per format (its whole dataset), one
    per document, one per detail route, and the /api/* catch-all; and one per filter without files (its problem)."""
    total = 0
    for route in LIST_ROUTES:
        sorted_routes = len(route.sort_values) > 1
        unsorted = {frozenset([f.name]) for f in route.filters if not f.sortable} if sorted_routes else set()
        subsets = set()
        for group in route.groups:
            names = [f.name for f in group]
            if sorted_routes:
                sortable = [f.name for f in group if f.sortable]
                unsorted |= {frozenset(c) for c in itertools.combinations(sortable, route.sort_depth + 1)}
            for size in range(len(names) + 3):
                for c in itertools.combinations([*names, SORT_PARAM, PAGE_PARAM], size):
                    filters = frozenset(c) - {SORT_PARAM, PAGE_PARAM}
                    if SORT_PARAM in c and any(u <= filters for u in unsorted):
                        continue
                    subsets.add(frozenset(c))
        total += len(_incompatible(route)) + len(unsorted) + len(subsets)
    only = sum(not f.published for route in DECLARED_ROUTES for f in route.filters)  # one each: front door only
    return total + only + 4 + len(EXPORT_ROUTE.formats) + len(DOCUMENT_ROUTES) + len(DETAIL_ROUTES) + 1


def test_rule_count_follows_the_registry_formula() -> None:
    assert len(rules()) == expected_rule_count()
    toml = configs.netlify_toml()
    assert toml.count("[[redirects]]") == expected_rule_count()


def test_rule_count_does_not_depend_on_the_data(tiny_build: Path) -> None:
    """The rules take no dataset, and building one (which imports every module) adds none: the committed
    netlify.toml, made without data, holds the same rules."""
    assert not inspect.signature(rules).parameters
    assert tiny_build.is_dir()
    committed = (ROOT / "netlify.toml").read_text(encoding="utf-8")
    assert committed.count("[[redirects]]") == len(rules()) == expected_rule_count()
