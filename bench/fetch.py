"""Fetch benchmark (not a test): what a night's ``python -m generator fetch edgar`` costs in requests, bytes and
seconds, measured against the tests' fixture server on 127.0.0.1 (tests/sec_fixture.py), never the SEC.

The server holds the SEC's layout with the real files of ../shared/data/edgar at full size: both ticker lists,
and the real daily index of 2020-01-03 (7,989 filings, 668 kB) served for every business day of the week
2019-12-30 to 2020-01-03 but the New Year holiday (answered 403, as the SEC does), plus a submissions document
per filer of an IPO form (written by the fixture: smaller than the SEC's, which list up to 1,000 filings).
It measures, each as its own ``fetch`` process at the SEC's rate (10 requests a second):

1. the first night: a week of daily indexes (``--since 2019-12-30``) into an empty raw folder;
2. a second run the same night: nothing changed (every request a 304, or a day still without its index);
3. the next night: a changed ticker list and one new daily index (2020-01-06).

Usage: ``python bench/fetch.py [--data ../shared/data] [--rate 10]``. Prints one line per run (requests,
downloaded, not modified, absent, wire bytes, seconds) for the README.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.sec_fixture import SecServer, index_path, sec_tree  # noqa: E402

WEEK = [dt.date(2019, 12, 30), dt.date(2019, 12, 31), dt.date(2020, 1, 2), dt.date(2020, 1, 3)]
HOLIDAY = dt.date(2020, 1, 1)
_SUMMARY = re.compile(r"(\d+) requests: (\d+) downloaded, (\d+) not modified, (\d+) absent, (\d+) failed; "
                      r"([\d,]+) bytes")


def fetch(server: SecServer, raw: Path, rate: float, *args: str) -> str:
    env = {**os.environ, "COMPANY_IPO_API_USER_AGENT": "Fetch Benchmark bench@example.com",
           "COMPANY_IPO_API_BASE_URL": server.base}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "generator", "fetch", "edgar", "--into", str(raw), "--rate",
                           str(rate), *args], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"fetch failed:\n{done.stdout}{done.stderr}")
    found = _SUMMARY.search(done.stdout)
    if found is None:
        raise SystemExit(f"no summary in:\n{done.stdout}")
    requests, downloaded, fresh, absent, failed, wire = found.groups()
    return (f"{requests} requests ({downloaded} downloaded, {fresh} not modified, {absent} absent), "
            f"{int(wire.replace(',', '')):,} bytes on the wire, {seconds:.1f} s (process wall time)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--rate", type=float, default=10.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = sec_tree(Path(scratch) / "sec", options.data / "edgar", WEEK)
        raw = Path(scratch) / "raw"
        with SecServer(root, forbidden={"/" + index_path(HOLIDAY)}) as server:
            print("first night, a week of daily indexes:",
                  fetch(server, raw, options.rate, "--since", "2019-12-30", "--until", "2020-01-03"))
            print("same night again, nothing new:       ",
                  fetch(server, raw, options.rate, "--until", "2020-01-03"))
            listing = root / "files" / "company_tickers.json"
            entries = json.loads(listing.read_bytes())
            entries.pop(next(iter(entries)))
            listing.write_text(json.dumps(entries), encoding="utf-8")
            (root / index_path(dt.date(2020, 1, 6))).parent.mkdir(parents=True, exist_ok=True)
            (root / index_path(dt.date(2020, 1, 6))).write_bytes((root / index_path(WEEK[-1])).read_bytes())
            print("next night, one new index and list:  ",
                  fetch(server, raw, options.rate, "--until", "2020-01-06"))
        size = sum(p.stat().st_size for p in raw.rglob("*") if p.is_file())
        print(f"raw folder after the three runs: {size:,} bytes in {len(list(raw.glob('2*')))} run folders")


if __name__ == "__main__":
    main()
