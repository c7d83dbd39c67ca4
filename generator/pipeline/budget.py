"""The output's budget: the files and bytes each endpoint may take at ``BUDGET_COMPANIES`` synthetic companies
(``python -m generator synth --companies 10000 --seed 1``), within the totals BENCHMARKS.md states (under 95k files,
600 MB published). The suite builds that dataset (tests/test_budget.py) and fails naming each endpoint past its
figure; a change that needs more must take it from another endpoint's budget, or raise the total on purpose.

The endpoints' byte budgets add up to no more than the total, so no endpoint can grow unnoticed into the others'
headroom. Measured at 10k when set: 599.88 MB in 95,316 published files; each endpoint's figure is its measure
rounded up (to 5 kB, 10 kB for the small ones), the landing page's with room for the work under way on it. The
exports' archives at deflate level 9 then measured 77.80 MB (599.59 MB in all): their budget gave back 0.3 MB,
unallocated, for the next endpoint. The query indexes then went binary (1.08 MB -> 0.46 MB) and gained the short
prefixes' first pages (983 files, 0.74 MB): 1.20 MB in 992 files, against 1.08 MB in 13 before.

The change events (issue 38: ``/api/changes`` with its events.jsonl, 5.18 MB in 1,383 files; ``/api/feeds``, Atom and
JSON feeds site-wide and per company, 4.92 MB in 2,468 files) measured 10.1 MB at 10k (2,386 events in the 90-day
window, of 1,233 companies); no endpoint had that much to give without unpublishing URLs people use, so the total
was raised on purpose from 600 to 610 MB (still within GitHub Pages' 1 GB), and the OpenAPI document's figure from
270 to 300 kB (the route, its filters and the webhook payload's schema). The exports' figure took 5 kB more for the
new table's empty files at 10k and the manifest's snapshot.

Fewer files where they bought nothing (issue 39; at 10k 100,157 files and 609.9 MB before, 94,675 and 579.4 MB after):
``minValuation`` in files with one other filter at most (its deeper combinations are a prefix of the same
combination without it, largest first: 3,634 files of /api/companies and /api/pre-ipos), ``sort=valuation``
(smallest first) through the front door (the end of the largest-first list: 899 files), the short prefixes' answers
in a file per first character (983 files -> 36). The total went back to 600 MB, its files to under 95,000 (9.5 per
company), each endpoint's files to its measure rounded up to 10.

``sort=-return`` on /api/ipos got its files (240, 7.25 MB at 10k; the rest of the unallocated): through the front
door alone its pages read up to 47 files at 100k companies. 94,915 files at 10k, 9.49 per company.

Scattered pages' answers (``api.scattered``: a page of two filters with a sort whose rows lie on more than three
published pages, 475 pages at 10k, most of them /api/funding's) in 47 files of /api/query-index, 11.27 MB: the
bytes from the unallocated; the files from the others' rounding, each endpoint's files now its measure rounded up
to 5. 94,962 files at 10k, 9.496 per company (below 9.5: 94,999 at most).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

BUDGET_COMPANIES = 10_000
BUDGET_SEED = 1


class Budget(NamedTuple):
    files: int
    bytes: int


TOTAL = Budget(94_999, 600_000_000)
"""Below 9.5 files per company (issue 39) and within Cloudflare Pages' 100,000 files; 600 MB again."""
ENDPOINTS: dict[str, Budget] = {
    "404.html": Budget(1, 10_000),
    "_headers": Budget(1, 10_000),
    "api/calendar": Budget(980, 13_980_000),
    "api/changes": Budget(1_385, 5_190_000),
    "api/companies": Budget(37_730, 135_835_000),
    "api/errors": Budget(20, 10_000),
    "api/export": Budget(70, 77_805_000),
    "api/feeds": Budget(2_470, 4_925_000),
    "api/filings": Budget(3_435, 30_435_000),
    "api/funding": Budget(7_300, 93_425_000),
    "api/industries": Budget(25, 1_930_000),
    "api/investors": Budget(9_385, 36_355_000),
    "api/ipos": Budget(1_945, 36_590_000),
    "api/news": Budget(9_250, 41_020_000),
    "api/offerings": Budget(150, 1_335_000),
    "api/openapi.json": Budget(1, 300_000),
    "api/pre-ipos": Budget(11_955, 62_675_000),
    "api/query-index": Budget(90, 12_485_000),
    "api/query-space.json": Budget(1, 40_000),
    "api/search": Budget(8_540, 28_350_000),
    "api/trending": Budget(255, 15_115_000),
    "index.html": Budget(1, 160_000),
}
"""Per endpoint (``output.staged.endpoint_of``: ``api/<route>`` with its detail files, or a file at the top)."""


def over_budget(files: Mapping[str, int], sizes: Mapping[str, int]) -> list[str]:
    """What exceeds the budget, one line per endpoint (an endpoint without a budget is one), then the totals; empty
    when the output fits. ``files`` and ``sizes``: published files and bytes by endpoint (``BuildReport``)."""
    out = []
    for endpoint in sorted(files):
        budget = ENDPOINTS.get(endpoint)
        if budget is None:
            out.append(f"{endpoint}: {files[endpoint]:,} files, {sizes[endpoint]:,} bytes and no budget "
                       f"(declare one in generator/pipeline/budget.py)")
            continue
        if files[endpoint] > budget.files:
            out.append(f"{endpoint}: {files[endpoint]:,} files, over its budget of {budget.files:,}")
        if sizes[endpoint] > budget.bytes:
            out.append(f"{endpoint}: {sizes[endpoint]:,} bytes, over its budget of {budget.bytes:,}")
    total = Budget(sum(files.values()), sum(sizes.values()))
    if total.files > TOTAL.files or total.bytes > TOTAL.bytes:
        out.append(f"total: {total.files:,} files and {total.bytes:,} bytes, over {TOTAL.files:,} and {TOTAL.bytes:,}")
    return out
