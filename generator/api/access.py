"""The API-key scheme, declared once: how a client sends a key, which paths stay public, the headers of keyed and
refused answers, the hosts' rate limits and the OpenAPI security scheme with its 401 and 429 responses.

Keys are checked by the front doors that run code (``serve --keys FILE``, the Netlify Edge Function, the Cloudflare
Pages worker: ``generator.frontdoor.keys`` and ``js/keys.mjs``), never by the files: a host that only serves files
cannot check one. A client sends ``Authorization: Bearer KEY`` or, from a tool that cannot set Authorization,
``X-API-Key: KEY``. A key in the query string (``?api_key=``) is not accepted: URLs are written to access logs,
browser history, proxies and ``Referer`` headers, and the front door's own links would carry it on.
"""

from __future__ import annotations

from typing import Any

KEY_HEADER = "X-API-Key"
DIGESTS_VARIABLE = "API_KEY_DIGESTS"
"""The environment variable (Netlify) or secret (Cloudflare) holding the SHA-256 digests of the valid keys."""
REALM = "company-ipo-api"

PUBLIC_PATH = r"^(/|/index\.html|/404\.html|/api/openapi/?|/api/openapi\.json|/api/errors/[a-z0-9-]+\.json)$"
"""Paths answered without a key when keys are on (matched on the percent-decoded path): the landing page, the
site's 404 page, the OpenAPI document and the problem documents. Everything else needs a key: every listing and
profile in either form, the exports, the query description and the query indexes (``/api/query-space.json``,
``/api/query-index/``) included, or the files would give the whole dataset away."""

KEYED_CACHE_CONTROL = "private, max-age=300"
"""Cache-Control of every answer given to a key: a browser may keep it, a shared cache (a CDN, a proxy) may not."""
REFUSED_CACHE_CONTROL = "no-store"
VARY = "Authorization, X-API-Key"
ALLOW_HEADERS = "Authorization, X-API-Key"
"""``Access-Control-Allow-Headers``: a browser on another origin may send the key (its preflight needs no key)."""
EXPOSE_HEADERS = "WWW-Authenticate, Retry-After, API-Version, Dataset-Snapshot, Deprecation, Sunset, Link"

RETRY_AFTER_SECONDS = 60
"""``Retry-After`` of the 429 answers the front door gives itself: the rate-limit window."""
NETLIFY_RATE_LIMIT = {"windowLimit": 600, "windowSize": 60, "aggregateBy": ["ip", "domain"]}
"""The rate limit ``netlify/edge-functions/frontdoor.js`` declares in its ``config`` (Netlify's code-based rules
count by address and domain only, not by key). The function's own reads of files are requests to the site and
count too: a query costs one request and at most four reads at p99 (BENCHMARKS.md)."""
CLOUDFLARE_RATE_LIMITER = "API_RATE_LIMITER"
"""The Workers rate limiting binding the worker uses when the environment has one (per key, else per address)."""


def www_authenticate(presented: bool) -> str:
    """RFC 6750 section 3: the challenge, with ``error="invalid_token"`` when a key was sent but is not valid."""
    return f'Bearer realm="{REALM}"' + (', error="invalid_token"' if presented else "")


# OpenAPI ----------------------------------------------------------------------------------------------------------

SECURITY_SCHEMES: dict[str, Any] = {
    "bearerKey": {
        "type": "http", "scheme": "bearer",
        "description": "An API key as a bearer token: `Authorization: Bearer KEY`. Asked for by sites that turn "
        "keys on (the Netlify and Cloudflare front doors with API_KEY_DIGESTS set, `serve --keys FILE`); in "
        "development and on hosts that only serve files no key is asked. `python -m generator new-key` makes one.",
    },
    "apiKeyHeader": {
        "type": "apiKey", "in": "header", "name": KEY_HEADER,
        "description": "The same key in `X-API-Key`, for tools that cannot set Authorization. A key in the query "
        "string is not accepted.",
    },
}
SECURITY: list[dict[str, list[str]]] = [{"bearerKey": []}, {"apiKeyHeader": []}, {}]
"""Either form of the key, or none (``{}``) on sites without keys."""

UNAUTHORIZED_RESPONSE: dict[str, Any] = {
    "description": "No key, or one this site does not know, on a site that asks for keys (RFC 9457 problem "
    "`/#problem-unauthorized`).",
    "headers": {"WWW-Authenticate": {"description": "`Bearer realm=\"company-ipo-api\"`, with "
                                     "`error=\"invalid_token\"` when a key was sent", "schema": {"type": "string"}}},
    "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
}
TOO_MANY_REQUESTS_RESPONSE: dict[str, Any] = {
    "description": "Too many requests in the host's window (the host's own rate limit; where the front door "
    "answers it, an RFC 9457 problem `/#problem-too-many-requests`).",
    "headers": {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer", "minimum": 0}}},
    "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def secure(paths: dict[str, Any], public: set[str]) -> dict[str, Any]:
    """Every operation with the 401 and 429 answers; the public ones (``public``: their paths) with ``security:
    []`` and the 429 only."""
    for path, item in paths.items():
        for operation in item.values():
            answers = operation["responses"]
            if path in public:
                operation["security"] = []
            else:
                answers["401"] = {"$ref": "#/components/responses/Unauthorized"}
            answers["429"] = {"$ref": "#/components/responses/TooManyRequests"}
            operation["responses"] = dict(sorted(answers.items()))
    return paths
