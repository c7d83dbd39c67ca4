"""RFC 9457 problem documents the build writes, and the site's 404 page."""

from __future__ import annotations

from collections.abc import Iterator

from generator.api.access import KEY_HEADER
from generator.api.registry import EXPORT_ROUTE, LIST_ROUTES
from generator.api.responses import Problem
from generator.api.rewrites import NOT_FOUND_FILE, SITE_404_FILE
from generator.dataset import serialize


def problem(slug: str, title: str, status: int, detail: str) -> bytes:
    return serialize.document(Problem(type=f"/#problem-{slug}", title=title, status=status, detail=detail))


NOT_FOUND = problem(
    "not-found", "Not Found", 404,
    "No resource at this URL: an unknown path or value, a query with no results, or a page past the last. "
    "A URL is published exactly when it has content; the facets on page 1 of every listing link to the "
    "refinements that have rows. See /api/openapi for the paths, parameters and allowed values.",
)


UNAUTHORIZED_FILE = "/api/errors/unauthorized.json"
UNAUTHORIZED = problem(
    "unauthorized", "Unauthorized", 401,
    f"This site asks for an API key on every path under /api/ but /api/openapi and /api/errors/: send it as "
    f"`Authorization: Bearer KEY` (or `{KEY_HEADER}: KEY`). A key in the query string is not accepted. No key, or "
    f"a key this site does not know, gets this answer.",
)
TOO_MANY_REQUESTS_FILE = "/api/errors/too-many-requests.json"
TOO_MANY_REQUESTS = problem(
    "too-many-requests", "Too Many Requests", 429,
    "Too many requests in a short time (counted per key, or per address without one): wait the number of seconds "
    "`Retry-After` gives, then send the request again.",
)

INVALID_QUERY_FILE = "/api/errors/invalid-query.json"
INVALID_QUERY = problem(
    "invalid-query", "Invalid query", 400,
    "The query front door could not take a parameter of this request: a name the route does not declare (a case "
    "variant such as `Sector`, an alias such as `min_valuation`, an unknown name), a parameter given twice, or a "
    "value outside its domain. The answer's `invalid-params` lists each one, `[{\"name\": ..., \"reason\": ...}]`, "
    "with the right spelling or the values it takes. Hosts without the front door answer 404 instead.",
)


def problem_files() -> Iterator[tuple[str, bytes]]:
    yield NOT_FOUND_FILE, NOT_FOUND
    yield INVALID_QUERY_FILE, INVALID_QUERY
    yield UNAUTHORIZED_FILE, UNAUTHORIZED
    yield TOO_MANY_REQUESTS_FILE, TOO_MANY_REQUESTS
    yield SITE_404_FILE, NOT_FOUND
    yield EXPORT_ROUTE.table_without_format_error, problem(
        f"{EXPORT_ROUTE.name}-table-without-format", "Missing parameter", 404,
        f"{EXPORT_ROUTE.path}: `table` needs `format` ({', '.join(EXPORT_ROUTE.formats)}), e.g. "
        f"{EXPORT_ROUTE.path}?format=csv&table=companies.",
    )
    yield EXPORT_ROUTE.unknown_format_error, problem(
        f"{EXPORT_ROUTE.name}-unknown-format", "Unknown format", 404,
        f"{EXPORT_ROUTE.path}: `format` is one of {', '.join(EXPORT_ROUTE.formats)}.",
    )
    for route in LIST_ROUTES:
        only = [f"`{f.name}`" for f in route.filters if not f.published]
        if only:
            yield route.front_door_error, problem(
                f"{route.name}-front-door-only", "Parameter answered by the front door only", 404,
                f"{route.path}: no file holds {', '.join(only)}; the query front door answers them (serve, the Netlify "
                "Edge Function, the Cloudflare worker, the clients). This host serves the published files alone.",
            )
        unsorted = route.unsorted_sets()
        if not route.incompatible_sets() and not unsorted:
            continue
        allowed = "; ".join(", ".join(f"`{f.name}`" for f in group) for group in route.file_groups)
        detail = f"{route.path}: these filters can be used together, with `page`: {allowed}."
        if unsorted:
            sets = "; ".join(" + ".join(f"`{n}`" for n in names) for names in unsorted)
            detail += (f" `sort` combines with at most {route.sort_depth} of them, and not with {sets}: such results "
                       "come in the default order.")
        yield route.combination_error, problem(
            f"{route.name}-filter-combination", "Unsupported parameter combination", 404,
            detail + " This request names parameters that do not combine; drop one of them.",
        )
