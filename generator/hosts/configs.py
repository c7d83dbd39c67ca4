"""Generated host configuration: netlify.toml, Cloudflare Pages' _headers and the nginx config of an offline
mirror."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from generator.api.rewrites import CONTENT_TYPES, HEADERS, Router, Rule, rules
from generator.api.versions import SNAPSHOT_HEADER
from generator.frontdoor.space import QUERY_SPACE_FILE
from generator.hosts import templates


def netlify_toml() -> str:
    return templates.render("netlify.toml.j2", rules=rules(), headers=HEADERS)


def headers_file(snapshot: str | None = None) -> str:
    """The ``_headers`` file of the output, for hosts that read one (Cloudflare Pages; Netlify reads the same
    format): the [[headers]] of netlify.toml (CORS, caching, the types of error documents and downloads). The
    build writes it as ``_headers``; ``python -m generator cloudflare-headers`` prints it. Cloudflare Pages has
    no query-string rewrites: clients there use the path-style URLs."""
    lines = ["# Generated from the route registry: the [[headers]] of netlify.toml for hosts that read _headers."]
    for rule in HEADERS:
        lines.append(rule.path)
        lines += [f"  {name}: {value}" for name, value in rule.values]
        if snapshot is not None and rule is HEADERS[0]:  # the build's: /api/* names the data it serves
            lines.append(f"  {SNAPSHOT_HEADER}: {snapshot}")
    return "\n".join(lines) + "\n"


# nginx ------------------------------------------------------------------------------------------------------------

NGINX_STATUSES = (200, 404)
"""Rule statuses the nginx config reproduces (a rewrite, or a file served with 404)."""


@dataclass(frozen=True)
class _MapEntry:
    regex: str
    target: str
    status: str


@dataclass(frozen=True)
class _Group:
    """The query rules of one literal path, as ``map $args`` entries in rule order."""

    path: str
    entries: tuple[_MapEntry, ...]
    default: _MapEntry | None


@dataclass(frozen=True)
class _Header:
    name: str
    entries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _TypedLocation:
    match: str
    content_type: str


class _Captures:
    """PCRE named captures for placeholders, named ``rw_N`` so they never clash with nginx variables."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __call__(self, placeholder: str) -> str:
        return self._names.setdefault(placeholder, f"rw_{len(self._names)}")


def _is_literal(path: str) -> bool:
    return not any(segment == "*" or segment.startswith(":") for segment in path.split("/"))


def _check(text: str, what: str) -> str:
    """``text`` unchanged if it can sit between double quotes in nginx.conf as a literal."""
    if re.search(r'["\\$\x00-\x1f]', text):
        raise ValueError(f"cannot write {what} {text!r} into nginx.conf")
    return text


def _path_regex(path: str, captures: _Captures) -> str:
    """Netlify path syntax -> PCRE on the raw request path (a trailing slash allowed, ``/x/*`` matches ``/x``)."""
    parts = []
    for segment in path.strip("/").split("/"):
        if segment == "*":
            parts.append(f"(?:/(?<{captures('splat')}>.*))?")
        elif segment.startswith(":"):
            parts.append(f"/(?<{captures(segment[1:])}>[^/]+)")
        elif segment:
            parts.append("/" + re.escape(segment))
    return "~^" + "".join(parts) + "/?$"


def _query_regex(rule: Rule, captures: _Captures) -> str:
    """Every name present with ``=`` (value possibly empty, or the rule's literal value); the greedy ``.*``
    picks the last repeated key."""
    parts = []
    for name, value in rule.conditions:
        if value is None:
            parts.append(f"(?=(?:.*&)?{re.escape(name)}=(?<{captures(name)}>[^&]*))")
        else:
            # Each character also as its percent-escape, as `serve` and Netlify decode values before comparing.
            spelled = "".join(f"(?:{re.escape(c)}|%{ord(c):02X}|%{ord(c):02x})" for c in _check(value, "query value"))
            parts.append(f"(?=(?:.*&)?{re.escape(name)}={spelled}(?:&|$))")
    return "~^" + "".join(parts)


def _target(to: str, captures: _Captures) -> str:
    return re.sub(r":([A-Za-z_][A-Za-z0-9_]*)", lambda m: "${" + captures(m.group(1)) + "}", _check(to, "target"))


def _groups_and_paths(rule_list: list[Rule], captures: _Captures) -> tuple[list[_Group], list[_MapEntry]]:
    """Query rules become one ``map $args`` per literal path; the path map selects in rule order."""
    for rule in rule_list:
        if rule.status not in NGINX_STATUSES:
            raise ValueError(f"nginx.conf: rule {rule.path} -> {rule.to} has status {rule.status}, not one of "
                             f"{NGINX_STATUSES}")
        if rule.query and not _is_literal(rule.path):
            raise ValueError(f"nginx.conf: query conditions on a pattern path ({rule.path}) are not supported")
    groups: list[_Group] = []
    paths: list[_MapEntry] = []
    grouped: set[str] = set()
    for index, rule in enumerate(rule_list):
        if not _is_literal(rule.path):
            paths.append(_MapEntry(_path_regex(rule.path, captures), _target(rule.to, captures), str(rule.status)))
            continue
        path = rule.path.rstrip("/") or "/"
        if path in grouped:
            continue
        grouped.add(path)
        # Every later rule that can match this path, in order, until one matches whatever the query.
        entries: list[_MapEntry] = []
        default = None
        for later in rule_list[index:]:
            match = Router([Rule(later.path, later.to, later.status)]).match(path, "")
            if match is None:
                continue
            to = later.to if later.query else match.target  # placeholders of the path bound to constants
            if not later.query:
                default = _MapEntry("", _target(to, captures), str(later.status))
                break
            entries.append(_MapEntry(_query_regex(later, captures), _target(to, captures), str(later.status)))
        number = len(groups)
        groups.append(_Group(path, tuple(entries), default))
        regex = "~^" + re.escape(path.rstrip("/")) + "/?$"
        paths.append(_MapEntry(regex, f"$rw_target_{number}", f"$rw_status_{number}"))
    return groups, paths


def _header_regex(pattern: str, served: bool) -> str:
    """A Netlify ``for`` pattern on ``"$rw_path $uri"``: the request path first, the served path after the space."""
    body = re.escape(pattern[:-1]) if pattern.endswith("*") else re.escape(pattern) + ("$" if served else " ")
    return ("~^[^ ]* " if served else "~^") + body


def _headers() -> tuple[list[_Header], list[_TypedLocation]]:
    """Extra headers by path through ``add_header``; Content-Type through per-location ``default_type``."""
    names: list[str] = []
    for rule in HEADERS:
        names += [name for name, _ in rule.values if name not in names and name.lower() != "content-type"]
    headers = []
    for name in names:
        entries: list[tuple[str, str]] = []
        for served in (True, False):  # the served file's rules win over the request path's; later rules win
            for rule in reversed(HEADERS):
                for header, value in rule.values:
                    if header == name:
                        entries.append((_header_regex(rule.path, served), _check(value, "header value")))
        headers.append(_Header(name, tuple(entries)))
    typed = []
    for rule in HEADERS:
        for header, value in rule.values:
            if header.lower() == "content-type":
                prefix = rule.path.endswith("*")
                match = f'^~ "{_check(rule.path[:-1], "path")}"' if prefix else f'= "{_check(rule.path, "path")}"'
                typed.append(_TypedLocation(match, _check(value, "content type")))
    return headers, typed


def _types() -> list[tuple[str, list[str]]]:
    by_type: dict[str, list[str]] = {}
    for extension, content_type in CONTENT_TYPES.items():
        by_type.setdefault(_check(content_type, "content type"), []).append(_check(extension.lstrip("."), "extension"))
    return list(by_type.items())


MAX_ESCAPES = 128
"""Percent-escapes of one rewrite target the nginx config decodes (stock nginx has no loop; more are left as is, and
the target is then no file: 404). Every published query spelled with each character percent-encoded fits: its
values together are at most about 80 characters (a long company slug with a form and a page; measured: a route's
longest combination, every filter at its longest value, 58 characters on /api/companies)."""


def _escapes() -> list[tuple[str, str]]:
    """``%XX`` pairs that ``quote_plus(unquote_plus(...))`` turns into a character: the unreserved ASCII ones, and
    a space as ``+``. nginx compares map keys case-insensitively: one key covers %2d and %2D."""
    unreserved = [b for b in range(0x80) if chr(b).isalnum() or chr(b) in "_.-~"]
    return [(f"{b:02x}", chr(b)) for b in unreserved] + [("20", "+")]


def snapshot_of(root: Path) -> str | None:
    """The snapshot the built folder names (its query space's), or None (not built yet, or an older build)."""
    try:
        space = json.loads((root / QUERY_SPACE_FILE.lstrip("/")).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = (space.get("snapshot") or {}).get("id") if isinstance(space, dict) else None
    return found if isinstance(found, str) else None


def nginx_conf(root: Path, port: int, standalone: bool = True) -> str:
    """A complete nginx.conf serving the built folder ``root`` on 127.0.0.1:``port`` with the rules of netlify.toml.

    Run it in the foreground with ``nginx -c FILE -p PREFIX -e stderr``: pid, lock and temp files go below PREFIX.
    ``standalone=False``: only the maps and the server block, to ``include`` inside an existing ``http`` block.
    """
    types_block = "\n".join(["  types {", *(f'    "{t}" {" ".join(e)};' for t, e in _types()), "  }",
                              "  default_type application/octet-stream;"])
    rule_list = rules()
    captures = _Captures()
    groups, paths = _groups_and_paths(rule_list, captures)
    headers, typed_locations = _headers()
    snapshot = snapshot_of(root)
    if snapshot is not None:  # the build's, on every /api/ path
        headers.append(_Header(SNAPSHOT_HEADER, ((_header_regex("/api/*", False), _check(snapshot, "snapshot")),)))
    return templates.render(
        "nginx.conf.j2",
        rule_count=len(rule_list),
        root=_check(str(root.resolve()), "root folder"),
        port=int(port),
        types_block=types_block,
        standalone=standalone,
        groups=groups,
        paths=paths,
        headers=headers,
        typed_locations=typed_locations,
        escapes=_escapes(),
        max_escapes=MAX_ESCAPES,
    )
