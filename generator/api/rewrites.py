"""Rewrite rules, generated from the route registry, and Netlify's way of matching them.

One list of ``Rule`` objects feeds ``netlify.toml``, the nginx config of an offline mirror and the local
``serve`` router. The semantics are Netlify's (checked against its own matcher in the tests):

- rules are tried in order and the first match wins, in one pass;
- a rule with query conditions matches when every named parameter is present (even empty: ``sector=``, but
  not a bare ``sector`` without ``=``; names are compared as sent, undecoded); other parameters and their
  order do not matter; a repeated parameter counts with its last value;
- a rule without query conditions matches whatever the query string;
- placeholder values are percent-decoded, then form-encoded into the target;
- a file that exists at the request path is served as is, before any rule (no rule here uses ``force``).

Because a rule with k optional parameters needs 2^k rules (most specific first), the count depends only on
the registry, never on the data.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from urllib.parse import quote_plus, unquote_plus

from generator.api.access import ALLOW_HEADERS, EXPOSE_HEADERS
from generator.api.registry import (
    DETAIL_ROUTES,
    DOCUMENT_ROUTES,
    EXPORT_ROUTE,
    LIST_ROUTES,
    PAGE_PARAM,
    SORT_PARAM,
    ListRoute,
)
from generator.api.versions import API_VERSION, DEPRECATIONS, VERSION_HEADER
from generator.dataset.schema import TABLES

NOT_FOUND_FILE = "/api/errors/not-found.json"
SITE_404_FILE = "/404.html"


@dataclass(frozen=True)
class Rule:
    path: str
    to: str
    status: int = 200
    query: tuple[str, ...] = ()
    """Names of the query parameters that must be present; each binds the placeholder ``:name``. An entry
    ``name=value`` instead requires that exact value (binding nothing)."""

    @property
    def conditions(self) -> list[tuple[str, str | None]]:
        """(name, required value or None for any value) of every query condition."""
        return [(name, value if equals else None) for name, equals, value in (q.partition("=") for q in self.query)]


def list_route_rules(route: ListRoute) -> list[Rule]:
    """Rules of one listing: filter sets that cannot combine first, then every allowed set, largest first."""
    filter_names = {f.name for f in route.filters}
    defaults = dict(route.default_filters)
    # A request naming filters that cannot combine (or a sort with a filter that takes the default order only), or a
    # filter only the front door answers, gets a clear answer instead of a silently ignored parameter.
    rules = [Rule(route.path, route.front_door_error, 404, (f.name,)) for f in route.filters if not f.published]
    rules += [Rule(route.path, route.combination_error, 404, names) for names in route.refused_sets()]
    order = [f.name for f in route.filters] + [SORT_PARAM, PAGE_PARAM]
    subsets: set[tuple[str, ...]] = set()
    for group in route.file_groups:  # a filter without files has no rule: only the front door answers it
        names = [f.name for f in group] + [SORT_PARAM, PAGE_PARAM]
        for size in range(len(names) + 1):
            for subset in itertools.combinations(names, size):
                applied = {n for n in subset if n in filter_names}
                if SORT_PARAM in subset and len(route.sorts_for(applied)) < len(route.published_sorts):
                    continue  # refused above
                subsets.add(tuple(sorted(subset, key=order.index)))
    for subset in sorted(subsets, key=lambda c: (-len(c), [order.index(n) for n in c])):
        filters = {name: f":{name}" for name in subset if name in filter_names} or dict(defaults)
        sort = f":{SORT_PARAM}" if SORT_PARAM in subset else route.default_sort
        page = f":{PAGE_PARAM}" if PAGE_PARAM in subset else 1
        rules.append(Rule(route.path, route.file_path(filters, sort, page), 200, subset))
    return rules


def rules() -> list[Rule]:
    """Every rewrite rule of the site, in matching order."""
    out: list[Rule] = []
    for route in LIST_ROUTES:
        out += list_route_rules(route)
    export = EXPORT_ROUTE
    out += [
        Rule(export.path, export.file_path(":format", ":table"), 200, ("format", "table")),
        *(Rule(export.path, export.dataset_path(f), 200, (f"format={f}",)) for f in export.formats),
        Rule(export.path, export.unknown_format_error, 404, ("format",)),
        Rule(export.path, export.table_without_format_error, 404, ("table",)),
        Rule(export.path, export.index_path()),
    ]
    out += [Rule(route.path, route.file) for route in DOCUMENT_ROUTES]
    out += [Rule(f"{route.path}/:key", route.file_path(":key")) for route in DETAIL_ROUTES]
    out.append(Rule("/api/*", NOT_FOUND_FILE, 404))
    return out


@dataclass(frozen=True)
class Match:
    rule: Rule
    target: str


def _path_pattern(path: str) -> re.Pattern[str]:
    parts = []
    for segment in path.strip("/").split("/"):
        if segment == "*":
            parts.append("(?:/(?P<splat>.*))?")  # as Netlify: /api/* also matches /api itself
        elif segment.startswith(":"):
            parts.append(f"/(?P<{segment[1:]}>[^/]+)")
        else:
            parts.append("/" + re.escape(segment))
    return re.compile("^" + "".join(parts) + "/?$")


def _substitute(template: str, bindings: dict[str, str]) -> str:
    return re.sub(r":([A-Za-z_][A-Za-z0-9_]*)", lambda m: bindings.get(m.group(1), m.group(0)), template)


class Router:
    """Resolve a request path and query to a rewrite target exactly as Netlify's matcher does."""

    def __init__(self, rule_list: list[Rule]) -> None:
        self._rules = [(rule, _path_pattern(rule.path)) for rule in rule_list]

    def match(self, path: str, query: str) -> Match | None:
        params: dict[str, str] = {}
        for part in query.split("&"):
            name, equals, value = part.partition("=")
            if equals:  # as Netlify: a name without "=" is absent, and names are compared undecoded
                params[name] = unquote_plus(value)  # the last repeated key wins
        for rule, pattern in self._rules:
            found = pattern.match(path)
            conditions = rule.conditions
            if not found or any(name not in params or value not in (None, params[name])
                                for name, value in conditions):
                continue
            bindings = {k: v for k, v in found.groupdict().items() if k != "splat"}
            bindings.update({name: quote_plus(params[name]) for name, value in conditions if value is None})
            target = _substitute(rule.to, bindings)
            if "splat" in pattern.groupindex:
                target = target.replace(":splat", found.group("splat") or "")
            return Match(rule, target)
        return None


@dataclass(frozen=True)
class HeaderRule:
    path: str
    """Netlify ``for`` pattern: a path, ``*`` matching the rest."""
    values: tuple[tuple[str, str], ...]


JSON_LINES_TYPE = "application/jsonl; charset=utf-8"
"""JSON Lines' media type. Neither it nor ``application/x-ndjson`` is registered with IANA; ``application/jsonl`` is
the one named after the format and its ``.jsonl`` extension, and the OpenAPI media-type registry lists it with its
sequential JSON types; the ``x-`` prefix is deprecated for new types (RFC 6648)."""
DOWNLOAD_TYPES = {"csv": "text/csv; charset=utf-8", "parquet": "application/vnd.apache.parquet",
                  "jsonl": JSON_LINES_TYPE}

CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400"


def _attachment(path: str) -> str:
    """``Content-Disposition`` of a download: its file name (``companies.csv``; a whole dataset
    ``dataset-csv.zip``, as every format's zip is ``dataset.zip`` in its folder)."""
    folder, _, name = path.rpartition("/")
    if name.startswith("dataset."):
        name = f"dataset-{folder.rpartition('/')[2]}{name.removeprefix('dataset')}"
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name), name  # an RFC 6266 token: no quotes (nginx.conf, TOML)
    return f"attachment; filename={name}"

HEADERS: tuple[HeaderRule, ...] = (
    HeaderRule("/api/*", (
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
        ("Access-Control-Allow-Headers", ALLOW_HEADERS),
        ("Access-Control-Expose-Headers", EXPOSE_HEADERS),
        ("Cache-Control", CACHE_CONTROL),
        ("X-Content-Type-Options", "nosniff"),
        (VERSION_HEADER, API_VERSION),
    )),
    *(HeaderRule(d.path, d.headers()) for d in DEPRECATIONS),
    HeaderRule("/api/errors/*", (("Content-Type", "application/problem+json; charset=utf-8"),)),
    HeaderRule("/404.html", (("Content-Type", "application/problem+json; charset=utf-8"),)),
    # Downloads: hosts guess types from extensions, and few know .parquet (they would send octet-stream); a
    # file name for the query form (/api/export?format=csv&table=companies), whose URL names none.
    *(HeaderRule(path, (("Content-Type", f"{DOWNLOAD_TYPES[f]}"), ("Content-Disposition", _attachment(path))))
      for f in EXPORT_ROUTE.formats if f != "json" for t in TABLES for path in [EXPORT_ROUTE.file_path(f, t.name)]),
    *(HeaderRule(EXPORT_ROUTE.dataset_path(f), (("Content-Type", "application/zip"),
                                                ("Content-Disposition", _attachment(EXPORT_ROUTE.dataset_path(f)))))
      for f in EXPORT_ROUTE.formats),
)
"""Extra response headers by request path; Content-Type otherwise follows the served file's extension."""

CONTENT_TYPES = {
    ".json": "application/json; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".parquet": "application/vnd.apache.parquet",
    ".jsonl": JSON_LINES_TYPE,
    ".atom": "application/atom+xml; charset=utf-8",
    ".zip": "application/zip",
    ".toml": "application/toml",
    ".conf": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}


def headers_for(path: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for rule in HEADERS:
        pattern = rule.path
        if pattern == path or (pattern.endswith("*") and path.startswith(pattern[:-1])):
            out.update(rule.values)
    return out
