"""The landing page ``/index.html``: what the API is and how to call it, generated from the route registry.

Everything route-specific comes from ``generator.api.registry.ROUTES`` (paths, filters, sorts, page sizes, which
filters combine), the problem documents from ``generator.api.problems`` and the dataset's title, as-of date and
disclaimer from ``DatasetInfo``; the lead passes a few example URLs per route that exist in the build. The
page is rendered by ``templates/index.html.j2`` (autoescaped) and needs no network resource besides the API: its
charts are drawn at build time (``generator.hosts.charts``), its query console is ``templates/console.js.j2``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel

from generator.api import problems, semantics
from generator.api.registry import (
    FACET_LIMIT,
    PAGE_PARAM,
    ROUTES,
    SORT_PARAM,
    DetailRoute,
    ExportRoute,
    Filter,
    ListRoute,
)
from generator.api.rewrites import NOT_FOUND_FILE, Router, rules
from generator.api.versions import API_VERSION
from generator.dataset.history import WINDOW_DAYS
from generator.dataset.schema import TABLES, DatasetInfo
from generator.frontdoor.space import QUERY_SPACE_FILE
from generator.hosts import charts, templates

TEMPLATE = "index.html.j2"
TOP_COMPANIES_ROUTE = "companies"
"""The listing whose first page the page's script shows as a small table (progressive enhancement)."""

Segment = tuple[str, bool]
"""A piece of prose: (text, is_code). Backticks in registry descriptions mark code."""


def segments(text: str) -> list[Segment]:
    """Split prose on backticks so the template can wrap code in ``<code>`` without unescaped markup."""
    parts = re.split(r"`([^`]*)`", text)
    return [(part, index % 2 == 1) for index, part in enumerate(parts) if part]


@dataclass
class FilterView:
    name: str
    kind: str
    description: list[Segment]
    values: list[tuple[str, str]]
    """Allowed values as (value, plain-words label or ""), when the registry lists them; empty when they come
    from the data."""
    values_note: str
    multi: bool
    sortable: bool


def _filter_view(flt: Filter) -> FilterView:
    values, note = flt.kind.landing(flt)
    if flt.multi:
        note = f"{note} An item matches when its list contains the value.".strip()
    return FilterView(flt.name, flt.kind.name, segments(flt.description), values, note, flt.multi, flt.sortable)


@dataclass
class FieldView:
    name: str
    type: str
    description: str


def _type_name(annotation: object) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a) for a in args if a is not type(None)]
        return " | ".join(names) + (" | null" if type(None) in args else "")
    if origin is typing.Literal:
        return "string" if len(args) > 6 else " | ".join(f'"{a}"' for a in args)
    if origin in (list, Sequence, tuple):
        return f"array of {_type_name(args[0])}" if args else "array"
    if origin is dict:
        return "object"
    if annotation is dt.date:
        return "date (YYYY-MM-DD)"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    names = {int: "integer", float: "number", str: "string", bool: "boolean"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))  # type: ignore[call-overload]


def _fields(model: type[BaseModel]) -> list[FieldView]:
    return [
        FieldView(name, _type_name(info.annotation), info.description or "")
        for name, info in model.model_fields.items()
    ]


@dataclass
class ExampleView:
    url: str
    path_style: str | None
    """The canonical file the URL is rewritten to, when it differs (the form that works on any static host)."""


@dataclass
class RouteView:
    name: str
    kind: str
    """list, detail, export or document."""
    path: str
    label: str
    """The path as shown in the contents: ``/api/companies`` or ``/api/companies/{id|slug}``."""
    anchor: str
    summary: str
    description: list[Segment]
    model: str
    fields: list[FieldView]
    examples: list[ExampleView]
    # listings
    filters: list[FilterView] = field(default_factory=list)
    sorts: list[tuple[str, bool]] = field(default_factory=list)
    descending: bool = False
    """Whether any sort value is descending (``-name``)."""
    default_sort: str = ""
    per_page: int = 0
    groups: list[list[str]] = field(default_factory=list)
    combine_freely: bool = True
    incompatible_sets: list[tuple[str, ...]] = field(default_factory=list)
    problem_id: str = ""
    default_filters: list[tuple[str, str]] = field(default_factory=list)
    facets: list[str] = field(default_factory=list)
    path_pattern: str = ""
    # details
    key_paths: list[str] = field(default_factory=list)
    file_pattern: str = ""
    # exports and documents
    static_forms: list[tuple[str, str]] = field(default_factory=list)
    """(path-style URL pattern, what it gives)."""


def _example_views(urls: Sequence[str], router: Router) -> list[ExampleView]:
    out = []
    for url in urls:
        parts = urlsplit(url)
        path_style = None
        if parts.query:
            match = router.match(parts.path, parts.query)
            if match is not None and match.rule.status == 200 and match.target != parts.path:
                path_style = match.target
        out.append(ExampleView(url, path_style))
    return out


def _list_view(route: ListRoute, urls: Sequence[str], router: Router) -> RouteView:
    groups = [[f.name for f in group] for group in route.groups if group]
    pairs = route.refused_sets()
    pattern = route.file_path({f.name: f"{{{f.name}}}" for f in route.files_view.filters}, "{sort}", "{page}")
    return RouteView(
        name=route.name, kind="list", path=route.path, label=route.path, anchor=f"route-{route.name}",
        summary=route.summary,
        description=segments(route.description), model=route.model.__name__, fields=_fields(route.model),
        examples=_example_views(urls or [route.path], router),
        filters=[_filter_view(f) for f in route.filters],
        sorts=[(value, value == route.default_sort) for value in route.sort_values],
        descending=any(v.startswith("-") for v in route.sort_values),
        default_sort=route.default_sort, per_page=route.per_page, groups=groups,
        combine_freely=not route.incompatible_sets(), incompatible_sets=pairs,
        problem_id=f"problem-{route.name}-filter-combination" if pairs else "",
        default_filters=list(route.default_filters), facets=[f.name for f in route.filters if f.faceted],
        path_pattern=pattern,
    )


def _detail_view(route: DetailRoute, urls: Sequence[str], router: Router) -> RouteView:
    return RouteView(
        name=route.name, kind="detail", path=route.path,
        label=f"{route.path}/{{{'|'.join(route.key_names)}}}", anchor=f"route-{route.name}", summary=route.summary,
        description=segments(route.description), model=route.model.__name__, fields=_fields(route.model),
        examples=_example_views(urls, router),
        key_paths=[f"{route.path}/{{{key}}}" for key in route.key_names],
        file_pattern=route.file_path("{" + "|".join(route.key_names) + "}"),
    )


def _export_view(route: ExportRoute, urls: Sequence[str], router: Router) -> RouteView:
    tables = [(table.name, "") for table in TABLES]
    params = [
        FilterView("format", "category", segments("Export format."), [(f, "") for f in route.formats], "", False,
                   False),
        FilterView("table", "category", segments("Table of the dataset (needs `format`)."), tables, "", False,
                   False),
    ]
    forms = [
        (route.index_path(), "the manifest: every file of every format with its URL, rows, bytes and sha256"),
        (route.dataset_path("{format}"), "every table in that format plus manifest.json in one zip"),
        (route.file_path("{format}", "{table}"), "one table in one format"),
    ]
    return RouteView(
        name=route.name, kind="export", path=route.path, label=route.path, anchor=f"route-{route.name}",
        summary=route.summary, description=segments(route.description), model="", fields=[],
        examples=_example_views(urls or [route.path], router), filters=params, static_forms=forms,
    )


def _document_view(route: object, urls: Sequence[str], router: Router) -> RouteView:
    """A single generated document (e.g. the OpenAPI description), or any other kind of route."""
    path = str(getattr(route, "path", ""))
    file = getattr(route, "file", None)
    return RouteView(
        name=str(getattr(route, "name", path)), kind="document", path=path, label=path,
        anchor=f"route-{getattr(route, 'name', path.strip('/').replace('/', '-'))}",
        summary=str(getattr(route, "summary", "")), description=segments(str(getattr(route, "description", ""))),
        model="", fields=[], examples=_example_views(urls or [path], router),
        static_forms=[(str(file), "the same document")] if file else [],
    )


def route_view(route: object, urls: Sequence[str], router: Router) -> RouteView:
    """The page's view of one registry route, whatever its kind."""
    if isinstance(route, ListRoute):
        return _list_view(route, urls, router)
    if isinstance(route, DetailRoute):
        return _detail_view(route, urls, router)
    if isinstance(route, ExportRoute):
        return _export_view(route, urls, router)
    return _document_view(route, urls, router)


@dataclass
class ProblemView:
    id: str
    type: str
    title: str
    status: int
    detail: list[Segment]
    files: list[str]
    route: RouteView | None = None


def _problem_views(routes: list[RouteView]) -> list[ProblemView]:
    """One entry per problem ``type`` the build writes, plus one per listing with filters that cannot combine."""
    by_id: dict[str, ProblemView] = {}
    for path, body in problems.problem_files():
        document = json.loads(body)
        type_uri = str(document["type"])
        anchor = type_uri.partition("#")[2]
        if anchor in by_id:
            by_id[anchor].files.append(path)
            continue
        by_id[anchor] = ProblemView(anchor, type_uri, str(document["title"]), int(document["status"]),
                                    segments(str(document["detail"])), [path])
    for view in routes:
        if view.problem_id and view.problem_id not in by_id:
            by_id[view.problem_id] = ProblemView(
                view.problem_id, f"/#{view.problem_id}", "Unsupported parameter combination", 404,
                segments(f"{view.path}: these filters cannot be used together."), [],
            )
        if view.problem_id:
            by_id[view.problem_id].route = view
    return list(by_id.values())


def _intro_example(views: list[RouteView], router: Router) -> ExampleView | None:
    """A query-string URL with a filter and a sort, and its path-style form, for the introduction.

    Built from the first listing example that applies one filter: every sort of a published filter value has
    its files, so adding a non-default ``sort`` keeps the URL live. Else the richest example with a path form.
    """
    by_name = {r.name: r for r in ROUTES if isinstance(r, ListRoute)}
    for view in views:
        route = by_name.get(view.name)
        if route is None or len(route.sort_values) < 2:
            continue
        kinds = {f.name: f.kind for f in route.filters}  # an example of one value (a category) reads plainest
        single = []
        for example in view.examples:
            params = [name for name, _ in parse_qsl(urlsplit(example.url).query)]
            if len(params) == 1 and params[0] in kinds:
                single.append((not kinds[params[0]].exact, example.url))
        if single:
            default_field = route.default_sort.removeprefix("-")
            others = [v for v in route.sort_values if v.removeprefix("-") != default_field]
            sort = (others or [v for v in route.sort_values if v != route.default_sort])[0]
            return _example_views([f"{min(single)[1]}&{SORT_PARAM}={sort}"], router)[0]
    candidates = [e for view in views for e in view.examples if e.path_style]
    if not candidates:
        return None
    return max(candidates, key=lambda e: len(parse_qsl(urlsplit(e.url).query)))


def context(info: DatasetInfo, examples: Mapping[str, Sequence[str]],
            figures: charts.Figures | None = None) -> dict[str, object]:
    router = Router(rules())
    routes = [route_view(r, examples.get(r.name, ()), router) for r in ROUTES]
    top = next((r for r in ROUTES if isinstance(r, ListRoute) and r.name == TOP_COMPANIES_ROUTE), None)
    not_found = json.loads(problems.NOT_FOUND)
    return {
        "info": info,
        "routes": routes,
        "problems": _problem_views(routes),
        "intro_example": _intro_example(routes, router),
        "not_found_json": json.dumps(not_found, indent=2, ensure_ascii=False),
        "not_found_file": NOT_FOUND_FILE,
        "top_route": top,
        "sort_param": SORT_PARAM,
        "facet_limit": FACET_LIMIT,
        "window_days": WINDOW_DAYS,
        "api_version": API_VERSION,
        "page_param": PAGE_PARAM,
        "front_door": [(rule.label, segments(rule.text)) for rule in semantics.FRONT_DOOR_RULES],
        "front_door_where": segments(semantics.WHERE),
        "rewrite_only": segments(semantics.REWRITE_ONLY),
        "top_file": top.file_path({}, top.default_sort, 1) if top else "",
        "query_space": QUERY_SPACE_FILE,
        "charts": charts.charts(figures),
    }


def landing_page(info: DatasetInfo, examples: Mapping[str, Sequence[str]],
                 figures: charts.Figures | None = None) -> bytes:
    """The HTML of ``/index.html``, UTF-8."""
    return templates.render(TEMPLATE, **context(info, examples, figures)).encode("utf-8")
