"""RFC 9457 problem documents the build writes, and the site's 404 page."""

from __future__ import annotations

from collections.abc import Iterator

from generator import serialize
from generator.registry import EXPORT_ROUTE, LIST_ROUTES
from generator.responses import Problem
from generator.rewrites import NOT_FOUND_FILE, SITE_404_FILE


def problem(slug: str, title: str, status: int, detail: str) -> bytes:
    return serialize.document(Problem(type=f"/#problem-{slug}", title=title, status=status, detail=detail))


NOT_FOUND = problem(
    "not-found", "Not Found", 404,
    "No resource at this URL: the path, a filter value or a page number is not one the API publishes. "
    "See /api/openapi for the paths, parameters and allowed values.",
)


def problem_files() -> Iterator[tuple[str, bytes]]:
    yield NOT_FOUND_FILE, NOT_FOUND
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
        if not route.incompatible_sets():
            continue
        allowed = "; ".join(", ".join(f"`{f.name}`" for f in group) for group in route.groups)
        yield route.combination_error, problem(
            f"{route.name}-filter-combination", "Unsupported parameter combination", 404,
            f"{route.path}: these filters can be used together (each set with `sort` and `page`): {allowed}. "
            "This request names filters from different sets; drop one of them.",
        )
