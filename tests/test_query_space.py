"""The published query space on the embedded dataset: a URL exists exactly when it has content.

Read from the built files (the query-string forms are proven equal to them by the conformance table):
- every listing file holds at least one row, and none is reachable past the last page;
- every single filter and every pair of filters that combine answers each non-empty combination with
  exactly the matching rows of the unfiltered listing, in its order, and an empty combination has no file;
- every facet URL of every first page is a published file whose ``meta.total`` equals the facet's count, and
  the facets list every refinement that has rows (up to the documented limit).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from generator.api.registry import FACET_LIMIT, Filter, ListRoute
from generator.api.registry import FILE_ROUTES as LIST_ROUTES  # a filter without files is the front door's

from . import oracle
from .conftest import Served


def _files(root: Path, route: ListRoute) -> dict[str, dict]:
    """Every listing file of a route, by its URL path, parsed."""
    base = root / route.path.lstrip("/")
    out = {}
    for path in base.rglob("*.json"):
        relative = path.relative_to(base)
        if len(relative.parts) > 1:  # detail resources sit directly in the collection folder
            out["/" + path.relative_to(root).as_posix()] = json.loads(path.read_bytes())
    return out


@pytest.fixture(scope="module")
def published(site: Served) -> dict[str, dict[str, dict]]:
    return {route.name: _files(site.root, route) for route in LIST_ROUTES}


def crawl(files: dict[str, dict], url: str | None) -> list[dict]:
    rows = []
    while url:
        body = files[url]
        rows += body["data"]
        url = body["links"]["next"]
    return rows


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_no_listing_file_is_empty_and_pages_are_consistent(published: dict, route: ListRoute) -> None:
    files = published[route.name]
    assert files, route.name
    for url, body in files.items():
        meta = body["meta"]
        assert body["data"], f"{url} is empty"
        assert 1 <= meta["page"] <= meta["pages"] and meta["total"] >= len(body["data"])
        assert body["links"]["self"] == url
        assert (meta["page"] == meta["pages"]) == (body["links"]["next"] is None)
        assert (("facets" in meta) == (meta["page"] == 1)), url


def _expected(universe: list[dict], filters: list[Filter], values: tuple[str, ...]) -> list[dict]:
    return [r for r in universe if all(v in oracle.filter_values(f, r) for f, v in zip(filters, values, strict=True))]


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_every_single_filter_and_combinable_pair_has_exactly_the_matching_rows(
    published: dict, route: ListRoute
) -> None:
    files = published[route.name]
    default = route.default_sort
    universe = crawl(files, route.file_path({}, default, 1))
    assert len(universe) == files[route.file_path({}, default, 1)]["meta"]["total"]
    faceted = [f for f in route.filters if f.faceted]
    sets = [(f,) for f in route.filters] + [
        pair for pair in itertools.combinations(faceted, 2) if route.combines({f.name for f in pair})]
    checked = 0
    for filters in sets:
        domains = [sorted(set().union(*(oracle.filter_values(f, r) for r in universe))) for f in filters]
        for values in itertools.product(*domains):
            active = {f.name: v for f, v in zip(filters, values, strict=True)}
            expected = _expected(universe, list(filters), values)
            url = route.file_path(active, default, 1)
            if not expected:
                assert url not in files, f"{url} is published but has no rows"
                continue
            assert url in files, f"{url} has rows but is not published"
            assert crawl(files, url) == expected, url
            assert files[url]["meta"]["filters"] == {
                f.name: oracle.typed(f, v) for f, v in zip(filters, values, strict=True)}
            checked += 1
    assert checked >= len(route.filters)


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_every_facet_url_is_published_with_the_stated_count(published: dict, route: ListRoute) -> None:
    files = published[route.name]
    by_name = {f.name: f for f in route.filters}
    seen = 0
    for url, body in files.items():
        meta = body["meta"]
        if meta["page"] != 1:
            continue
        applied = set(meta["filters"])
        expected_facets = {f.name for f in route.filters if f.faceted and f.name not in applied
                           and route.combines(applied | {f.name})}
        rows = crawl(files, url)
        assert set(meta["facets"]) <= expected_facets, url
        for name in expected_facets:
            flt = by_name[name]
            counts: dict[str, int] = {}
            for row in rows:
                for value in oracle.filter_values(flt, row):
                    counts[value] = counts.get(value, 0) + 1
            entries = meta["facets"].get(name, [])
            ordered = sorted(counts.items(), key=lambda vc: (-vc[1], oracle.typed(flt, vc[0])))
            assert [str(e["value"]) for e in entries] == [v for v, _ in ordered][:FACET_LIMIT], (url, name)
            assert (name in meta["facets_truncated"]) == (len(counts) > FACET_LIMIT)
            for entry in entries:
                target = files.get(entry["url"])
                assert target is not None, (url, entry)
                assert target["meta"]["total"] == entry["count"] == counts[str(entry["value"])]
                assert target["meta"]["filters"] == {**meta["filters"], name: entry["value"]}
                seen += 1
    if any(f.faceted for f in route.filters):
        assert seen > 0


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_every_published_sort_of_a_combination_has_the_same_rows(published: dict, route: ListRoute) -> None:
    """Each sort of a combination crawls to the same set of rows, each once."""
    files = published[route.name]
    firsts = [(url, b) for url, b in files.items() if b["meta"]["page"] == 1]
    by_filters: dict[str, list[list[dict]]] = {}
    sorts: dict[str, set[str]] = {}
    for url, body in firsts:
        rows = crawl(files, url)
        key = json.dumps(body["meta"]["filters"], sort_keys=True)
        by_filters.setdefault(key, []).append(sorted(json.dumps(r, sort_keys=True) for r in rows))
        sorts.setdefault(key, set()).add(body["meta"]["sort"])
    for key, variants in by_filters.items():
        assert all(v == variants[0] for v in variants), key
        assert len(set(variants[0])) == len(variants[0]), key
        assert sorts[key] == set(route.sorts_for(set(json.loads(key)))), key


@pytest.mark.parametrize("query", ["sector=no-such-sector", "country=zz", "page=999", "q=zzzzqqq"])
def test_unknown_values_empty_results_and_pages_past_the_end_are_the_same_404(site: Served, query: str) -> None:
    response = site.get(f"/api/companies?{query}")
    assert response.status == 404
    assert response.json() == site.get("/api/no-such-endpoint").json()
