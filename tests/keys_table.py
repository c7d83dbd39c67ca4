"""The requests every front door with keys must answer alike (``serve --keys``, the Netlify Edge Function under Deno,
the Cloudflare worker under ``wrangler pages dev``), and what each answer must be.

Two keys are made at test time; the site first holds both digests, then only the first (the second one's digest
removed). ``requests`` lists, by name, a request and what it must get: its status, and whether the answer is
refused (401 with the challenge), private to a key, or public.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from generator.api import access
from generator.api.problems import UNAUTHORIZED
from generator.api.rewrites import CACHE_CONTROL
from generator.frontdoor import keys


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
    index = next(iter(sorted((api / "query-index").glob("*.json"))))
    return {name: "/" + path.relative_to(build).as_posix() for name, path in {
        "listing file": api / "companies" / "all" / "sort=-valuation,page=1.json",
        "filtered listing file": filtered, "profile file": profile,
        "export file": api / "export" / "csv" / "companies.csv", "query index": index,
        "query space": api / "query-space.json"}.items()}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def requests(build: Path, made: Keys, removed: bool) -> dict[str, tuple[dict, int, str]]:
    """name -> (request, status, kind): kind is ``refused``, ``invalid`` (refused, a key was sent), ``private`` or
    ``public``. ``removed``: the site holds the first key's digest only."""
    files = file_paths(build)
    profile = files["profile file"].removesuffix(".json")
    out: dict[str, tuple[dict, int, str]] = {
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
        "public: OpenAPI": ({"url": "/api/openapi"}, 200, "public"),
        "public: OpenAPI file": ({"url": "/api/openapi.json"}, 200, "public"),
        "public: problem document": ({"url": "/api/errors/not-found.json"}, 200, "public"),
        "public: landing page": ({"url": "/"}, 200, "public"),
        "preflight": ({"url": "/api/companies?sector=fintech", "method": "OPTIONS", "headers": {
            "Origin": "https://example.com", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization"}}, 204, "preflight"),
    }
    for name, path in files.items():
        out[f"no key: {name}"] = ({"url": path}, 401, "refused")
        out[f"first key: {name}"] = ({"url": path, "headers": bearer(made.first)}, 200, "private")
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
