"""The key gate of the front doors that run code (the scheme: ``generator.api.access``).

A site holds the SHA-256 digests of its valid keys, never the keys: a text of 64-digit hex digests separated by
commas, spaces or lines, ``#`` starting a comment (the environment variable ``API_KEY_DIGESTS`` on Netlify and
Cloudflare, the file ``serve --keys FILE`` reads). Keys are on as soon as that text holds anything: an entry that
is not a digest (a key pasted by mistake) is never matched, so a wrong entry locks the API rather than opening it.
A key is checked by comparing its digest with every digest held, each in constant time (``hmac.compare_digest``),
without stopping at the first match.

``check`` decides a request: open (keys off), public (``access.PUBLIC_PATH``), keyed (a valid key: the answer is
private to it) or refused (401). ``js/keys.mjs`` is its line-by-line translation for the edge functions; the tests
run both on the same cases.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from generator.api import access

KEY_PREFIX = "cia_"
"""Every key starts so (company-ipo-api): a person and a secret scanner can tell one from a digest."""
DIGEST = re.compile(r"[0-9a-fA-F]{64}")
_PUBLIC = re.compile(access.PUBLIC_PATH)
_LINES = re.compile(r"\r\n|\r|\n")
_SEPARATORS = re.compile(r"[ \t,]+")
_BLANKS = " \t"
"""What separates and surrounds values: ASCII spaces and tabs only, the same in both languages."""


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


class DigestFile:
    """The digests of ``serve --keys FILE``, read on every request (the file is small): a digest removed from it is
    refused from the next request on. A file that cannot be read holds no digest: every key is refused."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def current(self) -> frozenset[str]:
        try:
            return parse_digests(self.path.read_text(encoding="utf-8")) or frozenset()
        except (OSError, UnicodeDecodeError):
            return frozenset()
