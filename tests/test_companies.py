"""/api/companies and /api/companies/{id|slug} through `serve`, checked against an independent oracle."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from generator.api.registry import MINIMUM_VALUATION_LADDER_USD, ROUTES

from . import oracle
from .conftest import EMBEDDED, TINY, Served

DATASETS = [("tiny_site", TINY), ("site", EMBEDDED)]
COMPANIES = next(r for r in ROUTES if r.name == "companies")

ENVELOPE_KEYS = {"data", "meta", "links"}
META_KEYS = {"total", "page", "per_page", "pages", "sort", "filters", "as_of", "disclaimer"}
LINK_KEYS = {"self", "first", "prev", "next", "last"}
FACET_KEYS = {"facets", "facets_truncated"}


@pytest.fixture(params=DATASETS, ids=[name for name, _ in DATASETS])
def served(request: pytest.FixtureRequest) -> tuple[Served, Path]:
    fixture, data = request.param
    if data == EMBEDDED and not (EMBEDDED / "companies.csv").exists():
        pytest.skip("embedded dataset not written yet")
    return request.getfixturevalue(fixture), data


def crawl(site: Served, url: str) -> tuple[list[dict], list[dict]]:
    """Follow links.next to null; return the rows and each page's body."""
    rows, bodies = [], []
    while url:
        status, body = site.get_json(url)
        assert status == 200, url
        first_page = FACET_KEYS if body["meta"]["page"] == 1 else set()
        assert set(body) == ENVELOPE_KEYS and set(body["meta"]) == META_KEYS | first_page
        assert set(body["links"]) == LINK_KEYS
        rows += body["data"]
        bodies.append(body)
        url = body["links"]["next"]
    return rows, bodies


def test_crawl_returns_every_company_once_in_order(served: tuple[Served, Path]) -> None:
    site, data = served
    companies = oracle.read(data, "companies")
    rows, bodies = crawl(site, "/api/companies")
    assert [r["id"] for r in rows] == oracle.company_order(companies, "-valuation")
    assert all(b["meta"]["total"] == len(companies) for b in bodies)
    assert [b["meta"]["page"] for b in bodies] == list(range(1, len(bodies) + 1))
    assert bodies[0]["links"]["prev"] is None and bodies[-1]["links"]["next"] is None
    assert set(rows[0]) == set(COMPANIES.model.model_fields)


@pytest.mark.parametrize("sort", COMPANIES.published_sorts)
def test_every_sort_crawls_to_the_oracle_order(served: tuple[Served, Path], sort: str) -> None:
    site, data = served
    rows, _ = crawl(site, f"/api/companies?sort={sort}")
    assert [r["id"] for r in rows] == oracle.company_order(oracle.read(data, "companies"), sort)


def test_every_filter_combination_has_exactly_the_right_rows(served: tuple[Served, Path]) -> None:
    """Every combination of sector, country, minValuation and status, read from its files, against the oracle:
    each published sort and page when it has rows, no file at all when it has none or the files do not combine it
    (``minValuation`` with two others: the front door's, checked by the conformance table)."""
    site, data = served
    companies = oracle.read(data, "companies")
    dimensions = {
        "sector": sorted({c["sector"] for c in companies}),
        "country": sorted({c["country"] for c in companies}),
        "minValuation": [str(v) for v in MINIMUM_VALUATION_LADDER_USD],
        "status": sorted({c["status"] for c in companies}),
    }
    checked = empty = 0
    for combination in itertools.product(*([None, *values] for values in dimensions.values())):
        filters = {k: v for k, v in zip(dimensions, combination, strict=True) if v}
        matching = [c for c in companies if oracle.company_matches(c, filters)]
        sorts = COMPANIES.sorts_for(set(filters))
        assert sorts == (COMPANIES.published_sorts if len(filters) <= COMPANIES.sort_depth
                         else (COMPANIES.default_sort,))
        if not matching or not COMPANIES.combines(set(filters)):
            assert not (site.root / COMPANIES.file_path(filters, sorts[0], 1).lstrip("/")).exists(), filters
            empty += 1
            continue
        for sort in sorts:
            expected = oracle.company_order(matching, sort)
            got: list[int] = []
            page = 1
            while True:
                path = site.root / COMPANIES.file_path(filters, sort, page).lstrip("/")
                body = json.loads(path.read_bytes())
                got += [r["id"] for r in body["data"]]
                assert body["meta"]["total"] == len(expected)
                if body["links"]["next"] is None:
                    break
                page += 1
            assert got == expected, (filters, sort)
            assert not (site.root / COMPANIES.file_path(filters, sort, page + 1).lstrip("/")).exists()
            checked += 1
    assert checked > 0 and empty > 0


def test_query_string_and_path_forms_agree(served: tuple[Served, Path]) -> None:
    site, data = served
    sector = oracle.read(data, "companies")[0]["sector"]
    query = site.get(f"/api/companies?page=1&sector={sector}&sort=name&utm_source=x")
    path = site.get(f"/api/companies/sector={sector}/sort=name,page=1.json")
    assert query.status == path.status == 200 and query.body == path.body


def test_second_page_is_the_second_slice(site: Served) -> None:
    companies = oracle.read(EMBEDDED, "companies")
    order = oracle.company_order(companies, "-valuation")
    per_page = COMPANIES.per_page
    assert len(order) > per_page, "the embedded dataset should need more than one page"
    status, body = site.get_json("/api/companies?page=2")
    assert status == 200
    assert [r["id"] for r in body["data"]] == order[per_page : 2 * per_page]
    assert body["links"]["prev"] == COMPANIES.file_path({}, "-valuation", 1)


def test_page_beyond_the_last_is_a_404_problem(served: tuple[Served, Path]) -> None:
    site, _ = served
    _, first = site.get_json("/api/companies")
    response = site.get(f"/api/companies?page={first['meta']['pages'] + 1}")
    assert response.status == 404
    problem = response.json()
    assert set(problem) == {"type", "title", "status", "detail"} and problem["status"] == 404
    assert response.headers["Content-Type"].startswith("application/problem+json")


@pytest.mark.parametrize("query", ["sector=no-such-sector", "country=zz", "minValuation=123", "sort=valuation_usd",
                                   "page=0", "page=abc", "sector="])
def test_values_outside_the_documented_ones_are_404(tiny_site: Served, query: str) -> None:
    assert tiny_site.get(f"/api/companies?{query}").status == 404


def test_text_query_matches_whole_words_and_tickers(served: tuple[Served, Path]) -> None:
    """Words of the name, the ticker and the names and tickers the company is also known by (Facebook, SQ)."""
    site, data = served
    companies = oracle.companies_with_aliases(data)
    probes = {w for c in companies for w in oracle.words(" ".join([c["name"], c["ticker"], *c["also_known_as"]]))}
    for q in sorted(probes):
        expected = oracle.company_order([c for c in companies if oracle.company_matches(c, {"q": q})], "-valuation")
        rows, bodies = crawl(site, f"/api/companies?q={q}")
        assert [r["id"] for r in rows] == expected, q
        assert bodies[0]["meta"]["filters"] == {"q": q}
    prefixes = {w[:-1] for w in probes if len(w) > 1} - probes
    assert prefixes
    for q in sorted(prefixes)[:50]:  # a prefix that is not itself a word finds nothing: type-ahead is /api/search
        assert site.get(f"/api/companies?q={q}").status == 404


def test_text_query_with_a_filter_or_a_sort_is_a_clear_problem(tiny_site: Served) -> None:
    for other in ("sector=fintech", "country=us", "minValuation=1000000000", "status=public", "sort=name"):
        response = tiny_site.get(f"/api/companies?q=stripe&{other}&page=1")
        assert response.status == 404, other
        problem = response.json()
        assert problem["title"] == "Unsupported parameter combination"
        assert "`q`" in problem["detail"] and "drop one of them" in problem["detail"]
    assert tiny_site.get("/api/companies?q=stripe&page=1").status == 200


def test_profile_by_id_and_by_slug_are_identical(served: tuple[Served, Path]) -> None:
    site, data = served
    for company in oracle.read(data, "companies"):
        by_id = site.get(f"/api/companies/{company['id']}")
        by_slug = site.get(f"/api/companies/{company['slug']}")
        assert by_id.status == by_slug.status == 200
        assert by_id.body == by_slug.body
        body = by_id.json()["data"]
        assert body["id"] == int(company["id"]) and body["slug"] == company["slug"]
        assert {"financials", "funding", "analysis"} <= set(body)


def test_profile_groups_match_the_data(tiny_site: Served) -> None:
    _, body = tiny_site.get_json("/api/companies/stripe")
    stripe = body["data"]
    assert stripe["funding"]["total_raised_usd"] == 18_000_000 + 6_500_000_000
    assert [r["stage"] for r in stripe["funding"]["rounds"]] == ["series-i", "series-a"]
    assert stripe["funding"]["rounds"][0]["investors"][0] == {
        "id": 3, "slug": "thrive-capital", "name": "Thrive Capital", "is_lead": True}
    analysis = stripe["analysis"]
    assert analysis["valuation_to_revenue"] == round(91_500_000_000 / 5_100_000_000, 2)
    assert analysis["sector_rank"] == 1 and analysis["sector_companies"] == 3
    assert analysis["months_since_last_round"] == 27  # 2023-03 -> 2025-06
    assert analysis["secondary_premium_to_last_round"] == round(95_000_000_000 / 50_000_000_000 - 1, 4)
    assert set(analysis["methodology"]) >= {"valuation_to_revenue", "sector_rank", "months_since_last_round"}
    _, airbnb = tiny_site.get_json("/api/companies/1")
    years = airbnb["data"]["financials"]
    assert [y["fiscal_year"] for y in years] == [2023, 2024]
    assert years[1]["revenue_growth"] == round(11_102_000_000 / 9_917_000_000 - 1, 4)
    assert airbnb["data"]["ipos"][0]["first_day_return"] == round(14471 / 6800 - 1, 4)
    assert airbnb["data"]["listing"]["edgar_url"].endswith("CIK=0001559720")


@pytest.mark.parametrize("key", ["no-such-company", "999999", "sector", "Stripe"])
def test_unknown_company_is_a_404_problem(tiny_site: Served, key: str) -> None:
    response = tiny_site.get(f"/api/companies/{key}")
    assert response.status == 404
    assert response.json()["status"] == 404


def test_every_response_carries_the_disclaimer(tiny_site: Served) -> None:
    disclaimer = json.loads((TINY / "dataset.json").read_text())["disclaimer"]
    for path in ("/api/companies", "/api/companies/stripe", "/api/companies?q=stripe"):
        assert tiny_site.get_json(path)[1]["meta"]["disclaimer"] == disclaimer


@pytest.mark.parametrize("query", ["q=" + "a" * 400, "q=%C4%B0" * 200, "sector=" + "x" * 5000])
def test_over_long_values_are_a_404_not_a_crash(tiny_site: Served, query: str) -> None:
    response = tiny_site.get(f"/api/companies?{query}")
    assert response.status == 404
    assert response.json()["status"] == 404
