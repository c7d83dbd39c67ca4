"""The OpenAPI 3.0 document, generated from the route registry, the pydantic models and the built data.

Enums of allowed filter values come from the same domains the listings were precomputed for, so the document
lists exactly the values that have files. ``openapi_schemas`` turns the models' JSON Schema into OpenAPI 3.0's
dialect; every response, manifests and downloads included, has a schema and its own media type.
"""

from __future__ import annotations

from typing import Any

from generator.api import access, responses, semantics, versions
from generator.api.declared import VOCABULARIES, vocabulary
from generator.api.kinds import FRONT_DOOR_ONLY
from generator.api.openapi_schemas import SchemaRegistry, resolve_nullable_refs
from generator.api.registry import (
    EXPORT_DATASET,
    EXPORT_FORMAT_ALIASES,
    EXPORT_ROUTE,
    PAGE_PARAM,
    ROUTES,
    SORT_PARAM,
    DetailRoute,
    DocumentRoute,
    ExportRoute,
    ListRoute,
)
from generator.api.versions import API_VERSION
from generator.dataset.schema import TABLES, DatasetInfo

OPENAPI_VERSION = "3.0.3"
PROBLEM = "application/problem+json"


ZIP = "application/zip"
DOWNLOAD_TYPES = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet", "jsonl": "application/jsonl"}
ATTACHMENT = {"Content-Disposition": {
    "description": "A download's file name (`attachment; filename=companies.csv`; a whole dataset "
                   "`dataset-csv.zip`), where the host sets it (not object stores)",
    "schema": {"type": "string"}}}


def _problem_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}


INVALID_QUERY = {
    "description": "The query front door (serve, the Netlify Edge Function, the Cloudflare worker, the clients): a "
    "parameter that is not declared (a case variant such as `Sector`, an alias such as `min_valuation`, an unknown "
    "name), given twice, or with a value outside its domain. `invalid-params` names each one and says why "
    "(RFC 9457). Tracking parameters (`utm_*`, `fbclid`, `gclid`, `msclkid`, `mc_cid`, `mc_eid`) are ignored.",
    "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/InvalidQuery"}}},
}
INVALID_QUERY_SCHEMA = {
    "type": "object", "required": ["type", "title", "status", "detail"], "additionalProperties": False,
    "properties": {
        "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer", "enum": [400]},
        "detail": {"type": "string"},
        "invalid-params": {"type": "array", "items": {
            "type": "object", "required": ["name", "reason"], "additionalProperties": False,
            "properties": {"name": {"type": "string"}, "reason": {"type": "string"}}}},
    },
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _object(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(properties) if required is None else required,
            "additionalProperties": False, "properties": properties, **extra}


def _tag(path: str) -> str:
    return path.split("/")[2]


DATE = {"type": "string", "format": "date"}
FACET = _object({
    "value": {"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "the filter value"},
    "count": {"type": "integer", "minimum": 1, "description": "meta.total of the listing at url"},
    "url": {"type": "string", "description": "path-style URL of the refined listing's page 1"},
})
LINKS = _object({name: {"type": "string", "nullable": name in ("prev", "next"),
                        "description": "path-style URL of a page (a file, on any static host)"}
                 for name in ("self", "first", "prev", "next", "last")})
SELF_LINK = _object({"self": {"type": "string", "description": "path-style URL of this file"}})
SINGLE_META = _object({"as_of": DATE, "disclaimer": {"type": "string"}})
EXPORT_META = _object({"as_of": DATE, "disclaimer": {"type": "string"}, "license": {"type": "string"}})


def _shared(schemas: SchemaRegistry) -> None:
    schemas.ref(responses.Problem)
    schemas.add("InvalidQuery", INVALID_QUERY_SCHEMA)
    schemas.add("Facet", FACET)
    schemas.add("PageLinks", LINKS)
    schemas.add("SelfLink", SELF_LINK)
    schemas.add("SingleMeta", SINGLE_META)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _meta_schema(route: ListRoute) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "total": {"type": "integer", "minimum": 0, "description": "rows in the whole result set (0: only "
                  "through the front door; an empty result is not published as a file)"},
        "page": {"type": "integer", "minimum": 1},
        "per_page": {"type": "integer", "enum": [route.per_page]},
        "pages": {"type": "integer", "minimum": 0, "description": "0 only for an empty result (front door)"},
        "sort": {"type": "string", "enum": list(route.sort_values)},
        "filters": {"type": "object", "description": "the filters applied, with their values",
                    "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
        "as_of": DATE,
        "disclaimer": {"type": "string"},
    }
    required = list(properties)
    faceted = [f.name for f in route.filters if f.faceted]
    # Page 1 of every listing carries both, empty on a route without faceted filters.
    properties["facets"] = {
        "type": "object", "additionalProperties": False, "description": "page 1 only: refinements with rows",
        "properties": {name: {"type": "array", "items": _ref("Facet")} for name in faceted},
    }
    truncated: dict[str, Any] = {"type": "string", "enum": faceted} if faceted else {"type": "string"}
    properties["facets_truncated"] = {
        "type": "array", "items": truncated, "maxItems": len(faceted),
        "description": "page 1 only: facets that list only their most frequent values",
    }
    return {"type": "object", "required": required, "additionalProperties": False, "properties": properties}


def _front_door_sorts(route: ListRoute) -> str:
    only = [v for v in route.sort_values if v not in route.published_sorts]
    return f" Front door only (no file holds this order): {', '.join(only)}." if only else ""


def _list_operation(route: ListRoute, domains: dict[str, list[str]], schemas: SchemaRegistry) -> dict[str, Any]:
    parameters = []
    for flt in route.filters:
        values = domains[flt.name]
        declared = VOCABULARIES.get((route.name, flt.name))
        written = vocabulary(declared) if declared else {}
        schema, note = flt.kind.openapi(flt, values, [w for v, w in written.items() if v not in values])
        description = flt.description + note + ("" if flt.published else FRONT_DOOR_ONLY)
        parameter = {"name": flt.name, "in": "query", "required": False, "description": description,
                     "schema": schema}
        published = flt.kind.published_values(values)
        if published is not None:  # the values that have files (path-style URLs, rewrite-only hosts)
            parameter["x-published-values"] = published
        parameters.append(parameter)
    parameters.append({"name": SORT_PARAM, "in": "query", "required": False,
                       "description": "Order; a leading - means descending. Nulls sort last, ties by a unique key."
                       + _front_door_sorts(route),
                       "schema": {"type": "string", "enum": list(route.sort_values), "default": route.default_sort}})
    parameters.append({"name": PAGE_PARAM, "in": "query", "required": False,
                       "description": f"1-based page of {route.per_page} rows; beyond the last page: 404.",
                       "schema": {"type": "integer", "minimum": 1, "maximum": 999_999_999, "default": 1}})
    groups = "; ".join(", ".join(f.name for f in g) or "(none)" for g in route.groups)
    description = f"{route.description or route.summary}\n\nFilters that combine: {groups}.".strip()
    if route.default_filters:
        description += " Without any filter: " + ", ".join(f"{k}={v}" for k, v in route.default_filters) + "."
    description += (f" Pages hold {route.per_page} rows; follow `links.next` (a path-style file URL) to the end.")
    base = "".join(part.capitalize() for part in route.name.split("-"))
    schemas.add(f"{base}PageMeta", _meta_schema(route))
    envelope = schemas.add(f"{base}Page", _object({
        "data": {"type": "array", "items": schemas.ref(route.model)}, "meta": _ref(f"{base}PageMeta"),
        "links": _ref("PageLinks"),
    }))
    return {
        "tags": [_tag(route.path)], "operationId": f"list_{route.name.replace('-', '_')}", "summary": route.summary,
        "description": description, "parameters": parameters,
        "responses": {"200": _json(envelope, "One page of results (through the front door, a valid query "
                                              "without rows: an empty `data` with `meta.total` 0)"),
                      "400": INVALID_QUERY,
                      "404": _problem_response("A page past the last; on rewrite-only hosts also an unknown value, "
                                               "no results, or parameters that do not combine (a file is "
                                               "published exactly when it has content)")},
    }


def _detail_operation(route: DetailRoute, schemas: SchemaRegistry) -> tuple[str, dict[str, Any]]:
    name = "idOrSlug" if route.key_names == ("id", "slug") else route.key_names[0]
    base = route.model.__name__
    body = schemas.add(f"{base}Document", _object({"data": schemas.ref(route.model), "meta": _ref("SingleMeta"),
                                                   "links": _ref("SelfLink")}))
    operation = {
        "tags": [_tag(route.path)], "operationId": f"get_{route.name.replace('-', '_')}", "summary": route.summary,
        "description": (route.description or route.summary) + f". Addressed by {' or '.join(route.key_names)}; "
        f"every key gives the same body. The file itself is {route.file_path('{' + name + '}')}, the `url` rows "
        "carry.",
        "parameters": [{"name": name, "in": "path", "required": True,
                        "description": " or ".join(route.key_names),
                        "schema": {"type": "string", "minLength": 1}}],
        "responses": {"200": _json(body, "The resource"), "400": INVALID_QUERY,
                      "404": _problem_response("No such resource")},
    }
    return f"{route.path}/{{{name}}}", operation


def _export_schemas(route: ExportRoute, schemas: SchemaRegistry) -> list[dict[str, Any]]:
    """Component schemas of the export's JSON bodies: the manifest, one table."""
    sha = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
    file = schemas.add("ExportFile", _object({
        "url": {"type": "string"}, "rows": {"type": "integer", "minimum": 0},
        "bytes": {"type": "integer", "minimum": 0}, "sha256": sha}))
    table_file = schemas.add("ExportTableFile", _object({
        "table": {"type": "string", "enum": [t.name for t in TABLES]}, "url": {"type": "string"},
        "rows": {"type": "integer", "minimum": 0}, "bytes": {"type": "integer", "minimum": 0}, "sha256": sha}))
    export_format = schemas.add("ExportFormatFiles", _object({
        "format": {"type": "string", "enum": list(route.formats)},
        "dataset": file,
        "files": {"type": "array", "items": table_file}}))
    counts = _object({t.name: {"type": "integer", "minimum": 0} for t in TABLES})
    meta = schemas.add("ExportMeta", EXPORT_META)
    snapshot = schemas.add("Snapshot", _object({
        "id": {"type": "string", "description": "as_of and the first 12 hex digits of sha256, joined by a dot"},
        "as_of": {"type": "string", "format": "date"},
        "sha256": {**sha, "description": "sha256 of the CSV dataset archive (/api/export/csv/dataset.zip)"},
        "archive": {"type": "string", "description": "where object storage keeps this snapshot's CSV archive for "
                    "good (docs/changes.md#snapshots)"}}))
    manifest = schemas.add("ExportManifest", _object({
        "data": _object({"formats": {"type": "array", "items": export_format}, "tables": counts,
                         "snapshot": snapshot}),
        "meta": meta, "links": _ref("SelfLink")}))
    table = schemas.add("ExportTableDocument", _object({
        "data": {"type": "array", "items": {"type": "object", "additionalProperties": True,
                                            "description": "a row of the table"}},
        "meta": _object({**EXPORT_META["properties"], "table": {"type": "string"},
                         "rows": {"type": "integer", "minimum": 0}}),
        "links": _ref("SelfLink")}))
    return [manifest, table]


def _export_operation(route: ExportRoute, schemas: SchemaRegistry) -> dict[str, Any]:
    tables = [t.name for t in TABLES]
    binary = {"type": "string", "format": "binary"}
    return {
        "tags": [_tag(route.path)], "operationId": "export", "summary": route.summary,
        "description": route.description,
        "parameters": [
            {"name": "format", "in": "query", "required": False, "description": "Export format; without it, "
             "the manifest of every file. The front door also takes "
             + ", ".join(f"`{alias}` for `{name}`" for alias, name in EXPORT_FORMAT_ALIASES.items()) + ".",
             "schema": {"type": "string", "enum": list(route.formats)}},
            {"name": "table", "in": "query", "required": False, "description": "One table (needs `format`).",
             "schema": {"type": "string", "enum": tables}},
        ],
        "responses": {
            "200": {"description": "No query: the manifest (ExportManifest). `format` alone: a zip of every table "
                    f"in that format plus manifest.json ({EXPORT_DATASET}.zip). With `table`: that table as json "
                    "(ExportTableDocument), csv, parquet or JSON Lines (one row per line, as in the json table). "
                    "The media type depends on "
                    "the query: generated clients should fetch downloads through the file operations "
                    "(get_export_archive, get_export_table_csv, ...), which have one media type each.",
                    "content": {"application/json": {"schema": {"anyOf": _export_schemas(route, schemas)}},
                                ZIP: {"schema": binary},
                                DOWNLOAD_TYPES["csv"]: {"schema": {"type": "string"}},
                                DOWNLOAD_TYPES["parquet"]: {"schema": binary},
                                DOWNLOAD_TYPES["jsonl"]: {"schema": {"type": "string"}}},
                    "headers": ATTACHMENT},
            "400": INVALID_QUERY,
            "404": _problem_response("Unknown format or table, a table not offered in that format, or `table` "
                                     "without `format`"),
        },
    }


def _export_file_operations(route: ExportRoute) -> dict[str, Any]:
    """The export's files as operations of their own, one media type each, for clients that pick by response."""
    binary = {"type": "string", "format": "binary"}
    tables = {"name": "table", "in": "path", "required": True, "description": "table of the dataset",
              "schema": {"type": "string", "enum": [t.name for t in TABLES]}}
    archived = {"name": "format", "in": "path", "required": True, "description": "format of the archived tables",
                "schema": {"type": "string", "enum": list(route.formats)}}
    missing = _problem_response("No such file")

    def operation(name: str, summary: str, media: str, schema: dict[str, Any], *params: dict) -> dict[str, Any]:
        return {"get": {"tags": [_tag(route.path)], "operationId": name, "summary": summary,
                        "description": f"{summary}; the URL the manifest lists.", "parameters": list(params),
                        "responses": {"200": {"description": summary, "content": {media: {"schema": schema}},
                                              **({} if media == "application/json" else {"headers": ATTACHMENT})},
                                      "404": missing}}}

    return {
        route.index_path(): operation("get_export_manifest", "The manifest of every export file", "application/json",
                                      _ref("ExportManifest")),
        route.file_path("json", "{table}"): operation("get_export_table_json", "One table as JSON",
                                                      "application/json", _ref("ExportTableDocument"), tables),
        route.file_path("csv", "{table}"): operation("get_export_table_csv", "One table as CSV (RFC 4180)",
                                                     DOWNLOAD_TYPES["csv"], {"type": "string"}, tables),
        route.file_path("parquet", "{table}"): operation("get_export_table_parquet", "One table as Parquet",
                                                         DOWNLOAD_TYPES["parquet"], binary, tables),
        route.file_path("jsonl", "{table}"): operation("get_export_table_jsonl", "One table as JSON Lines (one row "
                                                       "a line, as in the JSON export)", DOWNLOAD_TYPES["jsonl"],
                                                       {"type": "string"}, tables),
        route.dataset_path("{format}"): operation("get_export_archive", "Every table of one format plus "
                                                  "manifest.json in one zip archive", ZIP, binary, archived),
    }


def prepare(info: DatasetInfo) -> None:
    """Make what ``document`` needs that does not depend on the listings (the models' JSON schemas, cached) ahead
    of it: a build does it while its worker processes render."""
    document(info, {r.name: {f.name: [] for f in r.filters} for r in ROUTES if isinstance(r, ListRoute)})


def document(info: DatasetInfo, domains: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """The whole OpenAPI document; ``domains`` maps route name -> filter name -> allowed values."""
    schemas = SchemaRegistry()
    _shared(schemas)
    paths: dict[str, Any] = {}
    tags: dict[str, str] = {}
    for route in ROUTES:
        tags.setdefault(_tag(route.path), route.summary)
        if isinstance(route, ListRoute):
            paths[route.path] = {"get": _list_operation(route, domains[route.name], schemas)}
        elif isinstance(route, DetailRoute):
            path, operation = _detail_operation(route, schemas)
            paths[path] = {"get": operation}
        elif isinstance(route, ExportRoute):
            paths[route.path] = {"get": _export_operation(route, schemas)}
            paths.update(_export_file_operations(route))
        elif isinstance(route, DocumentRoute):
            paths[route.path] = {"get": {
                "tags": [_tag(route.path)], "operationId": route.name, "summary": route.summary,
                "description": f"This document (also the file {route.file}).",
                "responses": {"200": _json({
                    "type": "object", "required": ["openapi", "info", "paths"], "additionalProperties": True,
                    "properties": {"openapi": {"type": "string", "enum": [OPENAPI_VERSION]},
                                   "info": {"type": "object"}, "paths": {"type": "object"}}}, "This document"),
                              "400": INVALID_QUERY,
                              "404": _problem_response("Not part of this build (a path below it, for example)")},
            }}
    public = {r.path for r in ROUTES if isinstance(r, DocumentRoute)}
    resolved = access.secure(resolve_nullable_refs(paths, schemas.schemas), public)
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": info.title, "version": API_VERSION,
            "description": (
                "A read-only company and IPO data API served entirely from precomputed static files. Every "
                "operation is GET. Query strings are mapped onto files by rewrite rules; the files themselves "
                "(path-style URLs such as /api/companies/sector=fintech/sort=-valuation,page=2.json and "
                "/api/companies/stripe.json) work on any static host, and every URL inside a body is one of them. "
                "Money is whole US dollars (`*_usd`), per-share prices US cents (`*_cents`), ratios are decimals, "
                f"dates ISO 8601 (YYYY-MM-DD), months YYYY-MM. Data as of {info.as_of.isoformat()}.\n\n"
                f"{semantics.markdown()}\n\n"
                "Keys: a site may ask for an API key (`Authorization: Bearer KEY` or `X-API-Key: KEY`) on every "
                "path but this document and the problem documents; without a valid one it answers 401. "
                "Development servers and hosts that only serve files ask for none.\n\n"
                f"{versions.POLICY_TEXT}\n\n"
                f"Disclaimer: {info.disclaimer}"
            ),
            "license": {"name": info.license},
        },
        "servers": [{"url": "/", "description": "the host serving the built files"}],
        "security": access.SECURITY,
        "tags": [{"name": name, "description": summary} for name, summary in tags.items()],
        "paths": resolved,
        "x-webhooks": versions.webhooks(),
        "components": {"schemas": schemas.finished(resolved), "securitySchemes": access.SECURITY_SCHEMES,
                       "responses": {"Unauthorized": access.UNAUTHORIZED_RESPONSE,
                                     "TooManyRequests": access.TOO_MANY_REQUESTS_RESPONSE}},
    }


__all__ = ["EXPORT_ROUTE", "document"]
