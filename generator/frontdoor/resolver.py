"""The front door: a request as a person writes it, answered exactly from the published files.

``Resolver(space, fetch).resolve(path, query)`` reads the query space (``space.py``) and fetches files through
``fetch(path) -> bytes | None``; nothing else. It checks the parameter names (declared spelling only; a case
variant, an alias or an unknown name is a 400 problem with RFC 9457 ``invalid-params``), folds the values (case,
accents, names and codes), and then answers from the one file that holds the answer; or, for what no file holds
as such (a ``minValuation`` between ladder rungs, a sort the files do not publish for a combination, a search
prefix shorter than the indexed ones), through the route's query index (``indexed.py``: the rows of the answer
and their total from the index, then only the pages of a published superset that hold the asked page's rows); or,
for text and company filters the index does not hold (``q`` with other filters, several words, a longer search
prefix), reads every page of the smallest published superset (the *base*: one word's or one company's files) and
filters, sorts and pages its rows in memory, in the route's order with its tie-break.

The JavaScript resolver (``js/frontdoor.mjs``) is a line-by-line translation of this module; both run the same
conformance table in the tests.
"""

from __future__ import annotations

from urllib.parse import unquote

from generator.frontdoor.common import (
    JSON,
    Answer,
    Fetch,
    Invalid,
    check_names,
    missing,
    not_found,
    parse_query,
    problem,
)
from generator.frontdoor.listing import Listing
from generator.frontdoor.space import slugify


class Resolver:
    """Answers requests over one query space and one ``fetch``; safe to share between threads (each request's
    state is its own ``_Request``)."""

    def __init__(self, space: dict, fetch: Fetch) -> None:
        self.space, self._fetch = space, fetch

    def resolve(self, path: str, query: str) -> Answer | None:
        """The answer to a request, or None for a path the front door leaves to the static files (the files
        themselves, the landing page, anything not an API route)."""
        request = _Request(self.space, self._fetch)
        trimmed = unquote(path).rstrip("/") or "/"
        try:
            answer = request.route(trimmed.lower(), trimmed, query)
        except Invalid as error:
            answer = problem(400, "Invalid query", error.detail, error.params)
        if answer is not None:
            answer.fetches = request.fetched
        return answer


class _Request:
    """One request's resolution: the files it reads are counted in ``fetched``."""

    def __init__(self, space: dict, fetch: Fetch) -> None:
        self.space, self._fetch = space, fetch
        self.tracking: list[str] = space["tracking"]
        self.fetched: list[str] = []

    def fetch(self, path: str) -> bytes | None:
        self.fetched.append(path)
        return self._fetch(path)

    def route(self, lowered: str, original: str, query: str) -> Answer | None:
        for name, route in self.space["routes"].items():
            if lowered == route["path"]:
                params = check_names(parse_query(query, self.tracking), route["params"], route["path"])
                return self._listing(name, route, params)
        export = self.space["export"]
        if lowered == export["path"]:
            return self._export(export, check_names(parse_query(query, self.tracking), ["format", "table"],
                                                    export["path"]))
        if lowered in self.space["documents"]:
            check_names(parse_query(query, self.tracking), [], lowered)
            return self._file(self.space["documents"][lowered])
        head, _, key = original.rpartition("/")
        if not key or "=" in key or key.endswith(".json") or "." in key:
            return None
        for kind, detail in self.space["details"].items():
            if head.lower() == detail["path"]:
                check_names(parse_query(query, self.tracking), [], f"{detail['path']}/{{key}}")
                for candidate in dict.fromkeys([key.lower(), slugify(key)]):
                    found = self.fetch(f"{detail['path']}/{candidate}.json")
                    if found is not None:
                        return Answer(200, found, JSON, f"{detail['path']}/{candidate}.json")
                return not_found(missing(kind, detail, key))
        return None

    def _file(self, path: str) -> Answer:
        body = self.fetch(path)
        if body is None:
            return not_found(f"{path}: not published")
        return Answer(200, body, JSON, path)

    def _export(self, export: dict, params: dict[str, str]) -> Answer:
        fmt = params.get("format", "").strip().lower()
        fmt = export.get("format_aliases", {}).get(fmt, fmt)  # ndjson: jsonl
        table = slugify(params["table"]).replace("-", "_") if "table" in params else None
        if "format" not in params:
            if table is None:
                return self._file(f"{export['path']}/index.json")
            fmt = "json"  # a table without a format: its json (rewrite-only hosts answer a problem)
        if fmt not in export["formats"]:
            raise Invalid([{"name": "format", "reason": "one of " + ", ".join(export["formats"])}],
                          f"{export['path']}: unknown format {params['format']!r}")
        if table is not None and table not in export["tables"]:
            raise Invalid([{"name": "table", "reason": "one of " + ", ".join(export["tables"])}],
                          f"{export['path']}: unknown table {params['table']!r}")
        name = f"{export['dataset']}.zip" if table is None else f"{table}.{fmt}"
        found = self._file(f"{export['path']}/{fmt}/{name}")
        found.content_type = {"csv": "text/csv; charset=utf-8", "parquet": "application/vnd.apache.parquet",
                              "jsonl": "application/jsonl; charset=utf-8",
                              "zip": "application/zip"}.get(name.rpartition(".")[2], JSON)
        return found

    def _listing(self, name: str, route: dict, params: dict[str, str]) -> Answer:
        return Listing(self.fetch, route, params, self.space["meta"]).answer()
