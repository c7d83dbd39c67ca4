"""The output's budget (generator/pipeline/budget.py), measured: ``synth --companies 10000 --seed 1`` built once per
session (the build tests/test_frontdoor_10k.py checks the conformance table on), its published files and bytes per
endpoint against each endpoint's budget. And the check can fail: a real change (publishing one more sort of
/api/ipos, rendered at 10k) pushes that endpoint past its budget and the check names it."""

from __future__ import annotations

import dataclasses

import duckdb
import pytest

from generator.api import listing, queries
from generator.api.registry import LIST_ROUTES, ListRoute
from generator.dataset.database import load_into
from generator.dataset.load import validate
from generator.pipeline.budget import ENDPOINTS, TOTAL, over_budget

from .conftest import Build10k


def _published(build: Build10k) -> tuple[dict[str, int], dict[str, int]]:
    """Files and bytes by endpoint, without the generator's bookkeeping dotfiles (no deploy uploads them)."""
    report = build.report
    kept = [e for e in report.files_by_endpoint if not e.startswith(".")]
    return {e: report.files_by_endpoint[e] for e in kept}, {e: report.bytes_by_endpoint[e] for e in kept}


def test_the_endpoints_budgets_fit_in_the_total() -> None:
    assert sum(b.bytes for b in ENDPOINTS.values()) <= TOTAL.bytes
    assert sum(b.files for b in ENDPOINTS.values()) <= TOTAL.files


def test_the_10k_build_fits_its_budget(build_10k: Build10k) -> None:
    files, sizes = _published(build_10k)
    print(f"\n10k build in {build_10k.seconds:.1f} s: {sum(files.values()):,} files, {sum(sizes.values()):,} bytes")
    for endpoint in sorted(files):
        budget = ENDPOINTS.get(endpoint)
        print(f"  {endpoint}: {files[endpoint]:,} files, {sizes[endpoint]:,} bytes (budget {budget})")
    assert over_budget(files, sizes) == []
    assert sum(sizes.values()) == build_10k.report.published[1]  # every published byte is some endpoint's


def test_a_stray_endpoint_and_the_total_are_named() -> None:
    unallocated = TOTAL.bytes - sum(budget.bytes for budget in ENDPOINTS.values())
    files = {name: budget.files for name, budget in ENDPOINTS.items()} | {"api/new": 1}
    sizes = {name: budget.bytes for name, budget in ENDPOINTS.items()} | {"api/new": unallocated + 1}
    found = over_budget(files, sizes)
    assert found[0].startswith(f"api/new: 1 files, {unallocated + 1:,} bytes and no budget")
    assert found[-1].startswith("total:") and len(found) == 2


def _pages_bytes(con: duckdb.DuckDBPyConnection, route: ListRoute, info: object) -> tuple[int, int]:
    listing.materialize(con, route, info)  # type: ignore[arg-type]
    pages = list(listing.render(con, route, info))  # type: ignore[arg-type]
    return len(pages), sum(len(p.body) for p in pages)


@pytest.mark.parametrize("endpoint", ["api/companies"])
def test_publishing_one_more_sort_goes_past_the_budget_and_is_named(build_10k: Build10k, endpoint: str) -> None:
    """``sort=valuation`` (smallest first) on /api/companies with files (it is why the registry declares it
    front-door-only): the route's pages rendered at 10k with and without it, the difference added to the measured
    build."""
    info, tables = validate(build_10k.data)
    con = duckdb.connect(config={"threads": 1})
    load_into(con, tables)
    con.execute(queries.read_sql("views"))
    route = next(r for r in LIST_ROUTES if r.path == "/" + endpoint)
    assert any(not s.published for s in route.sorts)
    inflated = dataclasses.replace(route, sorts=tuple(dataclasses.replace(s, published=True) for s in route.sorts))
    before, after = _pages_bytes(con, route, info), _pages_bytes(con, inflated, info)
    files, sizes = _published(build_10k)
    assert over_budget(files, sizes) == []
    files[endpoint] += after[0] - before[0]
    sizes[endpoint] += after[1] - before[1]
    print(f"\n{endpoint} with sort=valuation published: +{after[0] - before[0]:,} files, "
          f"+{after[1] - before[1]:,} bytes")
    found = over_budget(files, sizes)
    assert found and all(line.startswith((f"{endpoint}:", "total:")) for line in found), found
    assert any(line.startswith(f"{endpoint}: ") and "over its budget" in line for line in found)
