"""The OpenAPI 3.0 document, generated from the route registry, the pydantic models and the built data.

Enums of allowed filter values come from the same domains the listings were precomputed for, so the document
lists exactly the values that have files. pydantic emits JSON Schema 2020-12; ``_to_openapi_30`` rewrites the
few constructs OpenAPI 3.0 spells differently (nullable, const, $defs).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from generator import responses
from generator.registry import (
    EXPORT_DATASET,
    EXPORT_ROUTE,
    PAGE_PARAM,
    ROUTES,
    SORT_PARAM,
    WORD_MAX,
    DetailRoute,
    DocumentRoute,
    ExportRoute,
    ListRoute,
)
from generator.schema import SLUG_PATTERN, TABLES, DatasetInfo

OPENAPI_VERSION = "3.0.3"
API_VERSION = "1.0.0"
PROBLEM = "application/problem+json"


def _to_openapi_30(schema: Any) -> Any:
    """Rewrite a JSON Schema 2020-12 fragment (as pydantic emits it) into OpenAPI 3.0's dialect."""
    if isinstance(schema, list):
        return [_to_openapi_30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _to_openapi_30(v) for k, v in schema.items() if k not in ("$defs", "title")}
    for combinator in ("anyOf", "oneOf"):
        options = out.get(combinator)
        if options and any(o == {"type": "null"} for o in options):
            rest = [o for o in options if o != {"type": "null"}]
            del out[combinator]
            if len(rest) == 1 and "$ref" not in rest[0]:
                out.update(rest[0])
            elif len(rest) == 1:
                out["allOf"] = rest
            else:
                out[combinator] = rest
            out["nullable"] = True
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if "$ref" in out:
        out["$ref"] = out["$ref"].replace("#/$defs/", "#/components/schemas/")
        if len(out) > 1:  # OpenAPI 3.0 ignores siblings of $ref
            ref = out.pop("$ref")
            out = {"allOf": [{"$ref": ref}], **{k: v for k, v in out.items() if k != "allOf"}}
    return out


class SchemaRegistry:
    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}

    def ref(self, model: type[BaseModel]) -> dict[str, str]:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, definition in schema.get("$defs", {}).items():
            self.schemas[name] = _to_openapi_30(definition)
        self.schemas[model.__name__] = _to_openapi_30(schema)
        return {"$ref": f"#/components/schemas/{model.__name__}"}


def _problem_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _meta_schema(route: ListRoute) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "total": {"type": "integer", "minimum": 1, "description": "rows in the whole result set"},
        "page": {"type": "integer", "minimum": 1},
        "per_page": {"type": "integer", "enum": [route.per_page]},
        "pages": {"type": "integer", "minimum": 1, "description": "at least 1: empty results are not published"},
        "sort": {"type": "string", "enum": list(route.sort_values)},
        "filters": {"type": "object", "description": "the filters applied, with their values",
                    "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
        "as_of": {"type": "string", "format": "date"},
        "disclaimer": {"type": "string"},
    }
    required = list(properties)
    faceted = [f for f in route.filters if f.faceted]
    # Every page 1 carries them (empty where the route has no faceted filter); later pages do not.
    bucket = {"type": "object", "required": ["value", "count", "url"], "additionalProperties": False,
              "properties": {
                  "value": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                  "count": {"type": "integer", "minimum": 1, "description": "meta.total of the listing at url"},
                  "url": {"type": "string", "description": "path-style URL of the refined listing's page 1"}}}
    properties["facets"] = {
        "type": "object", "additionalProperties": False, "description": "page 1 only: refinements with rows",
        "properties": {f.name: {"type": "array", "items": bucket} for f in faceted},
    }
    properties["facets_truncated"] = {
        "type": "array",
        "items": {"type": "string", **({"enum": [f.name for f in faceted]} if faceted else {})},
        "description": "page 1 only: facets that list only their most frequent values",
    }
    return {"type": "object", "required": required, "additionalProperties": False, "properties": properties}


LINKS = {
    "type": "object", "required": ["self", "first", "prev", "next", "last"], "additionalProperties": False,
    "properties": {name: {"type": "string", "nullable": name in ("prev", "next"),
                          "description": "path-style URL of a page"}
                   for name in ("self", "first", "prev", "next", "last")},
}
SINGLE_META = {
    "type": "object", "required": ["as_of", "disclaimer"], "additionalProperties": False,
    "properties": {"as_of": {"type": "string", "format": "date"}, "disclaimer": {"type": "string"}},
}


def _list_operation(route: ListRoute, domains: dict[str, list[str]], schemas: SchemaRegistry) -> dict[str, Any]:
    parameters = []
    for flt in route.filters:
        values = domains[flt.name]
        if flt.kind == "text":
            longest = flt.prefixes[1] if flt.prefixes else WORD_MAX
            schema: dict[str, Any] = {"type": "string", "pattern": f"^[a-z0-9]{{1,{longest}}}$"}
        elif flt.kind in ("ladder", "year"):
            schema = {"type": "integer", "enum": [int(v) for v in values]}
        else:
            schema = {"type": "string", "enum": values}
        parameters.append({"name": flt.name, "in": "query", "required": False, "description": flt.description,
                           "schema": schema})
    parameters.append({"name": SORT_PARAM, "in": "query", "required": False,
                       "description": "Order; a leading - means descending. Nulls sort last, ties by a unique key.",
                       "schema": {"type": "string", "enum": list(route.sort_values), "default": route.default_sort}})
    parameters.append({"name": PAGE_PARAM, "in": "query", "required": False,
                       "description": f"1-based page of {route.per_page} rows; beyond the last page: 404.",
                       "schema": {"type": "integer", "minimum": 1, "default": 1}})
    groups = "; ".join(", ".join(f.name for f in g) or "(none)" for g in route.groups)
    description = f"{route.description}\n\nFilters that combine: {groups}.".strip()
    if route.default_filters:
        description += " Without any filter: " + ", ".join(f"{k}={v}" for k, v in route.default_filters) + "."
    envelope = {
        "type": "object", "required": ["data", "meta", "links"], "additionalProperties": False,
        "properties": {"data": {"type": "array", "items": schemas.ref(route.model)}, "meta": _meta_schema(route),
                       "links": LINKS},
    }
    return {
        "operationId": f"list_{route.name.replace('-', '_')}", "summary": route.summary,
        "description": description, "parameters": parameters,
        "responses": {"200": _json(envelope, "One page of results"),
                      "404": _problem_response("Unknown value, no results, or page past the last (a URL is "
                                               "published exactly when it has content); or parameters that do "
                                               "not combine")},
    }


def _detail_operation(route: DetailRoute, schemas: SchemaRegistry) -> tuple[str, dict[str, Any]]:
    name = "idOrSlug" if route.key_names == ("id", "slug") else route.key_names[0]
    body = {
        "type": "object", "required": ["data", "meta", "links"], "additionalProperties": False,
        "properties": {"data": schemas.ref(route.model), "meta": SINGLE_META,
                       "links": {"type": "object", "required": ["self"], "additionalProperties": False,
                                 "properties": {"self": {"type": "string"}}}},
    }
    operation = {
        "operationId": f"get_{route.name.replace('-', '_')}", "summary": route.summary,
        "description": route.description or f"Addressed by {' or '.join(route.key_names)}; every key gives the "
        "same body.",
        "parameters": [{"name": name, "in": "path", "required": True,
                        "description": " or ".join(route.key_names),
                        "schema": {"type": "string", "pattern": SLUG_PATTERN}}],
        "responses": {"200": _json(body, "The resource"), "404": _problem_response("No such resource")},
    }
    return f"{route.path}/{{{name}}}", operation


def _export_operation(route: ExportRoute) -> dict[str, Any]:
    tables = [t.name for t in TABLES]
    return {
        "operationId": "export", "summary": route.summary, "description": route.description,
        "parameters": [
            {"name": "format", "in": "query", "required": False, "description": "Export format; without it, "
             "the overall manifest.", "schema": {"type": "string", "enum": list(route.formats)}},
            {"name": "table", "in": "query", "required": False, "description": "One table (needs `format`); "
             f"`{EXPORT_DATASET}` is every table in one json file.",
             "schema": {"type": "string", "enum": [*tables, EXPORT_DATASET]}},
        ],
        "responses": {
            "200": {"description": "A manifest (JSON) or a table file in the chosen format",
                    "content": {"application/json": {"schema": {"type": "object"}},
                                "text/csv": {"schema": {"type": "string"}},
                                "application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}}}},
            "404": _problem_response("Unknown format or table, or a table not offered in that format"),
        },
    }


def document(info: DatasetInfo, domains: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """The whole OpenAPI document; ``domains`` maps route name -> filter name -> allowed values."""
    schemas = SchemaRegistry()
    schemas.ref(responses.Problem)
    paths: dict[str, Any] = {}
    for route in ROUTES:
        if isinstance(route, ListRoute):
            paths[route.path] = {"get": _list_operation(route, domains[route.name], schemas)}
        elif isinstance(route, DetailRoute):
            path, operation = _detail_operation(route, schemas)
            paths[path] = {"get": operation}
        elif isinstance(route, ExportRoute):
            paths[route.path] = {"get": _export_operation(route)}
        elif isinstance(route, DocumentRoute):
            paths[route.path] = {"get": {
                "operationId": route.name, "summary": route.summary,
                "responses": {"200": _json({"type": "object"}, "This document")},
            }}
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": info.title, "version": API_VERSION,
            "description": (
                "A read-only company and IPO data API served entirely from precomputed static files. Every "
                "operation is GET. Query strings are mapped onto files by rewrite rules; the files themselves "
                "(path-style URLs such as /api/companies/sector=fintech/sort=-valuation,page=2.json) work on any "
                "static host. Money is whole US dollars (`*_usd`), per-share prices US cents (`*_cents`), ratios "
                f"are decimals, dates ISO 8601. Data as of {info.as_of.isoformat()}.\n\n"
                f"Disclaimer: {info.disclaimer}"
            ),
            "license": {"name": info.license},
        },
        "servers": [{"url": "/", "description": "the host serving the built files"}],
        "paths": paths,
        "components": {"schemas": dict(sorted(schemas.schemas.items()))},
    }


__all__ = ["EXPORT_ROUTE", "document"]
