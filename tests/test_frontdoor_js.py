"""The JavaScript front door (generator/frontdoor/js/) answers as the Python resolver does, on every runtime that
runs it: Node (byte for byte), the Cloudflare Pages worker under ``wrangler pages dev``, the Netlify Edge Function
under Deno, and the JavaScript client over ``python -m http.server``. One table (tests/frontdoor_js/table.py):
the issue's queries as a person writes them, and every filter value of the query space with every sort and page.
All servers listen on 127.0.0.1 only; the dev servers run inside ``unshare -n`` with no network."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.api.rewrites import HEADERS, headers_for
from generator.cli import main
from generator.frontdoor.resolver import Resolver
from tests.frontdoor_js.sites import DENO, WRANGLER, cloudflare_site, netlify_site
from tests.frontdoor_js.table import ISSUE, generated

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "tests" / "frontdoor_js"
NODE = shutil.which("node") or "node"


def _need(*tools: Path) -> None:
    """A missing npm tool fails in CI (scripts/test installs them all) and skips only outside it."""
    missing = [str(t) for t in tools if not Path(t).exists()]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"missing {missing}: run scripts/test (npm ci)")
        pytest.skip(f"missing {missing}: npm ci")


def _namespace() -> None:
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "-r", "true"],
                                                         capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("unshare -n -r is needed to run the dev servers without network")
        pytest.skip("no user namespaces (unshare -n -r)")


@pytest.fixture(scope="module")
def urls(embedded_build: Path) -> list[str]:
    space = json.loads((embedded_build / "api" / "query-space.json").read_text(encoding="utf-8"))
    return list(dict.fromkeys(ISSUE + generated(space)))  # each once (a table URL may be a generated one)


@pytest.fixture(scope="module")
def python_answers(embedded_build: Path, urls: list[str]) -> dict[str, dict | None]:
    """The Python resolver over the built files: the answer each runtime must give."""
    space = json.loads((embedded_build / "api" / "query-space.json").read_text(encoding="utf-8"))

    def fetch(path: str) -> bytes | None:
        file = embedded_build / path.lstrip("/")
        return file.read_bytes() if file.is_file() else None

    resolver = Resolver(space, fetch)
    answers: dict[str, dict | None] = {}
    for url in urls:
        path, _, query = url.partition("?")
        found = resolver.resolve(path, query)
        answers[url] = None if found is None else {
            "status": found.status, "content_type": found.content_type, "file": found.file,
            "fetches": found.fetches, "body": None if found.file else found.body.decode("utf-8", "replace")}
    return answers


def _summary(status: int, body: str) -> dict:
    """What a runtime must agree on: the status; a listing's row keys in order, total, page and pages; a
    problem's invalid-params names."""
    summary: dict = {"status": status}
    try:
        document = json.loads(body)
    except ValueError:
        return {**summary, "body": body[:2000]}
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        data = document["data"]
        keys = [r.get("id", (r.get("type"), r.get("slug"), r.get("kind"), r.get("rank"))) for r in data]
        meta = document.get("meta", {})
        summary.update(keys=keys, total=meta.get("total"), page=meta.get("page"), pages=meta.get("pages"))
    elif isinstance(document, dict) and "invalid-params" in document:
        summary["invalid"] = [p["name"] for p in document["invalid-params"]]
    elif isinstance(document, dict) and isinstance(document.get("data"), dict):
        summary["profile"] = document["data"].get("id", document["data"].get("slug"))
    return summary


def _compare(answers: dict[str, dict], python_answers: dict[str, dict | None], front_door_only: bool) -> list[str]:
    wrong = []
    for url, expected in python_answers.items():
        if expected is None and front_door_only:
            continue
        got = answers[url]
        if expected is None:
            continue
        want = _summary(expected["status"], expected["body"] if expected["file"] is None else _file_text(expected))
        have = _summary(got["status"], got["body"])
        if want != have:
            wrong.append(f"{url}: want {str(want)[:300]}, got {str(have)[:300]}")
    return wrong


_ROOT_FOR_FILES: list[Path] = []


def _file_text(expected: dict) -> str:
    return (_ROOT_FOR_FILES[0] / expected["file"].lstrip("/")).read_bytes().decode("utf-8", "replace")


@pytest.fixture(scope="module", autouse=True)
def _files_root(embedded_build: Path) -> None:
    _ROOT_FOR_FILES[:] = [embedded_build]


def test_node_answers_byte_for_byte_as_the_python_resolver(embedded_build: Path, urls: list[str],
                                                           python_answers: dict[str, dict | None]) -> None:
    """Node runs frontdoor.mjs over the same files: the same status, content type, file, fetches and body bytes."""
    done = subprocess.run([NODE, str(JS / "node_resolve.mjs"), str(embedded_build)], input=json.dumps(urls),
                          capture_output=True, text=True, check=True, timeout=600)
    wrong = [f"{url}: want {str(want)[:400]}, got {str(got)[:400]}"
             for url, want, got in zip(urls, python_answers.values(), json.loads(done.stdout), strict=True)
             if want != got]
    assert not wrong, f"{len(wrong)} of {len(urls)} differ:\n" + "\n".join(wrong[:10])


def _http_table(tmp_path: Path, site: Path, urls: list[str], command: list[str], port: str) -> dict:
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "urls.json").write_text(json.dumps(urls), encoding="utf-8")
    out = tmp_path / "out.json"
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    done = subprocess.run(["unshare", "-n", "-r", sys.executable, str(JS / "http_table.py"), str(site), port,
                           str(tmp_path / "urls.json"), str(out), "--", *command], env=env, capture_output=True,
                          text=True, timeout=900)
    log = (tmp_path / "server.log").read_text(errors="replace")[-3000:] if (tmp_path / "server.log").exists() else ""
    assert done.returncode == 0 and out.exists(), done.stderr[-3000:] + log
    return json.loads(out.read_text(encoding="utf-8"))


def _p99(seconds: list[float]) -> float:
    return statistics.quantiles(seconds, n=100)[98]


def _check_host(result: dict, python_answers: dict[str, dict | None], build: Path) -> None:
    table = {u: a for u, a in result["table"].items() if u in python_answers}
    wrong = _compare(table, python_answers, front_door_only=True)
    assert not wrong, f"{len(wrong)} differ:\n" + "\n".join(wrong[:10])
    api = dict(HEADERS[0].values)
    snapshot = json.loads((build / "api" / "query-space.json").read_bytes())["snapshot"]["id"]
    for url, expected in python_answers.items():
        if expected is not None:
            got = table[url]
            assert got["access-control-allow-origin"] == api["Access-Control-Allow-Origin"], url
            assert (got["api-version"], got["dataset-snapshot"]) == (api["API-Version"], snapshot), url
            assert got["cache-control"] == api["Cache-Control"], url
            # a download (streamed, or a rewrite the host serves with its file's headers) has the answer's type
            assert got["content-type"] == expected["content_type"], url
            if expected["file"] is not None:  # and the file's name, as serve and the static hosts give it
                assert got["content-disposition"] == headers_for(expected["file"]).get("Content-Disposition"), url
    front = [v["seconds"] for u, v in table.items() if python_answers[u] is not None]
    print(f"front door p50 {statistics.median(front) * 1000:.1f} ms p99 {_p99(front) * 1000:.1f} ms; "
          f"static file p50 {statistics.median(result['static_seconds']) * 1000:.1f} ms "
          f"p99 {_p99(result['static_seconds']) * 1000:.1f} ms")


def test_cloudflare_worker_under_wrangler_pages_dev(tmp_path: Path, embedded_build: Path, urls: list[str],
                                                    python_answers: dict[str, dict | None]) -> None:
    """``wrangler pages dev`` over a copy of the build with the generated ``_worker.js`` and ``_headers``."""
    _need(WRANGLER)
    _namespace()
    site = tmp_path / "site"
    result = _http_table(tmp_path, site, urls, cloudflare_site(embedded_build, site, "8788"), "8788")
    _check_host(result, python_answers, embedded_build)


def test_the_worker_is_one_module_without_imports() -> None:
    result = CliRunner().invoke(main, ["cloudflare-worker"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert not [line for line in lines if line.startswith("import ")]
    assert [line for line in lines if line.startswith("export ")] == ["export default {"]


def test_the_host_headers_are_the_registrys() -> None:
    """host.mjs sets on every front-door answer the headers netlify.toml and _headers give /api/*."""
    text = (ROOT / "generator" / "frontdoor" / "js" / "host.mjs").read_text(encoding="utf-8")
    assert HEADERS[0].path == "/api/*"
    for name, value in HEADERS[0].values:
        assert f'"{name}": "{value}"' in text


def test_netlify_edge_function_under_deno(tmp_path: Path, embedded_build: Path, urls: list[str],
                                          python_answers: dict[str, dict | None]) -> None:
    """The Edge Function netlify.toml declares, run by Deno (npm package ``deno``) in tests/netlify/edge_harness.mjs
    (``netlify dev`` without ``--internal-disable-edge-functions`` downloads its own Deno and edge bootstrap)."""
    _need(DENO)
    _namespace()
    site = tmp_path / "site"
    result = _http_table(tmp_path, site, urls, netlify_site(embedded_build, site, "8899"), "8899")
    # the declared path is /*: a path in other case (/API/Companies/STRIPE) is the function's too
    _check_host(result, python_answers, embedded_build)


def test_netlify_toml_declares_the_edge_function() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "netlify.toml").read_text(encoding="utf-8"))
    assert config["edge_functions"] == [{"path": "/*", "function": "frontdoor"}]
    assert (ROOT / "netlify" / "edge-functions" / "frontdoor.js").is_file()
    assert config["redirects"], "the rewrite rules stay for sites that turn edge functions off"


def test_javascript_client_over_python_http_server(plain_http: str, urls: list[str],
                                                   python_answers: dict[str, dict | None]) -> None:
    """client.mjs (Node's fetch) over ``python -m http.server`` on 127.0.0.1: a host that runs no code."""
    done = subprocess.run([NODE, str(JS / "client_table.mjs"), plain_http], input=json.dumps(urls),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    table = json.loads(done.stdout)
    wrong = _compare(table, python_answers, front_door_only=True)
    assert not wrong, f"{len(wrong)} differ:\n" + "\n".join(wrong[:10])
    for url, expected in python_answers.items():
        if expected is not None:
            assert table[url]["content-type"] == expected["content_type"], url


def test_javascript_client_reads_every_page(plain_http: str) -> None:
    """``rows()`` of client.mjs follows ``links.next`` to the last page: the rows the Python client reads, and a
    problem throws with its detail."""
    from generator.frontdoor.client import Client

    url = "/api/companies?minValuation=1e9&sort=name"
    script = ("import {createClient} from './generator/frontdoor/js/client.mjs';"
              "const api = createClient(process.argv[1]); const ids = [];"
              "for await (const row of api.rows(process.argv[2])) ids.push(row.id);"
              "let error = ''; try { for await (const _ of api.rows('/api/companies?Sector=x')) {} }"
              " catch (e) { error = e.message; }"
              "process.stdout.write(JSON.stringify({ids, error}));")
    done = subprocess.run([NODE, "--input-type=module", "-e", script, plain_http, url], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    expected = [row["id"] for row in Client(plain_http).rows(url)]
    assert result["ids"] == expected and len(expected) > 50  # more than one page
    assert "400" in result["error"] and "`sector`" in result["error"]


def test_the_host_keeps_the_files_it_read(embedded_build: Path) -> None:
    """host.mjs keeps the files it read (per isolate): the same query again reads nothing from the site and gives
    the same bytes; another query reads only files it had not read."""
    script = """
import {readFile} from "node:fs/promises";
import {frontDoor} from "./generator/frontdoor/js/host.mjs";
const root = process.argv[1];
const reads = [];
const handler = frontDoor(async (path) => {
  reads.push(path);
  try { return new Response(await readFile(root + decodeURIComponent(path)), {status: 200}); }
  catch { return new Response("", {status: 404}); }
});
const passOn = async () => new Response("file", {status: 200});
const ask = async (url) => {
  const before = reads.length;
  const response = await handler(new Request("https://example.test" + url), passOn, {});
  return {status: response.status, body: await response.text(), reads: reads.slice(before)};
};
const url = "/api/companies?minValuation=1.5e9&sort=name&page=2";
const first = await ask(url), again = await ask(url), other = await ask("/api/companies?minValuation=1.5e9&sort=name");
process.stdout.write(JSON.stringify({first, again, other}));
"""
    done = subprocess.run([NODE, "--input-type=module", "-e", script, str(embedded_build)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    first, again, other = found["first"], found["again"], found["other"]
    assert first["status"] == again["status"] == 200 and first["body"] == again["body"]
    assert len(first["reads"]) >= 2 and again["reads"] == []
    assert not set(other["reads"]) & set(first["reads"]), other["reads"]  # the description and index are kept
    assert json.loads(other["body"])["meta"]["total"] == json.loads(first["body"])["meta"]["total"]


def test_an_export_is_never_read_by_the_function(embedded_build: Path) -> None:
    """host.mjs names an export's file instead of reading it: with a rewrite (Netlify) and no key the answer is the
    file's URL (the host serves it with its declared headers); with a key, and in the worker (no rewrite), the
    host's response to a read of the file streams on under the answer's headers (the gate's too); HEAD has no
    body; a bad format stays the function's 400."""
    from generator.api import access
    from generator.frontdoor import keys

    key = keys.new_key()
    script = """
import {readFile} from "node:fs/promises";
import {frontDoor} from "./generator/frontdoor/js/host.mjs";
import {digest} from "./generator/frontdoor/js/keys.mjs";
const [root, key] = process.argv.slice(1);
const reads = [];
const site = async (path) => {
  reads.push(path);
  try { return new Response(await readFile(root + decodeURIComponent(path)), {status: 200}); }
  catch { return new Response("", {status: 404}); }
};
const netlify = frontDoor(site, {rewrite: (path, request) => new URL(path, request.url)}), worker = frontDoor(site);
const digests = `${await digest(key)}\\n`;
const ask = async (handler, url, method = "GET", keyed = false) => {
  const before = reads.length;
  const request = new Request("https://example.test" + url,
    {method, headers: keyed ? {Authorization: `Bearer ${key}`} : {}});
  const response = await handler(request, async () => new Response("file"), {digests: keyed ? digests : null});
  const read = reads.slice(before).filter((p) => p.startsWith("/api/export/"));
  if (response instanceof URL) return {rewrite: response.href, read};
  const headers = Object.fromEntries([...response.headers].map(([k, v]) => [k.toLowerCase(), v]));
  return {status: response.status, headers, bytes: (await response.arrayBuffer()).byteLength, read};
};
const csv = "/api/export?format=CSV&table=Companies";
process.stdout.write(JSON.stringify({
  rewrite: await ask(netlify, csv), keyed: await ask(netlify, csv, "GET", true),
  worker: await ask(worker, csv), head: await ask(worker, csv, "HEAD"),
  json: await ask(netlify, "/api/export?format=json&table=companies"),
  bad: await ask(netlify, "/api/export?format=xml"),
}));
"""
    done = subprocess.run([NODE, "--input-type=module", "-e", script, str(embedded_build), key], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    file = "/api/export/csv/companies.csv"
    size = (embedded_build / file.lstrip("/")).stat().st_size
    assert found["rewrite"] == {"rewrite": f"https://example.test{file}", "read": []}
    declared = headers_for(file)
    for name in ("keyed", "worker", "head"):
        got = found[name]
        assert got["status"] == 200 and got["read"] == [file], name
        assert got["headers"]["content-type"] == declared["Content-Type"], name
        assert got["headers"]["content-disposition"] == declared["Content-Disposition"], name
        assert got["bytes"] == (0 if name == "head" else size), name
    assert found["keyed"]["headers"]["cache-control"] == access.KEYED_CACHE_CONTROL
    assert found["worker"]["headers"]["cache-control"] == dict(HEADERS[0].values)["Cache-Control"]
    json_file = embedded_build / "api" / "export" / "json" / "companies.json"  # no declared headers: streamed
    assert found["json"]["status"] == 200 and found["json"]["bytes"] == json_file.stat().st_size
    assert found["bad"]["status"] == 400 and found["bad"]["read"] == []
