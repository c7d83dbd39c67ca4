"""API keys (generator/api/access.py, generator/frontdoor/keys.py and js/keys.mjs): the gate's rules in Python and
their JavaScript translation on the same cases, ``serve --keys`` on the whole table of tests/keys_table.py (the
dev servers of the edge functions run it in tests/test_keys_hosts.py), ``new-key``, and what the OpenAPI document
and the Netlify function declare."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.api import access
from generator.api.problems import TOO_MANY_REQUESTS, UNAUTHORIZED
from generator.cli import main
from generator.frontdoor import keys
from generator.hosts.serve import PROBLEM_TYPE, SiteServer, make_server
from tests import keys_table

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "node"
DIGEST_A, DIGEST_B = "a" * 64, "0123456789abcdef" * 4


def test_digest_texts_as_people_write_them() -> None:
    assert keys.parse_digests(None) is None
    assert keys.parse_digests(" \n\t, ") is None  # blank: keys off
    assert keys.parse_digests(f"{DIGEST_A}") == {DIGEST_A}
    assert keys.parse_digests(f"# team keys\n{DIGEST_A.upper()}  # alice\r\n{DIGEST_B},{DIGEST_A}\n") == {DIGEST_A,
                                                                                                       DIGEST_B}
    # anything else keeps keys on and is never matched: a key pasted instead of its digest locks, never opens
    assert keys.parse_digests("cia_pasted-by-mistake") == frozenset()
    assert keys.parse_digests("# only a comment") == frozenset()
    assert keys.parse_digests(f"{DIGEST_A}0 {DIGEST_A[:-1]}") == frozenset()


def test_the_key_a_request_sends() -> None:
    assert keys.credential("Bearer k1", None) == "k1"
    assert keys.credential("bearer   k1 ", "k2") == "k1"  # the scheme in any case; Bearer first
    assert keys.credential("Basic dXNlcjpwYXNz", "k2") == "k2"
    assert keys.credential("Bearer ", " k2\t") == "k2"
    assert keys.credential(None, None) is None
    assert keys.credential("Bearer", "") is None


def test_public_paths_are_few_and_exact() -> None:
    for path in ["/", "/index.html", "/404.html", "/api/openapi", "/api/openapi/", "/api/openapi.json",
                 "/api/errors/not-found.json", "/api/errors/unauthorized.json", "/api/%65rrors/not-found.json"]:
        assert keys.is_public(path), path
    for path in ["/api", "/api/", "/api/companies", "/api/query-space.json", "/api/query-index/companies.bin",
                 "/api/errors/../companies.json", "/api/errors/..%2fquery-space.json", "/api/errors/x/y.json",
                 "/API/openapi", "//api/openapi", "/api/openapi.json/", "/index.htm", "/api/export/csv/companies.csv"]:
        assert not keys.is_public(path), path


def test_a_key_is_known_by_its_digest_only() -> None:
    key = keys.new_key()
    assert re.fullmatch(r"cia_[A-Za-z0-9_-]{43}", key) and key != keys.new_key()
    held = frozenset({keys.digest(key), DIGEST_A})
    assert keys.known(held, key) and not keys.known(held, key + "x") and not keys.known(frozenset(), key)
    verdict = keys.check(held, "/api/companies", f"Bearer {key}", None)
    assert verdict == keys.Verdict(allowed=True, keyed=True, presented=True)
    assert keys.check(None, "/api/companies", None, None) == keys.OPEN
    assert keys.check(held, "/api/openapi", None, None) == keys.OPEN


def test_new_key_prints_the_key_and_its_digest_line() -> None:
    result = CliRunner().invoke(main, ["new-key", "--label", "alice (research)"])
    assert result.exit_code == 0, result.output
    key = re.search(r"^key: (\S+)$", result.output, re.M).group(1)
    line = re.search(r"^digest line: (.+)$", result.output, re.M).group(1)
    assert line == f"{keys.digest(key)}  # alice (research)"
    assert keys.parse_digests(line) == {keys.digest(key)}


def _cases() -> dict:
    key = "cia_parity"
    texts = [None, "", " , ", DIGEST_A, f"{DIGEST_A.upper()}\r{DIGEST_B}#x,y\n#z {DIGEST_A}", "cia_x", "\v",
             f"{keys.digest(key)}\u00a0{DIGEST_A}", f"{DIGEST_B}\u2028{DIGEST_A}"]
    authorizations = [None, "", "Bearer k", "BEARER  k ", "Bearer", "Basic k", "Bearer\tk", " bearer k2", "Bearerk"]
    paths = ["/", "/api/openapi", "/api/openapi/", "/api/errors/not-found.json", "/api/%65rrors/not-found.json",
             "/api/errors/%2e%2e/x.json", "/api/errors/%zz.json", "/api/openapi%C3", "/API/openapi", "/api/companies",
             "/api/query-space.json", "/404.html", "/api/errors/Not-Found.json", "/%2fapi/openapi"]
    return {
        "parse": texts,
        "credential": [[a, k] for a in authorizations for k in [None, "", " k3 ", "k4"]],
        "public": paths,
        "check": [[t, p, a, k] for t in [None, f"{keys.digest(key)}\n{DIGEST_A}", "cia_x"]
                  for p in ["/api/companies", "/api/openapi"] for a in [None, f"Bearer {key}", "Bearer nope"]
                  for k in [None, key]],
        "digest": [key, "", "é ü", "cia_" + "x" * 100],
        "normal": paths + ["//api//companies", "/%61pi/x", "/a/../api/", "/..", "/api/.", "/api/%2e%2e/x", "/%zz",
                           "/API/./x/..", "/api/x/../../..", "/api%2Fx", "/%C3%A9/", "/apix", "/api", "/./api/./"],
    }


def test_the_javascript_gate_is_the_python_gate() -> None:
    """keys.mjs (Node) and keys.py give the same answer to every case, and hold the same constants."""
    cases = _cases()
    done = subprocess.run([NODE, str(ROOT / "tests" / "frontdoor_js" / "keys_cases.mjs")], input=json.dumps(cases),
                          capture_output=True, text=True, check=True, timeout=120)
    got = json.loads(done.stdout)
    parsed = [keys.parse_digests(t) for t in cases["parse"]]
    assert got["parse"] == [None if p is None else sorted(p) for p in parsed]
    assert got["credential"] == [keys.credential(a, k) for a, k in cases["credential"]]
    assert got["public"] == [keys.is_public(p) for p in cases["public"]]
    want = []
    for text, path, authorization, api_key in cases["check"]:
        verdict = keys.check(keys.parse_digests(text), path, authorization, api_key)
        want.append({"allowed": verdict.allowed, "keyed": verdict.keyed, "presented": verdict.presented,
                     "headers": keys.verdict_headers(verdict)})
    assert got["check"] == want
    assert got["digest"] == [keys.digest(k) for k in cases["digest"]]
    assert got["normal"] == [[keys.normal_path(p), keys.is_api(p)] for p in cases["normal"]]
    assert got["constants"] == {
        "KEY_HEADER": access.KEY_HEADER, "DIGESTS_VARIABLE": access.DIGESTS_VARIABLE, "REALM": access.REALM,
        "PUBLIC_PATH": access.PUBLIC_PATH.replace("/", "\\/"), "KEYED_CACHE_CONTROL": access.KEYED_CACHE_CONTROL,
        "REFUSED_CACHE_CONTROL": access.REFUSED_CACHE_CONTROL, "VARY": access.VARY,
        "RETRY_AFTER_SECONDS": access.RETRY_AFTER_SECONDS, "UNAUTHORIZED": UNAUTHORIZED.decode(),
        "TOO_MANY_REQUESTS": TOO_MANY_REQUESTS.decode(),
        "challenge": [access.www_authenticate(False), access.www_authenticate(True)],
        "ALLOWED_METHODS": keys.ALLOWED_METHODS, "METHOD_NOT_ALLOWED": keys.METHOD_NOT_ALLOWED.decode(),
        "PUBLIC_DOCUMENTS": keys.PUBLIC_DOCUMENTS}


def test_spellings_of_a_path_normalise_as_the_hosts_read_them() -> None:
    assert keys.normal_path("//api//x/./y/../z.json") == "/api/x/z.json"
    assert keys.normal_path("/%61pi/%2e%2e/api/query-space.json") == "/api/query-space.json"
    assert keys.normal_path("/api/x/../../..") == "/" and keys.normal_path("/api/x/") == "/api/x/"
    assert keys.normal_path("/%zz") is None and keys.normal_path("/%C3") is None
    assert keys.is_api("/API/companies") and keys.is_api("//%61pi") and not keys.is_api("/apix")
    # public stays exact: another spelling of a public path asks for a key (never the other way round)
    assert not keys.is_public("//api/openapi") and not keys.is_public("/api/x/../openapi.json")


def test_public_documents_are_the_descriptions_and_public(embedded_build: Path) -> None:
    """The public paths an edge function answers without the description are the description's documents."""
    space = json.loads((embedded_build / "api" / "query-space.json").read_text(encoding="utf-8"))
    for path, file in keys.PUBLIC_DOCUMENTS.items():
        assert space["documents"][path] == file and keys.is_public(path) and keys.is_public(file)


def test_the_host_wrapper_limits_and_refuses_as_documented() -> None:
    """host.mjs under Node over a fake site: a Workers rate limiting binding counts per key where a key is needed,
    else per address, and its refusal is the 429 problem with Retry-After; a read the host refuses (Netlify's limit
    counts the function's own reads) is a 429 or 503, never a wrong answer; files pass on private to a key."""
    key = keys.new_key()
    done = subprocess.run([NODE, str(ROOT / "tests" / "frontdoor_js" / "host_cases.mjs"), key],
                          capture_output=True, text=True, check=True, timeout=120)
    table = json.loads(done.stdout)
    assert table["limited: allowed on a file path with a key"]["counted"] == [f"key:{keys.digest(key)}"]
    assert table["limited: allowed on a file path with a key"]["headers"]["cache-control"] == access.KEYED_CACHE_CONTROL
    assert table["limited: allowed without a key"]["counted"] == ["address:192.0.2.1"]
    for name in ["limited: over the limit with a key", "limited: over the limit without keys", "read refused: 429",
                 "read refused: 429 without Retry-After"]:
        row = table[name]
        assert (row["status"], row["body"].encode(), row["headers"]["cache-control"]) == (
            429, TOO_MANY_REQUESTS, access.REFUSED_CACHE_CONTROL), name
    assert table["limited: over the limit with a key"]["headers"]["retry-after"] == str(access.RETRY_AFTER_SECONDS)
    assert table["read refused: 429"]["headers"]["retry-after"] == "7"
    assert table["read refused: 500"]["status"] == 503
    assert table["keys off: a file passes on as it is"]["headers"]["cache-control"] == "public, max-age=300"
    assert "vary" not in table["keys off: a file passes on as it is"]["headers"]
    assert table["keys on: a file passes on private"]["headers"]["vary"] == access.VARY
    assert table["keys on: a file without the key"]["status"] == 401
    assert table["keys on: the variable holds no digest"]["status"] == 401


def test_the_host_wrapper_gates_every_method_and_survives_a_failing_read() -> None:
    """host.mjs under Node: a read of the site or a pass-on that fails at the network level is the 503 problem; a
    key holder's TRACE is the 405 problem; a preflight on any spelling has no body and never reaches the site; a
    fresh isolate answers the public /api/openapi from the public file, read without the asker's key."""
    key = keys.new_key()
    done = subprocess.run([NODE, str(ROOT / "tests" / "frontdoor_js" / "host_cases.mjs"), key],
                          capture_output=True, text=True, check=True, timeout=120)
    table = json.loads(done.stdout)
    for name in ["read fails at the network level", "pass on fails at the network level"]:
        row = table[name]
        assert (row["status"], row["headers"]["content-type"]) == (503, PROBLEM_TYPE), name
        assert row["headers"]["cache-control"] == access.REFUSED_CACHE_CONTROL, name
    trace = table["keys on: TRACE with a key"]
    assert (trace["status"], trace["body"].encode(), trace["headers"]["allow"]) == (
        405, keys.METHOD_NOT_ALLOWED, keys.ALLOWED_METHODS)
    for name in ["keys on: OPTIONS on a spelled file, no key", "keys on: OPTIONS on the landing page"]:
        assert (table[name]["status"], table[name]["body"], table[name]["passedOn"]) == (204, "", 0), name
    assert table["keys on: OPTIONS on a spelled file, no key"]["headers"]["access-control-allow-origin"] == "*"
    for name in ["keys on: a fresh isolate, public, no key", "keys on: a fresh isolate, public, a wrong key"]:
        assert (table[name]["status"], table[name]["body"]) == (200, '{"openapi":"3.0.3"}'), name
        assert "private" not in table[name]["headers"]["cache-control"], name
    assert table["keys on: a protected path, keyed"]["status"] == 200
    carried = table["reads carried"]
    assert carried[:2] == [["/api/openapi.json", None], ["/api/openapi.json", None]]  # the public reads: no key
    assert ["/api/query-space.json", f"Bearer {key}"] in carried  # a keyed read carries the asker's key


# serve --keys -------------------------------------------------------------------------------------------------------

def _ask(base_port: int, requests: dict[str, tuple[dict, int, str]]) -> dict[str, dict]:
    table = {}
    connection = http.client.HTTPConnection("127.0.0.1", base_port, timeout=30)
    for name, (request, _, _) in requests.items():
        connection.request(request.get("method", "GET"), request["url"], headers=request.get("headers", {}))
        response = connection.getresponse()
        body = response.read()
        table[name] = {"status": response.status, "body": body.decode("utf-8", "replace"),
                       **{k.lower(): v for k, v in response.getheaders()}}
    connection.close()
    return table


@pytest.fixture()
def keyed_serve(embedded_build: Path, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    digests = tmp_path / "digests.txt"
    digests.write_text("", encoding="utf-8")
    server = make_server(embedded_build, "127.0.0.1", 0, quiet=False, digests=digests)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port, digests
    finally:
        server.shutdown()
        server.server_close()


def test_serve_with_keys(keyed_serve: tuple[int, Path], embedded_build: Path, tmp_path: Path,
                         capfd: pytest.CaptureFixture[str]) -> None:
    """No key, a wrong key, each accepted form, a key whose digest was removed from the file (no restart), a
    preflight, the files themselves, public paths; private caching; no key or digest in a log line."""
    port, digests = keyed_serve
    made = keys_table.make_keys()
    digests.write_text(made.both, encoding="utf-8")
    both = keys_table.requests(embedded_build, made, removed=False)
    wrong = keys_table.check_all(embedded_build, _ask(port, both), both)
    digests.write_text(made.first_only, encoding="utf-8")
    first = keys_table.requests(embedded_build, made, removed=True)
    wrong += keys_table.check_all(embedded_build, _ask(port, first), first)
    assert not wrong, "\n".join(wrong)
    log = tmp_path / "serve.log"
    log.write_text(capfd.readouterr().err, encoding="utf-8")
    assert log.read_text(encoding="utf-8").count('" 401 -') >= 10
    assert not keys_table.leaks(made, log, embedded_build)


def test_serve_with_an_empty_digest_file_refuses_every_key(keyed_serve: tuple[int, Path]) -> None:
    port, _ = keyed_serve
    asked = {"key": ({"url": "/api/companies", "headers": keys_table.bearer(keys.new_key())}, 401, "invalid")}
    assert _ask(port, asked)["key"]["status"] == 401


def test_serve_without_keys_asks_for_none(front_site) -> None:  # noqa: ANN001 (the conftest fixture)
    response = front_site.get("/api/query-space.json")
    assert response.status == 200 and "private" not in response.headers["Cache-Control"]
    assert "WWW-Authenticate" not in response.headers


# what the documents declare ---------------------------------------------------------------------------------------

def test_openapi_declares_the_scheme_and_the_401_and_429_answers(embedded_build: Path) -> None:
    document = json.loads((embedded_build / "api" / "openapi.json").read_text(encoding="utf-8"))
    assert document["components"]["securitySchemes"] == access.SECURITY_SCHEMES
    assert document["security"] == access.SECURITY
    assert set(document["components"]["responses"]) == {"Unauthorized", "TooManyRequests"}
    for path, item in document["paths"].items():
        answers = item["get"]["responses"]
        assert answers["429"] == {"$ref": "#/components/responses/TooManyRequests"}, path
        if path == "/api/openapi":
            assert item["get"]["security"] == [] and "401" not in answers
        else:
            assert answers["401"] == {"$ref": "#/components/responses/Unauthorized"}, path
    assert (embedded_build / "api" / "errors" / "unauthorized.json").read_bytes() == UNAUTHORIZED


def test_the_netlify_function_runs_everywhere_and_declares_the_rate_limit() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "netlify.toml").read_text(encoding="utf-8"))
    assert config["edge_functions"] == [{"path": "/*", "function": "frontdoor"}]
    text = (ROOT / "netlify" / "edge-functions" / "frontdoor.js").read_text(encoding="utf-8")
    declared = re.search(r"export const config = \{\s*rateLimit: (\{.*?\}),\s*\};", text, re.S)
    assert declared, "frontdoor.js exports no rate limit"
    as_json = re.sub(r"(\w+):", r'"\1":', declared.group(1))
    assert json.loads(as_json) == access.NETLIFY_RATE_LIMIT
    assert "path" not in declared.group(0)  # the route stays netlify.toml's (an inline path would replace it)
    assert f'environment("{access.DIGESTS_VARIABLE}")' in text
    worker = (ROOT / "generator" / "frontdoor" / "js" / "cloudflare_worker.mjs").read_text(encoding="utf-8")
    assert f"env.{access.DIGESTS_VARIABLE}" in worker and f"env.{access.CLOUDFLARE_RATE_LIMITER}" in worker


def test_the_landing_page_and_the_keys_doc_describe_the_scheme(embedded_build: Path) -> None:
    page = (embedded_build / "index.html").read_text(encoding="utf-8")
    readme = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    for text in (page, readme):
        assert "no authentication" not in text
        assert "Authorization: Bearer KEY" in text and "X-API-Key: KEY" in text
    assert 'id="problem-unauthorized"' in page and 'id="problem-too-many-requests"' in page
    assert "python -m generator new-key" in readme and f"`{access.DIGESTS_VARIABLE}`" in readme


# serve --keys: the digest file ---------------------------------------------------------------------------------

def _interrupted(self: SiteServer, *args: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize(("data", "line", "what"), [
    (f"{DIGEST_A}\n\u00a0{DIGEST_B}\n".encode(), 2, "U+00A0 NO-BREAK SPACE"),
    (f"# keys\n{DIGEST_A}\u00a0# alice\n".encode(), 2, "U+00A0 NO-BREAK SPACE"),
    (f"{DIGEST_A}\n# caf\xe9\n".encode("latin-1"), 2, "byte 0xe9 is not UTF-8"),
    (f"{DIGEST_A}\r\n{DIGEST_B}\r\n\ufeff{DIGEST_A}".encode(), 3, "U+FEFF"),
    (f"{DIGEST_A}\ncia_pasted-by-mistake  # bob\n".encode(), 2, "not a SHA-256 digest"),
    (f"{DIGEST_A[:-1]}\n".encode(), 1, "not a SHA-256 digest"),
])
def test_a_digest_file_that_is_not_digests_stops_serve(tmp_path: Path, data: bytes, line: int, what: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The file, the line and what is wrong, never the entry itself (it may be a key); serve does not start."""
    monkeypatch.setattr(SiteServer, "serve_forever", _interrupted)  # were it to start, it would stop at once
    digests = tmp_path / "digests.txt"
    digests.write_bytes(data)
    with pytest.raises(keys.DigestFileError) as raised:
        keys.read_digest_file(digests)
    message = str(raised.value)
    assert message.startswith(f"{digests}, line {line}, column ") and what in message, message
    assert "cia_pasted" not in message
    result = CliRunner().invoke(main, ["serve", "--dir", str(tmp_path), "--port", "0", "--keys", str(digests)])
    assert result.exit_code == 1 and message in result.output and "not started" in result.output, result.output


def test_a_digest_file_with_a_byte_order_mark_and_comments_is_read(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    digests = tmp_path / "digests.txt"
    digests.write_bytes(f"\ufeff# caf\u00e9 team\r\n{DIGEST_A.upper()}, {DIGEST_B}\t# b\u00f6b\n\n".encode())
    assert keys.read_digest_file(digests) == {DIGEST_A, DIGEST_B}
    monkeypatch.setattr(SiteServer, "serve_forever", _interrupted)
    result = CliRunner().invoke(main, ["serve", "--dir", str(tmp_path), "--port", "0", "--keys", str(digests)])
    assert result.exit_code == 0 and f"asking for a key listed in {digests} (2 digests)" in result.output
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert keys.read_digest_file(empty) == frozenset()  # keys on, none valid yet: the start-up line says so


def test_a_digest_file_broken_while_serving_refuses_every_key_and_says_so(
        keyed_serve: tuple[int, Path], capfd: pytest.CaptureFixture[str]) -> None:
    port, digests = keyed_serve
    key = keys.new_key()
    digests.write_text(f"{keys.digest(key)}\n", encoding="utf-8")
    asked = {"key": ({"url": "/api/companies", "headers": keys_table.bearer(key)}, 200, "private")}
    assert _ask(port, asked)["key"]["status"] == 200
    digests.write_bytes(f"{keys.digest(key)}\n\xff\n".encode("latin-1"))
    assert _ask(port, asked)["key"]["status"] == 401
    assert f"{digests}, line 2, column 1: byte 0xff is not UTF-8: every key is refused" in capfd.readouterr().err
