"""A local static server: the query front door in front of the files, or (``rewrite_only``) Netlify's rewrite
semantics alone, driven by the same rules as ``netlify.toml``.

The front door (``generator.frontdoor``) answers the API's routes as a person writes them (any case, names and
codes, any ``minValuation``, every combination; a 400 problem naming a wrong parameter), reading the build's
``/api/query-space.json`` and its files; the path-style files themselves and everything else are served as they
are. Order of resolution of the rewrite-only mode (and of what the front door leaves to the files), as on
Netlify: an existing file at the request path wins; otherwise the first matching rule rewrites (status 200:
serve the target, or the site's 404 page if it is missing; status 404: serve the target with 404); otherwise
the site's 404 page. Nothing outside the served folder is ever read.

Every request gets an answer: a request line that cannot be parsed gets 400, a path that cannot name a file
(a symbolic-link loop, a name too long) gets the 404 page, and so does a dotfile (the build's bookkeeping
files are not published); a client's mistake or a dropped connection never
prints a traceback. The listen backlog holds a burst of a few hundred clients. A ``Range`` request for one range of
bytes gets them (206), as from the static hosts: data tools (Polars, DuckDB, Arrow) read downloads over HTTP that
way.

With ``keys`` (``serve --keys FILE``: a file of SHA-256 digests of the valid keys, ``generator.frontdoor.keys``),
every path but the public ones (``generator.api.access.PUBLIC_PATH``) asks for a key, the files included, and an
answer given to a key is private to it; without, nothing asks for one (development). A digest file that cannot be
read as digests stops ``make_server`` (``keys.DigestFileError``, naming the file and line). Whatever the keys: a
preflight (``OPTIONS``) gets 204 without a body on every path, any other method but GET and HEAD the 405 problem.
A connection silent for ``idle_timeout`` seconds is closed.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from generator.api.access import KEY_HEADER
from generator.api.problems import UNAUTHORIZED
from generator.api.rewrites import CONTENT_TYPES, SITE_404_FILE, Router, headers_for, rules
from generator.api.versions import SNAPSHOT_HEADER
from generator.frontdoor import keys
from generator.frontdoor.resolver import Answer, Resolver
from generator.frontdoor.space import QUERY_SPACE_FILE

PROBLEM_TYPE = "application/problem+json; charset=utf-8"
METHOD_NOT_ALLOWED = keys.METHOD_NOT_ALLOWED
IDLE_TIMEOUT = 60.0
"""Seconds a connection may stay silent (no request line, header or body byte read, nothing written) before it is
closed: a half-open or idle client does not hold a thread for ever."""


BYTE_RANGE = re.compile(r"bytes=([0-9]*)-([0-9]*)")


def byte_range(header: str | None, size: int) -> range | None:
    """The bytes of a body of ``size`` bytes that a ``Range`` header asks for (RFC 9110 14.1.2): None for the whole
    body (no header, or one that is not a single range of bytes, which a server may ignore); an empty range when
    it cannot be satisfied (it starts past the end: 416)."""
    found = BYTE_RANGE.fullmatch(header.strip()) if header else None
    if found is None or found.groups() == ("", ""):
        return None
    first, last = found.groups()
    if not first:  # the last N bytes
        return range(max(0, size - int(last)), size) if int(last) else range(0)
    if last and int(last) < int(first):
        return None  # invalid: ignored
    return range(int(first), min(size, int(last) + 1) if last else size)


class Site:
    """Resolve request paths to files under ``root``, refusing anything that escapes it."""

    def __init__(self, root: Path, rewrite_only: bool = False, digests: Path | None = None) -> None:
        self.root = root.resolve()
        self.router = Router(rules())
        self.keys = keys.DigestFile(digests) if digests is not None else None
        self.front_door: Resolver | None = None
        space = self.read(QUERY_SPACE_FILE)
        described = json.loads(space) if space is not None else {}
        if space is not None and not rewrite_only:
            self.front_door = Resolver(described, self.read)
        self.snapshot: str | None = (described.get("snapshot") or {}).get("id")
        """The build's snapshot, named in every /api/ response (``Dataset-Snapshot``)."""

    def read(self, url_path: str) -> bytes | None:
        """The bytes of the file at a path (None when there is none): what the front door reads."""
        found = self.file(url_path)
        try:
            return found.read_bytes() if found is not None else None
        except OSError:
            return None

    def verdict(self, url_path: str, authorization: str | None, api_key: str | None) -> keys.Verdict:
        """The key gate's decision (always open without ``--keys``)."""
        if self.keys is None:
            return keys.OPEN
        return keys.check(self.keys.current(), url_path, authorization, api_key)

    def answer(self, url_path: str, query: str) -> Answer | None:
        """The front door's answer, or None when it leaves the request to the files (or is off)."""
        return self.front_door.resolve(url_path, query) if self.front_door is not None else None

    def file(self, url_path: str) -> Path | None:
        decoded = unquote(url_path)
        if "\x00" in decoded or any(part.startswith(".") for part in decoded.split("/")):
            return None  # dotfiles (the build's bookkeeping) are never published
        try:
            candidate = (self.root / decoded.lstrip("/")).resolve()
            if candidate != self.root and self.root not in candidate.parents:
                return None
            if candidate.is_dir():
                candidate = candidate / "index.html"
            return candidate if candidate.is_file() else None
        except (OSError, ValueError, RuntimeError):  # a name too long, a symbolic-link loop: no such file
            return None

    def resolve(self, url_path: str, query: str) -> tuple[int, Path | None, str]:
        """(status, file, the path the file was found at) for a request."""
        found = self.file(url_path)
        if found is not None:
            return 200, found, url_path
        match = self.router.match(url_path, query)
        if match is not None:
            target_path = urlsplit(match.target).path
            # An empty placeholder leaves an empty segment ("//"); no deployed file has one.
            target = None if "//" in target_path else self.file(target_path)
            if target is not None:
                return match.rule.status, target, match.target
        return 404, self.file(SITE_404_FILE), SITE_404_FILE


def make_handler(site: Site, idle_timeout: float = IDLE_TIMEOUT) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "company-ipo-api"
        sys_version = ""
        default_request_version = "HTTP/1.0"  # never answer in HTTP/0.9 (a body without a status line)
        timeout = idle_timeout  # each read and write of the connection (StreamRequestHandler sets it on the socket)

        def _respond(self, with_body: bool) -> None:
            try:
                parts = urlsplit(self.path)
            except ValueError:  # e.g. "GET http://[::1 HTTP/1.1": not a URL
                self.send_error(HTTPStatus.BAD_REQUEST, "Bad request target")
                return
            verdict = site.verdict(parts.path, self.headers.get("Authorization"), self.headers.get(KEY_HEADER))
            gate = keys.verdict_headers(verdict)
            if not verdict.allowed:
                headers = {**headers_for("/api/"), "Content-Type": PROBLEM_TYPE, **gate}  # CORS on any path
                self._send(HTTPStatus.UNAUTHORIZED, headers, UNAUTHORIZED, with_body)
                return
            answer = site.answer(parts.path, parts.query)
            if answer is not None:
                served = answer.file or parts.path
                headers = {**headers_for(parts.path), **headers_for(served), "Content-Type": answer.content_type,
                           **gate}
                self._send(answer.status, headers, answer.body, with_body)
                return
            status, file, served_as = site.resolve(parts.path, parts.query)
            try:
                body = file.read_bytes() if file is not None else b""
            except OSError:  # gone or unreadable since it was resolved: the 404 page
                status, file = 404, site.file(SITE_404_FILE)
                body, served_as = (file.read_bytes() if file is not None else b""), SITE_404_FILE
            served_file = file.name if file is not None else served_as
            content_type = CONTENT_TYPES.get(os.path.splitext(served_file)[1], "application/octet-stream")
            headers = {"Content-Type": content_type, **headers_for(parts.path), **headers_for(served_as), **gate}
            self._send(status, headers, body, with_body)

        def _send(self, status: int, headers: dict[str, str], body: bytes, with_body: bool) -> None:
            if site.snapshot is not None and keys.is_api(urlsplit(self.path).path):
                headers = {**headers, SNAPSHOT_HEADER: site.snapshot}
            if status == HTTPStatus.OK:
                headers = {**headers, "Accept-Ranges": "bytes"}
                wanted = byte_range(self.headers.get("Range"), len(body))
                if wanted is not None and not wanted:
                    headers["Content-Range"] = f"bytes */{len(body)}"
                    status, body = HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, b""
                elif wanted is not None:
                    headers["Content-Range"] = f"bytes {wanted.start}-{wanted.stop - 1}/{len(body)}"
                    status, body = HTTPStatus.PARTIAL_CONTENT, body[wanted.start:wanted.stop]
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._respond(with_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._respond(with_body=False)

        def do_OPTIONS(self) -> None:  # noqa: N802
            # a preflight never carries the key and never gets a body: the CORS headers on any spelling of /api/
            try:
                path = urlsplit(self.path).path
            except ValueError:
                self.send_error(HTTPStatus.BAD_REQUEST, "Bad request target")
                return
            self.send_response(HTTPStatus.NO_CONTENT)
            headers = headers_for("/api/") if keys.is_api(path) else {}
            for name, value in {**headers, "Allow": keys.ALLOWED_METHODS}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def __getattr__(self, name: str) -> object:
            # Any other method (POST, PUT, TRACE, ...): the API is read-only.
            if name.startswith("do_"):
                return self._method_not_allowed
            raise AttributeError(name)

        def _method_not_allowed(self) -> None:
            body = METHOD_NOT_ALLOWED
            self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
            headers = {**headers_for("/api/"), "Allow": keys.ALLOWED_METHODS, "Content-Type": PROBLEM_TYPE}
            for name, value in headers.items():  # CORS on any path, as the 401
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            if not getattr(self.server, "quiet", False):
                super().log_message(format, *args)

    return Handler


CLIENT_ERRORS = (ConnectionError, TimeoutError, socket.timeout)
"""A client that goes away mid-request: nothing to report."""


class SiteServer(ThreadingHTTPServer):
    request_queue_size = 1024  # the kernel caps it at net.core.somaxconn
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, CLIENT_ERRORS):
            return
        if not getattr(self, "quiet", False):
            sys.stderr.write(f"serve: {client_address}: {type(error).__name__}: {error}\n")


def make_server(root: Path, host: str, port: int, quiet: bool = False, rewrite_only: bool = False,
                digests: Path | None = None, idle_timeout: float = IDLE_TIMEOUT) -> ThreadingHTTPServer:
    """``digests``: the file of key digests (``--keys``); keys are asked for only with one (``keys.DigestFileError``
    when it cannot be read as digests). ``idle_timeout``: seconds a silent connection is kept."""
    site = Site(root, rewrite_only, digests)
    server = SiteServer((host, port), make_handler(site, idle_timeout))
    server.quiet = quiet  # type: ignore[attr-defined]
    server.site = site  # type: ignore[attr-defined]
    return server
