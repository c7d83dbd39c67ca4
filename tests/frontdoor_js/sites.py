"""Sites the edge runtimes serve in the tests and the benchmark: a copy of a build with what each host deploys
beside it, and the command that serves it on 127.0.0.1 (run it inside ``unshare -n``: tests/frontdoor_js/
http_table.py)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from generator.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
WRANGLER = ROOT / "tests" / "cloudflare" / "node_modules" / ".bin" / "wrangler"
DENO = ROOT / "node_modules" / ".bin" / "deno"
Copy = Callable[[str, str], object]


def netlify_site(build: Path, site: Path, port: str, copy: Copy = shutil.copy2) -> list[str]:
    """The build with netlify.toml, the Edge Function and the front door's JavaScript; Deno running the function
    in tests/netlify/edge_harness.mjs (``netlify dev`` downloads its own Deno, which it cannot offline)."""
    shutil.copytree(build, site / "dist", copy_function=copy)
    shutil.copy(ROOT / "netlify.toml", site / "netlify.toml")
    shutil.copytree(ROOT / "netlify" / "edge-functions", site / "netlify" / "edge-functions")
    shutil.copytree(ROOT / "generator" / "frontdoor" / "js", site / "generator" / "frontdoor" / "js")
    os.environ.setdefault("DENO_NO_UPDATE_CHECK", "1")
    return [str(DENO), "run", "--no-remote", "--allow-net=127.0.0.1", "--allow-read", "--allow-env",
            str(ROOT / "tests" / "netlify" / "edge_harness.mjs"), str(site), port]


def cloudflare_site(build: Path, site: Path, port: str, copy: Copy = shutil.copy2) -> list[str]:
    """The build with the generated ``_worker.js`` and ``_headers``; ``wrangler pages dev`` serving it."""
    shutil.copytree(build, site / "dist", copy_function=copy)
    runner = CliRunner()
    for command, name in (("cloudflare-worker", "_worker.js"), ("cloudflare-headers", "_headers")):
        result = runner.invoke(main, [command, "--out", str(site / "dist" / name)])
        assert result.exit_code == 0, result.output
    return [str(WRANGLER), "pages", "dev", "dist", "--ip", "127.0.0.1", "--port", port]
