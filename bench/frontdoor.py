"""The query front door's cost per request: file reads, bytes read, and latency against a plain static file.

    python bench/frontdoor.py --sizes embedded,10000,100000          # fetches and bytes per request
    python bench/frontdoor.py --sizes embedded,10000 --latency       # and p50/p99 under wrangler and Deno
    python bench/frontdoor.py --data DATA --dist DIST --mix          # natural mix: reads and latency per class,
                                                                     # serve beside Datasette (bench extra)

Each size is synthesized (``synth --companies N --seed 1``; ``embedded`` is ``data/``) and built into
``bench/out/frontdoor-<size>`` (kept between runs: ``--rebuild`` builds again). The table is the conformance
table the tests run (tests/frontdoor_js/table.py and tests/test_frontdoor.py: the issue's queries as people write
them, every filter value with every sort and page, pairs, ladder values between the rungs). The Python resolver
answers each over the built files and counts what it reads; Node runs the same table and must agree (the runtimes'
answers are checked byte for byte in the suite).

``--latency``: the same table through ``wrangler pages dev`` (the Cloudflare worker) and through Deno running the
Netlify Edge Function (tests/netlify/edge_harness.mjs), each inside ``unshare -n``, with a request for one static
file (a listing page of 20-30 KB) after each request of the table, on the same server in the same run: as many
samples of each; prints p50 and p99 of both and their ratio (budget: 3x), the same without the table's downloads
(``/api/export`` with a format or a table: the host's file, up to the whole dataset, whose time is its size's),
and the slowest requests. The table is asked twice: the first pass starts from a new isolate (the description,
the indexes and the JIT cold), the second is an isolate that has served a day's variety of queries (files kept up
to host.mjs's KEPT_BYTES). Before the first pass every file of the build is read once, so that the operating
system has them in memory as it has the static file asked after each query: what is timed is the host and the
function, not this machine's disk (a 100k build is 6 GB, which other work on the machine pushes out).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import frontdoor_mix  # noqa: E402
from generator.cli import main as cli  # noqa: E402
from generator.frontdoor.resolver import Resolver  # noqa: E402
from tests.frontdoor_js.sites import cloudflare_site, netlify_site  # noqa: E402
from tests.frontdoor_js.table import ISSUE, generated  # noqa: E402
from tests.test_frontdoor import NATURAL, _generated  # noqa: E402

OUT = ROOT / "bench" / "out"


def _run(args: list[str]) -> None:
    try:
        cli.main(args, standalone_mode=False)
    except SystemExit as exit_:
        if exit_.code:
            raise


def built(size: str, rebuild: bool) -> Path:
    dist = OUT / f"frontdoor-{size}" / "dist"
    if dist.is_dir() and not rebuild:
        return dist
    data = ROOT / "data"
    if size != "embedded":
        data = OUT / f"frontdoor-{size}" / "data"
        _run(["synth", "--companies", size, "--seed", "1", "--out", str(data)])
    _run(["build", "--data", str(data), "--out", str(dist), "--force", "--quiet"])
    return dist


def table(dist: Path) -> tuple[Resolver, list[str]]:
    def fetch(path: str) -> bytes | None:
        file = dist / path.lstrip("/")
        return file.read_bytes() if file.is_file() else None

    space = json.loads((dist / "api" / "query-space.json").read_text(encoding="utf-8"))
    resolver = Resolver(space, fetch)
    urls = list(dict.fromkeys([*ISSUE, *generated(space), *NATURAL, *_generated(resolver)]))
    return resolver, urls


def _pick(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fetches(dist: Path) -> dict[str, object]:
    resolver, urls = table(dist)
    counts, sizes, worst = [], [], []
    for url in urls:
        path, _, query = url.partition("?")
        answer = resolver.resolve(path, query)
        if answer is None:
            continue  # not the front door's: a file served as it is
        read = sum((dist / p.lstrip("/")).stat().st_size for p in answer.fetches if (dist / p.lstrip("/")).is_file())
        counts.append(len(answer.fetches))
        sizes.append(read)
        worst.append((len(answer.fetches), read, url))
    worst.sort(reverse=True)
    return {"queries": len(counts), "fetches_p50": statistics.median(counts), "fetches_p99": _pick(counts, 0.99),
            "fetches_max": max(counts), "over_4": sum(c > 4 for c in counts),
            "bytes_p50": statistics.median(sizes), "bytes_p99": _pick(sizes, 0.99), "bytes_max": max(sizes),
            "worst": worst[:5]}


def latency(dist: Path, only: str = "", timings: Path | None = None) -> dict[str, dict[str, float]]:
    """p50/p99 of the table and of a static file under wrangler pages dev and under Deno, in one run each (with
    ``timings``, every query's seconds per host and pass are written there as JSON)."""
    _, urls = table(dist)
    out: dict[str, dict[str, float]] = {}
    seconds: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "urls.json").write_text(json.dumps({"requests": [u for u in urls if u.startswith("/api/")],
                                                    "static": "interleaved", "passes": 2}), encoding="utf-8")
        (work / "home").mkdir()
        hosts = {"wrangler": (work / "cloudflare", cloudflare_site), "deno": (work / "netlify", netlify_site)}
        for name, (site, make) in hosts.items():
            if only and name != only:
                continue
            command = make(dist, site, "8788", os.link)  # each its own copy of the build (hard links)
            _warm(dist)
            result = work / f"{name}.json"
            env = {**os.environ, "HOME": str(work / "home"), "DENO_NO_UPDATE_CHECK": "1"}
            subprocess.run(["unshare", "-n", "-r", sys.executable, str(ROOT / "tests" / "frontdoor_js" /
                                                                        "http_table.py"),
                            str(site), "8788", str(work / "urls.json"), str(result), "--", *command],
                           env=env, check=True, capture_output=True, timeout=1800)
            found = json.loads(result.read_text(encoding="utf-8"))
            seconds.update({f"{name}, {label}": run["seconds"] for label, run in
                            zip(("first pass", "second pass"), found["passes"], strict=True)})
            for label, run in zip(("first pass", "second pass"), found["passes"], strict=True):
                front, static = list(run["seconds"].values()), run["static"]
                figures = {"front_p50": statistics.median(front) * 1000, "front_p99": _pick(front, 0.99) * 1000,
                           "static_p50": statistics.median(static) * 1000, "static_p99": _pick(static, 0.99) * 1000}
                figures["ratio_p99"] = figures["front_p99"] / figures["static_p99"]
                # a download (/api/export?format=...) is its file, up to the whole dataset, served by the host (a
                # rewrite on Netlify, the host's body streamed on elsewhere): its time is the file's size, not the
                # function's; the ratio without them is the function's own cost against a page's
                answered = [s for url, s in run["seconds"].items() if not _download(url)]
                figures["downloads"] = len(run["seconds"]) - len(answered)
                figures["answered_p99"] = _pick(answered, 0.99) * 1000
                figures["answered_ratio_p99"] = figures["answered_p99"] / figures["static_p99"]
                slow = sorted(((s, url) for url, s in run["seconds"].items()), reverse=True)[:5]
                figures["slowest"] = [f"{s * 1000:.1f} ms {url}" for s, url in slow]  # type: ignore[assignment]
                out[f"{name}, {label}"] = figures
    if timings is not None:
        timings.write_text(json.dumps(seconds, indent=1), encoding="utf-8")
    return out


def _warm(dist: Path) -> None:
    """Read every file of the build once (the page cache: hard links share it)."""
    for path in dist.rglob("*"):
        if path.is_file():
            with path.open("rb") as f:
                while f.read(1 << 20):
                    pass


def _download(url: str) -> bool:
    """Whether the table's URL asks /api/export for a file (a format or a table), not its manifest."""
    path, _, query = url.partition("?")
    return path.rstrip("/").lower() == "/api/export" and any(
        name.lower() in ("format", "table") for name, _ in parse_qsl(query, keep_blank_values=True))


def print_mix(dist: Path, data: Path, per_class: int) -> None:
    queries = frontdoor_mix.mix(data, per_class=per_class)
    resolver, _ = table(dist)
    found = frontdoor_mix.reads(resolver, queries)
    index = max(f.stat().st_size for f in (dist / "api" / "query-index").iterdir())
    print(f"{dist}: {len(queries)} queries; largest query index file {index:,} bytes")
    with tempfile.TemporaryDirectory() as scratch:
        timed = frontdoor_mix.latency(dist, data, queries, Path(scratch))
    print("| class | reads p50 / p99 / max | serve p50 / p99 ms | Datasette, same facets, p50 / p99 ms | "
          "Datasette without facets p50 / p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for name in frontdoor_mix.CLASSES:
        r, t = found[name], timed[name]
        print(f"| {name} | {r['p50']:g} / {r['p99']:g} / {r['max']:g} | {t['serve_p50']:.1f} / {t['serve_p99']:.1f} | "
              f"{t['datasette_p50']:.1f} / {t['datasette_p99']:.1f} | {t['bare_p50']:.1f} / {t['bare_p99']:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="embedded,10000")
    parser.add_argument("--latency", action="store_true")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--host", choices=["wrangler", "deno"], default="", help="--latency under this host only")
    parser.add_argument("--mix", action="store_true", help="the mix of natural queries: reads per class, and "
                        "serve's latency per class beside Datasette's")
    parser.add_argument("--per-class", type=int, default=frontdoor_mix.PER_CLASS, help="--mix: queries per class")
    parser.add_argument("--data", type=Path, help="with --dist: this dataset and its build instead of --sizes")
    parser.add_argument("--dist", type=Path)
    parser.add_argument("--timings", type=Path, help="--latency: write every query's seconds there (JSON)")
    args = parser.parse_args()
    for size in ["given"] if args.dist else args.sizes.split(","):
        dist = args.dist or built(size, args.rebuild)
        if args.mix:
            data = args.data or (ROOT / "data" if size == "embedded" else OUT / f"frontdoor-{size}" / "data")
            print_mix(dist, data, args.per_class)
            continue
        found = fetches(dist)
        index = sum(f.stat().st_size for f in (dist / "api" / "query-index").rglob("*") if f.is_file())
        print(f"{size}: {found['queries']} queries; fetches median {found['fetches_p50']} p99 "
              f"{found['fetches_p99']} max {found['fetches_max']} ({found['over_4']} over 4); bytes median "
              f"{found['bytes_p50']:,.0f} p99 {found['bytes_p99']:,.0f} max {found['bytes_max']:,.0f}; "
              f"query indexes {index:,} bytes")
        for count, read, url in found["worst"]:  # type: ignore[attr-defined]
            print(f"  {count} reads, {read:,} bytes: {url}")
        if args.latency:
            for name, figures in latency(dist, args.host, args.timings).items():
                print(f"  {name}: front door p50 {figures['front_p50']:.1f} ms p99 {figures['front_p99']:.1f} ms; "
                      f"static file p50 {figures['static_p50']:.1f} ms p99 {figures['static_p99']:.1f} ms; "
                      f"p99 ratio {figures['ratio_p99']:.2f}x; without the {figures['downloads']:.0f} "
                      f"downloads p99 {figures['answered_p99']:.1f} ms, ratio {figures['answered_ratio_p99']:.2f}x")
                for line in figures["slowest"]:  # type: ignore[union-attr]
                    print(f"    {line}")


if __name__ == "__main__":
    main()
