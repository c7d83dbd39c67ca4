"""The requests every front door with keys must answer alike (``serve --keys``, the Netlify Edge Function under Deno,
the Cloudflare worker under ``wrangler pages dev``), and what each answer must be.

Two keys are made at test time; the site first holds both digests, then only the first (the second one's digest
removed). ``requests`` lists, by name, a request and what it must get: its status, and whether the answer is
refused (401 with the challenge), private to a key, public, a preflight (204, no body) or not allowed (the 405
problem). The public paths come first: a fresh isolate answers them without a key (its own reads need none).

The probes (``probes``): every method (GET, HEAD, OPTIONS and methods the API does not allow) on every spelling of
protected paths (percent-encoded, doubled slashes, dot segments, another case) of the query description, the whole
dataset, a profile, a query index and a query, without a key and with one: no protected byte to a request without a
valid key, on any host.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from generator.api import access
from generator.api.problems import UNAUTHORIZED
from generator.api.rewrites import CACHE_CONTROL
from generator.frontdoor import keys

METHODS = ("GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "TRACE")
SPELLINGS = {
    "as is": lambda path: path,
    "doubled slash": lambda path: "/" + path,
    "encoded": lambda path: "/%61pi" + path.removeprefix("/api"),
    "dot segment": lambda path: path.replace("/api/", "/api/./", 1),
    "dot-dot segment": lambda path: path.replace("/api/", "/api/errors/../", 1),
    "encoded dot-dot": lambda path: path.replace("/api/", "/api/errors/%2e%2e/", 1),
    "upper case": lambda path: "/API" + path.removeprefix("/api"),
}
"""Spellings of a path that hosts (decoding, normalising, folding case) may serve as the same file."""


@dataclass(frozen=True)
class Keys:
    first: str
    second: str

    @property
    def both(self) -> str:
        """The digest text of a site holding both keys: comments, a label and two separators, as people write it."""
        return f"# test keys\n{keys.digest(self.first)}  # first\n{keys.digest(self.second).upper()}, # second\n"

    @property
    def first_only(self) -> str:
        return f"{keys.digest(self.first)}\n"

    def secrets(self) -> list[str]:
        """What no file or log line may hold: the keys and their digests."""
        return [self.first, self.second, keys.digest(self.first), keys.digest(self.second)]


def make_keys() -> Keys:
    return Keys(keys.new_key(), keys.new_key())


def file_paths(build: Path) -> dict[str, str]:
    """Published files of every kind that must need a key: listings, a profile, an export, the query description
    and a query index."""
    api = build / "api"
    profile = next(p for p in sorted((api / "companies").glob("*.json")) if "=" not in p.name)
    filtered = next(p for p in sorted((api / "companies").glob("sector=*/sort=name,page=1.json")))
    index = next(iter(sorted((api / "query-index").glob("*.bin"))))
    return {name: "/" + path.relative_to(build).as_posix() for name, path in {
        "listing file": api / "companies" / "all" / "sort=-valuation,page=1.json",
        "filtered listing file": filtered, "profile file": profile,
        "export file": api / "export" / "csv" / "companies.csv", "query index": index,
        "query space": api / "query-space.json"}.items()}


def probes(build: Path, made: Keys) -> dict[str, tuple[dict, int, str]]:
    """methods x spellings x protected paths without a key (401, 204 or 405, never a protected byte); a few with
    the key (the methods the API does not allow are 405 to a key holder too); public paths by method."""
    files = file_paths(build)
    paths = {name: files[name] for name in ("query space", "profile file", "query index")}
    paths["dataset"] = "/api/export/json/dataset.zip"
    assert (build / "api" / "export" / "json" / "dataset.zip").is_file()
    paths["query"] = "/api/companies?sector=Fintech"
    want = {"GET": (401, "refused"), "HEAD": (401, "refused"), "OPTIONS": (204, "preflight")}
    out: dict[str, tuple[dict, int, str]] = {}
    for method in METHODS:
        status, kind = want.get(method, (405, "not allowed"))
        for spelling, spell in SPELLINGS.items():
            for name, path in paths.items():
                out[f"probe: {method} {spelling} {name}"] = ({"url": spell(path), "method": method}, status, kind)
        if method not in want:
            out[f"probe: {method} with a key"] = ({"url": paths["query"], "method": method,
                                                   "headers": bearer(made.first)}, 405, "not allowed")
            out[f"probe: {method} public"] = ({"url": "/api/openapi", "method": method}, 405, "not allowed")
    out["probe: OPTIONS with a key"] = ({"url": paths["query space"], "method": "OPTIONS",
                                         "headers": bearer(made.first)}, 204, "preflight")
    out["probe: OPTIONS public"] = ({"url": "/api/openapi", "method": "OPTIONS"}, 204, "preflight")
    out["probe: OPTIONS landing page"] = ({"url": "/", "method": "OPTIONS"}, 204, "no body")
    out["probe: HEAD public"] = ({"url": "/api/openapi", "method": "HEAD"}, 200, "public")
    return out


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def requests(build: Path, made: Keys, removed: bool) -> dict[str, tuple[dict, int, str]]:
    """name -> (request, status, kind): kind is ``refused``, ``invalid`` (refused, a key was sent), ``private`` or
    ``public``. ``removed``: the site holds the first key's digest only."""
    files = file_paths(build)
    profile = files["profile file"].removesuffix(".json")
    out: dict[str, tuple[dict, int, str]] = {  # the public paths first: asked of a fresh isolate
        "public: OpenAPI": ({"url": "/api/openapi"}, 200, "public"),
        "public: OpenAPI, encoded": ({"url": "/api/open%61pi/"}, 200, "public"),
        "public: OpenAPI file": ({"url": "/api/openapi.json"}, 200, "public"),
        "public: problem document": ({"url": "/api/errors/not-found.json"}, 200, "public"),
        "public: landing page": ({"url": "/"}, 200, "public"),
        "no key: query": ({"url": "/api/companies?sector=Fintech"}, 401, "refused"),
        "no key: profile": ({"url": profile}, 401, "refused"),
        "no key: HEAD": ({"url": "/api/companies", "method": "HEAD"}, 401, "refused"),
        "no key: encoded path": ({"url": "/%61pi" + files["profile file"].removeprefix("/api")}, 401, "refused"),
        "no key: key in the query string": ({"url": f"/api/companies?api_key={made.first}"}, 401, "refused"),
        "wrong key": ({"url": "/api/companies", "headers": bearer(keys.new_key())}, 401, "invalid"),
        "wrong key, X-API-Key": ({"url": "/api/ipos", "headers": {access.KEY_HEADER: "not-a-key"}}, 401, "invalid"),
        "first key, Bearer": ({"url": "/api/companies?sector=Fintech", "headers": bearer(made.first)}, 200, "private"),
        "first key, bearer in lower case": ({"url": profile, "headers": {"authorization": f"bearer {made.first}"}},
                                            200, "private"),
        "first key, X-API-Key": ({"url": "/api/ipos?status=Listed", "headers": {access.KEY_HEADER: made.first}}, 200,
                                 "private"),
        "second key, Bearer": ({"url": "/api/companies", "headers": bearer(made.second)}, 401 if removed else 200,
                               "invalid" if removed else "private"),
        "second key, X-API-Key": ({"url": files["listing file"], "headers": {access.KEY_HEADER: made.second}},
                                  401 if removed else 200, "invalid" if removed else "private"),
        "preflight": ({"url": "/api/companies?sector=fintech", "method": "OPTIONS", "headers": {
            "Origin": "https://example.com", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization"}}, 204, "preflight"),
    }
    for name, path in files.items():
        out[f"no key: {name}"] = ({"url": path}, 401, "refused")
        out[f"first key: {name}"] = ({"url": path, "headers": bearer(made.first)}, 200, "private")
    out.update(probes(build, made))
    return {name: ({"name": name, **request}, status, kind) for name, (request, status, kind) in out.items()}


def check(build: Path, name: str, request: dict, got: dict, status: int, kind: str) -> list[str]:
    """What is wrong with one answer (``got``: status, lower-case header names, body text)."""
    wrong = []
    head = request.get("method") == "HEAD"
    if got["status"] != status:
        wrong.append(f"status {got['status']}, want {status}")
    if kind in ("refused", "invalid"):
        if got.get("cache-control") != access.REFUSED_CACHE_CONTROL:
            wrong.append(f"Cache-Control {got.get('cache-control')!r}")
        if got.get("www-authenticate") != access.www_authenticate(kind == "invalid"):
            wrong.append(f"WWW-Authenticate {got.get('www-authenticate')!r}")
        if got.get("access-control-allow-origin") != "*":
            wrong.append("no CORS header on the 401")
        if got["body"].encode() != (b"" if head else UNAUTHORIZED):
            wrong.append(f"body {got['body'][:200]!r}")
    elif kind == "private":
        if got.get("cache-control") != access.KEYED_CACHE_CONTROL or got.get("vary") != access.VARY:
            wrong.append(f"Cache-Control {got.get('cache-control')!r}, Vary {got.get('vary')!r}")
        path = request["url"].partition("?")[0]
        if "." in path.rpartition("/")[2]:  # a file: its bytes as they are
            if got["body"].encode() != (build / path.lstrip("/")).read_bytes():
                wrong.append(f"not the file: {got['body'][:200]!r}")
        elif "data" not in json.loads(got["body"] or "{}"):
            wrong.append(f"not an answer: {got['body'][:200]!r}")
    elif kind == "public":
        cache = got.get("cache-control") or ""
        if "private" in cache or "no-store" in cache or "Authorization" in (got.get("vary") or ""):
            wrong.append(f"Cache-Control {cache!r}, Vary {got.get('vary')!r}")
        if request["url"].startswith("/api/") and cache != CACHE_CONTROL:
            wrong.append(f"Cache-Control {cache!r}, want the API's")
    elif kind == "preflight":
        allowed = (got.get("access-control-allow-headers") or "").lower()
        if "authorization" not in allowed or "x-api-key" not in allowed:
            wrong.append(f"Access-Control-Allow-Headers {got.get('access-control-allow-headers')!r}")
    elif kind == "not allowed":
        if got["body"].encode() != keys.METHOD_NOT_ALLOWED or got.get("allow") != keys.ALLOWED_METHODS:
            wrong.append(f"Allow {got.get('allow')!r}, body {got['body'][:200]!r}")
        if got.get("content-type") != "application/problem+json; charset=utf-8":
            wrong.append(f"Content-Type {got.get('content-type')!r}")
    if kind in ("preflight", "no body") and got["body"]:
        wrong.append(f"a preflight with a body: {got['body'][:200]!r}")
    return [f"{name}: {w}" for w in wrong]


def check_all(build: Path, table: dict[str, dict], asked: dict[str, tuple[dict, int, str]]) -> list[str]:
    return [w for name, (request, status, kind) in asked.items()
            for w in check(build, name, request, table[name], status, kind)]


def leaks(made: Keys, *places: Path) -> list[str]:
    """Files (under folders, or single files such as logs) that hold a key or a digest, but for the request line of
    the key sent in the query string (its sender leaked it to every log on its way: the reason it is refused)."""
    secrets = [s.encode() for s in made.secrets()] + [s.upper().encode() for s in made.secrets()[2:]]
    found = []
    for place in places:
        for file in ([place] if place.is_file() else sorted(p for p in place.rglob("*") if p.is_file())):
            if file.name == ".dev.vars":
                continue  # the secret itself, as wrangler reads it locally
            data = b"\n".join(line for line in file.read_bytes().splitlines() if b"api_key=" not in line)
            found += [f"{file}: {s[:12]!r}..." for s in secrets if s in data]
    return found
