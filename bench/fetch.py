"""Fetch benchmark (not a test): what a night's ``python -m generator fetch edgar`` and ``fetch nasdaq`` cost in
requests, bytes and seconds, measured against the tests' fixture server on 127.0.0.1 (tests/sec_fixture.py),
never the SEC or Nasdaq.

The server holds the SEC's layout with the real files of ../shared/data/edgar at full size: both ticker lists,
and the real daily index of 2020-01-03 (7,989 filings, 668 kB) served for every business day of the week
2019-12-30 to 2020-01-03 but the New Year holiday (answered 403, as the SEC does), plus a submissions document
per filer of an IPO form (written by the fixture: smaller than the SEC's, which list up to 1,000 filings).
It measures, each as its own ``fetch`` process at the SEC's rate (10 requests a second):

1. the first night: a week of daily indexes (``--since 2019-12-30``) into an empty raw folder;
2. a second run the same night: nothing changed (every request a 304, or a day still without its index);
3. the next night: a changed ticker list and one new daily index (2020-01-06).

EDGAR's runs also ask for the companyfacts document of each company the new indexes name with an annual or
quarterly report (11 on 2020-01-03); the server holds none for those CIKs, so each answers 404 (their size and
cost are measured in docs/sources.md instead).

For Nasdaq the same server answers ``/api/ipo/calendar?date=YYYY-MM`` as Nasdaq's API does (no validators, the
whole month each time) with the three fixture months of tests/fixtures/nasdaq-calendar (July to September 2025,
full months: 42 to 95 deals each), served as the two months before the current one and the current one (the
CLI reads the real clock to decide which months a night asks for again), and the stock screener for each
exchange (tests/nasdaq_fixture.py: the 6,928 rows of the recorded download, asked once a run):

4. the first night: the three months (``--since``), the current one as it stood on 2025-09-11;
5. a second run the same night: the current month asked again (and the previous one during a month's first eight days),
   the same bytes, nothing kept;
6. the next night: the current month changed (September as it stood on 2025-09-18), kept again.

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

from tests.nasdaq_fixture import (  # noqa: E402
    BROWSER,
    FIXTURES,
    MONTHS,
    calendar_tree,
    fixture_months,
    screener_answers,
    screener_tree,
)
from tests.sec_fixture import SecServer, index_path, sec_tree  # noqa: E402

WEEK = [dt.date(2019, 12, 30), dt.date(2019, 12, 31), dt.date(2020, 1, 2), dt.date(2020, 1, 3)]
HOLIDAY = dt.date(2020, 1, 1)
_SUMMARY = re.compile(r"(\d+) requests: (\d+) downloaded, (\d+) not modified, (\d+) absent, (\d+) failed; "
                      r"([\d,]+) bytes")


def fetch(server: SecServer, raw: Path, rate: float, *args: str, source: str = "edgar") -> str:
    env = {**os.environ, "COMPANY_IPO_API_USER_AGENT": "Fetch Benchmark bench@example.com",
           "COMPANY_IPO_API_BASE_URL": server.base}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "generator", "fetch", source, "--into", str(raw), "--rate",
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
    this_month = dt.datetime.now(dt.UTC).date().replace(day=1)
    served = [this_month]
    while len(served) < len(MONTHS):
        served.insert(0, (served[0] - dt.timedelta(days=1)).replace(day=1))
    as_served = dict(zip([f"{m:%Y-%m}" for m in served], fixture_months(early=True).values(), strict=True))
    with tempfile.TemporaryDirectory() as scratch:
        root = calendar_tree(sec_tree(Path(scratch) / "sec", options.data / "edgar", WEEK), as_served)
        screener_tree(root, screener_answers(options.data))
        raw = Path(scratch) / "raw"
        with SecServer(root, forbidden={"/" + index_path(HOLIDAY)}, browser=BROWSER) as server:
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
            print(f"Nasdaq, first night, 3 months ({served[0]:%Y-%m} to {served[-1]:%Y-%m}):",
                  fetch(server, raw, options.rate, "--since", f"{served[0]:%Y-%m}", source="nasdaq"))
            print("Nasdaq, same night again:            ", fetch(server, raw, options.rate, source="nasdaq"))
            calendar_tree(root, {f"{this_month:%Y-%m}": (FIXTURES / f"{MONTHS[-1]}.json").read_bytes()})
            print("Nasdaq, next night, the month changed:", fetch(server, raw, options.rate, source="nasdaq"))
        size = sum(p.stat().st_size for p in raw.rglob("*") if p.is_file())
        print(f"raw folder after the six runs: {size:,} bytes in {len(list(raw.glob('2*')))} run folders")


if __name__ == "__main__":
    main()
