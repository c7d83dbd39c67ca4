"""API keys on the edge functions' own dev servers: the Netlify Edge Function under Deno (tests/netlify/
edge_harness.mjs, the digests in the process environment that ``Netlify.env`` reads) and the Cloudflare Pages worker
under ``wrangler pages dev`` (the digests in ``.dev.vars``, as wrangler reads a secret locally). Each runs the table
of tests/keys_table.py twice: with both test keys' digests, then with the second one's removed (a new deploy).
The files themselves need the key too, the front door's own reads still work, and no key or digest is written
to a log or to a file of the site. Without the variable both answer as before (tests/test_frontdoor_js.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from generator.api.access import DIGESTS_VARIABLE
from tests import keys_table
from tests.frontdoor_js.sites import DENO, WRANGLER, cloudflare_site, netlify_site
from tests.test_frontdoor_js import JS, _namespace, _need


def _run(out: Path, site: Path, asked: dict, command: list[str], port: str, environment: dict[str, str]) -> dict:
    out.mkdir()
    (out / "home").mkdir()
    (out / "requests.json").write_text(json.dumps({"requests": [r for r, _, _ in asked.values()], "static": False}),
                                       encoding="utf-8")
    env = {**os.environ, "HOME": str(out / "home"), **environment}
    done = subprocess.run(["unshare", "-n", "-r", sys.executable, str(JS / "http_table.py"), str(site), port,
                           str(out / "requests.json"), str(out / "table.json"), "--", *command], env=env,
                          capture_output=True, text=True, timeout=900)
    log = (out / "server.log").read_text(errors="replace")[-3000:] if (out / "server.log").exists() else ""
    assert done.returncode == 0 and (out / "table.json").exists(), done.stderr[-3000:] + log
    return json.loads((out / "table.json").read_text(encoding="utf-8"))["table"]


def _twice(tmp_path: Path, build: Path, site: Path, command: list[str], port: str, secret_file: Path | None) -> None:
    """The table with both digests, then with the first only; then no key or digest in a log or a site file."""
    made = keys_table.make_keys()
    wrong = []
    for launch, (digests, removed) in enumerate([(made.both, False), (made.first_only, True)]):
        environment = {}
        if secret_file is None:
            environment[DIGESTS_VARIABLE] = digests
        else:
            secret_file.write_text(f"{DIGESTS_VARIABLE}={json.dumps(digests)}\n", encoding="utf-8")
        asked = keys_table.requests(build, made, removed)
        table = _run(tmp_path / f"launch{launch}", site, asked, command, port, environment)
        wrong += [f"launch {launch}: {w}" for w in keys_table.check_all(build, table, asked)]
    assert not wrong, "\n".join(wrong[:20])
    assert not keys_table.leaks(made, site, tmp_path / "launch0" / "server.log", tmp_path / "launch1" / "server.log")


def test_keys_on_the_netlify_edge_function_under_deno(tmp_path: Path, embedded_build: Path) -> None:
    _need(DENO)
    _namespace()
    site = tmp_path / "site"
    _twice(tmp_path, embedded_build, site, netlify_site(embedded_build, site, "8898"), "8898", None)


def test_keys_on_the_cloudflare_worker_under_wrangler_pages_dev(tmp_path: Path, embedded_build: Path) -> None:
    _need(WRANGLER)
    _namespace()
    site = tmp_path / "site"
    _twice(tmp_path, embedded_build, site, cloudflare_site(embedded_build, site, "8787"), "8787", site / ".dev.vars")
