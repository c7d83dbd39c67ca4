"""What both halves of the front door share: the answer, the 400 problem, query parsing and name checks."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote_plus

from generator.frontdoor.space import slugify

Fetch = Callable[[str], "bytes | None"]
JSON = "application/json; charset=utf-8"
PROBLEM = "application/problem+json; charset=utf-8"
NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
PAGE = re.compile(r"[1-9][0-9]{0,8}")
ALIASES = {"query": "q", "search": "q", "text": "q", "order": "sort", "orderby": "sort", "sortby": "sort",
           "p": "page", "pagenumber": "page", "offset": "page", "limit": "page", "perpage": "page",
           "pagesize": "page", "size": "page", "count": "page"}
"""Names people write for a declared parameter (compared with case and punctuation folded)."""
PAGE_SIZE = ("offset", "limit", "perpage", "pagesize", "size", "count")
"""Of those, the names of a page size or an offset: pages have a fixed size, so the hint says how to page."""


@dataclass
class Answer:
    status: int
    body: bytes
    content_type: str = JSON
    file: str | None = None
    """The published file answered as it is (a host adds that file's headers), else None."""
    fetches: list[str] = field(default_factory=list)


class Invalid(Exception):
    def __init__(self, params: list[dict[str, str]], detail: str) -> None:
        super().__init__(detail)
        self.params, self.detail = params, detail


def _dumps(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def problem(status: int, title: str, detail: str, params: list[dict[str, str]] | None = None) -> Answer:
    body: dict[str, object] = {"type": "/#problem-" + ("invalid-query" if status == 400 else "not-found"),
                               "title": title, "status": status, "detail": detail}
    if params:
        body["invalid-params"] = params
    return Answer(status, _dumps(body), PROBLEM)


def not_found(detail: str) -> Answer:
    return problem(404, "Not Found", detail)


def missing(kind: str, detail: dict, key: str) -> str:
    """The 404 detail of an unknown profile: what it is addressed by, and the search that finds one."""
    found = words(key)
    hint = f"; search for one: /api/search?q={'%20'.join(found)}&type={kind}" if found else ""
    return f"{detail['path']}/{key}: no {kind} with this {' or '.join(detail['keys'])}{hint}"


def _fold_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def parse_query(query: str, tracking: list[str]) -> dict[str, list[str]]:
    """Names (percent-decoded) -> their values (form-decoded), in order; empty pieces (``a=1&&b=2&``) and
    tracking parameters are dropped."""
    params: dict[str, list[str]] = {}
    for piece in query.split("&"):
        if not piece:
            continue
        raw_name, _, raw_value = piece.partition("=")
        name = unquote_plus(raw_name)
        if any(name == t or (t.endswith("*") and name.startswith(t[:-1])) for t in tracking):
            continue
        params.setdefault(name, []).append(unquote_plus(raw_value))
    return params


def check_names(params: dict[str, list[str]], declared: list[str], where: str) -> dict[str, str]:
    """One value per declared name, or ``Invalid`` naming every name that is not declared or given twice."""
    wrong: list[dict[str, str]] = []
    by_fold = {_fold_name(n): n for n in declared}
    for name, values in params.items():
        if name not in declared:
            folded = _fold_name(name)
            alias = ALIASES.get(folded)
            meant = by_fold.get(folded) or (alias if alias in declared else None)
            hint = f"did you mean `{meant}`?" if meant else f"{where} takes {', '.join(f'`{d}`' for d in declared)}"
            if meant == "page" and folded in PAGE_SIZE:
                hint = "pages have a fixed size (`meta.per_page`): page through with `page` (1, 2, ...)"
            wrong.append({"name": name, "reason": f"unknown parameter: {hint}" if declared else
                          f"unknown parameter: {where} takes no parameters"})
        elif len(values) > 1:
            wrong.append({"name": name, "reason": f"given {len(values)} times; give it once"})
    if wrong:
        raise Invalid(wrong, f"{where}: " + "; ".join(f"`{w['name']}`: {w['reason']}" for w in wrong))
    return {name: values[0] for name, values in params.items()}


def words(text: str) -> list[str]:
    return [w for w in slugify(text).split("-") if w]


def query_words(text: str, optional: list[str]) -> list[str]:
    """The words of ``q`` that must match: its words without the ``optional`` ones (a legal form: the text filter's
    ``optional_words`` in the query space), unless that is all of them."""
    found = words(text)
    return [w for w in found if w not in optional] or found
