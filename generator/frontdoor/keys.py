"""The key gate of the front doors that run code (the scheme: ``generator.api.access``).

A site holds the SHA-256 digests of its valid keys, never the keys: a text of 64-digit hex digests separated by
commas, spaces or lines, ``#`` starting a comment (the environment variable ``API_KEY_DIGESTS`` on Netlify and
Cloudflare, the file ``serve --keys FILE`` reads). Keys are on as soon as that text holds anything: an entry that
is not a digest (a key pasted by mistake) is never matched, so a wrong entry locks the API rather than opening it.
A key is checked by comparing its digest with every digest held, each in constant time (``hmac.compare_digest``),
without stopping at the first match.

``check`` decides a GET or HEAD request: open (keys off), public (``access.PUBLIC_PATH``, on the percent-decoded path:
any other spelling of any path asks for a key), keyed (a valid key: the answer is private to it) or refused (401).
Every host answers a preflight (``OPTIONS``) with 204 and no body on every path, and any other method with the 405
problem, before the gate. ``js/keys.mjs`` is its line-by-line translation for the edge functions; the tests run both
on the same cases.

``serve --keys FILE`` reads its file strictly (``read_digest_file``): a line that is not digests, blanks, commas and
comments (a no-break space, a byte that is not UTF-8, a key pasted instead of its digest) is an error naming the
file, line and column, and ``serve`` refuses to start; a UTF-8 byte-order mark at the start is skipped.
"""

from __future__ import annotations

import codecs
import hashlib
import hmac
import re
import secrets
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from generator.api import access
from generator.api.problems import problem

KEY_PREFIX = "cia_"
"""Every key starts so (company-ipo-api): a person and a secret scanner can tell one from a digest."""
DIGEST = re.compile(r"[0-9a-fA-F]{64}")
_PUBLIC = re.compile(access.PUBLIC_PATH)
_LINES = re.compile(r"\r\n|\r|\n")
_SEPARATORS = re.compile(r"[ \t,]+")
_BLANKS = " \t"
"""What separates and surrounds values: ASCII spaces and tabs only, the same in both languages."""
ALLOWED_METHODS = "GET, HEAD, OPTIONS"
"""``Allow`` of the 405 answer: the API is read-only."""
METHOD_NOT_ALLOWED = problem("method-not-allowed", "Method Not Allowed", 405,
                             "The API is read-only: use GET (or HEAD, OPTIONS).")
PUBLIC_DOCUMENTS = {"/api/openapi": "/api/openapi.json"}
"""The public paths the front door answers with a file (the query description's ``documents``): an edge function
answers them from that public file alone, without reading the description, which needs a key."""
_BAD_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})")


def new_key() -> str:
    """A new key: the prefix and 256 random bits, URL-safe base64."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def parse_digests(text: str | None) -> frozenset[str] | None:
    """The digests a text holds; None (keys off) when there is no text or only blanks."""
    if text is None or not text.strip(" \t\r\n,"):
        return None
    found: set[str] = set()
    for line in _LINES.split(text):
        for token in _SEPARATORS.split(line.partition("#")[0]):
            if DIGEST.fullmatch(token):
                found.add(token.lower())
    return frozenset(found)


def credential(authorization: str | None, api_key: str | None) -> str | None:
    """The key a request sends: a Bearer token (the scheme in any case), else the ``X-API-Key`` header."""
    scheme, _, token = (authorization or "").strip(_BLANKS).partition(" ")
    if scheme.lower() == "bearer" and token.strip(_BLANKS):
        return token.strip(_BLANKS)
    return api_key.strip(_BLANKS) if api_key and api_key.strip(_BLANKS) else None


def is_public(path: str) -> bool:
    return _PUBLIC.fullmatch(unquote(path)) is not None


def normal_path(path: str) -> str | None:
    """A request path as a host reads it: percent-decoded once, runs of ``/`` collapsed, ``.`` and ``..`` segments
    resolved (never above the root); None when it does not decode (no file has such a path)."""
    if _BAD_ESCAPE.search(path):
        return None
    try:
        decoded = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    segments: list[str] = []
    parts = decoded.split("/")
    for part in parts:
        if part == "..":
            if segments:
                segments.pop()
        elif part not in ("", "."):
            segments.append(part)
    trailing = bool(segments) and parts[-1] in ("", ".", "..")
    return "/" + "/".join(segments) + ("/" if trailing else "")


def is_api(path: str) -> bool:
    """Whether a request path, in any spelling and any case, is under ``/api``."""
    normal = (normal_path(path) or "").lower()
    return normal == "/api" or normal.startswith("/api/")


def known(digests: frozenset[str], key: str) -> bool:
    """Whether the key's digest is one of ``digests``: compared with each, in constant time, in a fixed order."""
    found = False
    asked = digest(key)
    for held in sorted(digests):
        found = hmac.compare_digest(asked, held) or found
    return found


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    keyed: bool
    """Keys are on and the path needs one: the answer carries ``private`` caching (or is the 401)."""
    presented: bool = False


OPEN = Verdict(allowed=True, keyed=False)


def check(digests: frozenset[str] | None, path: str, authorization: str | None, api_key: str | None) -> Verdict:
    """The gate's decision for a GET or HEAD request (a preflight ``OPTIONS`` never needs a key)."""
    if digests is None or is_public(path):
        return OPEN
    key = credential(authorization, api_key)
    if key is None:
        return Verdict(allowed=False, keyed=True)
    return Verdict(allowed=known(digests, key), keyed=True, presented=True)


def verdict_headers(verdict: Verdict) -> dict[str, str]:
    """The headers the gate sets over an answer's own: private caching for a keyed answer, the challenge for a 401."""
    if not verdict.keyed:
        return {}
    if verdict.allowed:
        return {"Cache-Control": access.KEYED_CACHE_CONTROL, "Vary": access.VARY}
    return {"Cache-Control": access.REFUSED_CACHE_CONTROL, "Vary": access.VARY,
            "WWW-Authenticate": access.www_authenticate(verdict.presented)}


class DigestFileError(ValueError):
    """A digest file that cannot be read as digests: the message names the file, the line and what is wrong."""


def _wrong_token(token: str) -> str:
    odd = next((c for c in token if not (c.isascii() and c.isprintable())), None)
    if odd is not None:
        name = unicodedata.name(odd, "a control character")
        return f"U+{ord(odd):04X} {name}: only ASCII spaces, tabs and commas separate digests"
    return "not a SHA-256 digest (64 hex digits): a key pasted instead of its digest?"


def read_digest_file(path: Path) -> frozenset[str]:
    """The digests of a ``serve --keys`` file, read strictly: every entry outside a ``#`` comment is a digest
    (the entry itself is never quoted: it may be a key). A UTF-8 byte-order mark at the start is skipped."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DigestFileError(f"{path}: cannot be read ({error.strerror or error})") from None
    data = data.removeprefix(codecs.BOM_UTF8)
    found: set[str] = set()
    for number, line in enumerate(re.split(rb"\r\n|\r|\n", data), 1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DigestFileError(f"{path}, line {number}, column {error.start + 1}: byte "
                                  f"0x{line[error.start]:02x} is not UTF-8") from None
        content = text.partition("#")[0]
        column = 0
        for token in _SEPARATORS.split(content):
            column = content.index(token, column) if token else column
            if token and not DIGEST.fullmatch(token):
                raise DigestFileError(f"{path}, line {number}, column {column + 1}: {_wrong_token(token)}")
            if token:
                found.add(token.lower())
            column += len(token)
    return frozenset(found)


class DigestFile:
    """The digests of ``serve --keys FILE``, read on every request (the file is small): a digest removed from it is
    refused from the next request on. The file is read at start (``DigestFileError``: serve does not start); one
    that later cannot be read holds no digest (every key is refused) and the reason is written to stderr once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.at_start = read_digest_file(path)
        self._reported = ""

    def current(self) -> frozenset[str]:
        try:
            return read_digest_file(self.path)
        except DigestFileError as error:
            if str(error) != self._reported:
                self._reported = str(error)
                sys.stderr.write(f"serve: {error}: every key is refused until it is fixed\n")
            return frozenset()
