"""Every listing and detail of the registry, through `serve`, on the embedded dataset."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from generator.api.registry import DETAIL_ROUTES, Filter, ListRoute
from generator.api.registry import FILE_ROUTES as LIST_ROUTES  # a filter without files is the front door's
from generator.api.registry import LIST_ROUTES as DECLARED_ROUTES

from . import oracle
from .conftest import Served


@pytest.fixture(scope="module")
def spec(site: Served) -> dict:
    status, body = site.get_json("/api/openapi")
    assert status == 200
    return body


def allowed_values(spec: dict, route: ListRoute, flt: Filter) -> list[str]:
    parameters = spec["paths"][route.path]["get"]["parameters"]
    parameter = next(p for p in parameters if p["name"] == flt.name)
    return [str(v) for v in parameter["schema"].get("enum", parameter.get("x-published-values", []))]


def crawl(site: Served, url: str, limit: int = 10_000) -> tuple[list[dict], dict]:
    rows, first, pages = [], None, 0
    while url and pages < limit:
        status, body = site.get_json(url)
        assert status == 200, url
        first = first or body
        rows += body["data"]
        url = body["links"]["next"]
        pages += 1
    return rows, first or {}


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_listing_crawls_to_the_end(site: Served, route: ListRoute) -> None:
    rows, first = crawl(site, route.path)
    assert first["meta"]["total"] == len(rows) > 0
    serialized = [json.dumps(r, sort_keys=True) for r in rows]
    assert len(set(serialized)) == len(serialized), "a row appears twice"
    assert set(rows[0]) == set(route.model.model_fields)
    for key, value in route.default_filters:
        assert first["meta"]["filters"] == {key: value}


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_every_documented_filter_value_returns_only_matching_rows(
    site: Served, spec: dict, route: ListRoute
) -> None:
    rng = random.Random(route.name)
    for flt in route.filters:
        values = allowed_values(spec, route, flt)
        if not flt.faceted:  # text: its values are the words of the rows
            _, first = crawl(site, route.path, limit=1)
            lengths = flt.prefixes or (None,)
            values = sorted({w[:n] for r in first["data"] for w in oracle.words(r["name"]) for n in lengths})
        else:
            assert values, f"{route.name}.{flt.name} has no documented values"
        sample = values if flt.faceted or len(values) <= 60 else rng.sample(values, 60)
        non_empty = 0
        for value in sample:
            rows, first = crawl(site, f"{route.path}?{flt.name}={value}", limit=3)
            assert first["meta"]["filters"] == {flt.name: oracle.typed(flt, value)}
            assert all(value in oracle.filter_values(flt, row) for row in rows), (route.name, flt.name, value)
            non_empty += first["meta"]["total"] > 0
        assert non_empty > 0, f"no value of {route.name}.{flt.name} returns anything"


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_filters_that_do_not_combine_get_a_problem(site: Served, route: ListRoute, spec: dict) -> None:
    sets = route.incompatible_sets()
    if not sets:
        pytest.skip("every filter combines")
    by_name = {f.name: f for f in route.filters}
    for names in sets:
        query = "&".join(f"{n}={(allowed_values(spec, route, by_name[n]) or ['a'])[0]}" for n in names)
        response = site.get(f"{route.path}?{query}&page=1")
        assert response.status == 404, query
        assert "drop one of them" in response.json()["detail"]


@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=lambda r: r.name)
def test_every_listed_resource_resolves(site: Served, route) -> None:
    listing = next(r for r in LIST_ROUTES if r.path == route.path)
    rows, _ = crawl(site, listing.path)
    for row in rows:
        for key in route.key_names:
            status, body = site.get_json(f"{route.path}/{row[key]}")
            assert status == 200, (route.name, row[key])
            assert body["data"]["slug"] == row["slug"]


def test_search_has_type_facets_with_refinement_urls(site: Served) -> None:
    _, investors = site.get_json("/api/search?type=investor")
    prefix = investors["data"][0]["name"].lower()[:3]  # a prefix shared by an investor and others
    status, body = site.get_json(f"/api/search?q={prefix}")
    assert status == 200
    facets = body["meta"]["facets"]
    assert set(facets) == {"type"}
    assert sum(b["count"] for b in facets["type"]) == body["meta"]["total"]
    for bucket in facets["type"]:
        assert bucket["url"] == f"/api/search/q={prefix}/type={bucket['value']}/sort=name,page=1.json"
        _, refined = site.get_json(f"/api/search?q={prefix}&type={bucket['value']}")
        assert refined["meta"]["total"] == bucket["count"]
    status, everything = site.get_json("/api/search")
    assert status == 200
    _, companies = site.get_json("/api/search?type=company")
    assert companies["meta"]["total"] == next(b["count"] for b in everything["meta"]["facets"]["type"]
                                              if b["value"] == "company")
    assert site.get("/api/search?q=abcd").status == 404  # longer than the indexed prefixes


def test_trending_ipo_ready_lists_its_score_components(site: Served) -> None:
    rows, _ = crawl(site, "/api/trending?kind=ipo-ready")
    assert rows
    for row in rows:
        assert row["score"] == pytest.approx(sum(c["points"] for c in row["components"]), abs=0.02)
        assert {c["name"] for c in row["components"]} >= {"scale", "revenue", "ipo_pipeline"}
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True)


def test_exports_parse_and_match_the_manifest(site: Served) -> None:
    import csv
    import hashlib
    import io
    import zipfile

    import duckdb

    status, manifest = site.get_json("/api/export")
    assert status == 200
    tables = manifest["data"]["tables"]
    assert [f["format"] for f in manifest["data"]["formats"]] == ["json", "csv", "parquet", "jsonl"]
    for index in manifest["data"]["formats"]:
        export_format = index["format"]
        whole = site.get(f"/api/export?format={export_format}")
        assert whole.status == 200 and hashlib.sha256(whole.body).hexdigest() == index["dataset"]["sha256"]
        assert index["dataset"]["rows"] == sum(tables.values())
        with zipfile.ZipFile(io.BytesIO(whole.body)) as zipped:  # every format: each table's file, as it is
            assert zipped.namelist() == [f"{name}.{export_format}" for name in tables] + ["manifest.json"]
            for name in tables:
                member = zipped.read(f"{name}.{export_format}")
                assert member == site.get(f"/api/export?format={export_format}&table={name}").body
        for entry in index["files"]:
            response = site.get(f"/api/export?format={export_format}&table={entry['table']}")
            assert response.status == 200
            assert hashlib.sha256(response.body).hexdigest() == entry["sha256"]
            assert len(response.body) == entry["bytes"]
            if export_format == "json":
                assert len(json.loads(response.body)["data"]) == entry["rows"] == tables[entry["table"]]
            elif export_format == "csv":
                assert response.body.endswith(b"\r\n") or entry["rows"] == 0
                records = list(csv.reader(io.StringIO(response.body.decode("utf-8"), newline="")))
                assert len(records) - 1 == entry["rows"] == tables[entry["table"]]
                assert not any(c[:1] in ("=", "+", "@") for r in records[1:] for c in r)
            elif export_format == "parquet":
                path = site.root / entry["url"].lstrip("/")
                count = duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchone()[0]
                assert count == entry["rows"] == tables[entry["table"]]
            elif export_format == "jsonl":  # the json export's rows, byte for byte, each ending in "\n"
                assert response.headers["Content-Type"] == "application/jsonl; charset=utf-8"
                lines = response.body.decode("utf-8").splitlines(keepends=True)
                assert len(lines) == entry["rows"] == tables[entry["table"]]
                assert all(line.endswith("}\n") and json.loads(line) for line in lines)
                document = site.get(f"/api/export?format=json&table={entry['table']}").body
                rows = document[len(b'{"data":[\n'):document.rindex(b"\n],")] if lines else b""
                assert response.body == (rows.replace(b",\n", b"\n") + b"\n" if lines else b"")


def test_openapi_document_is_valid_and_complete(spec: dict) -> None:
    from openapi_spec_validator import validate

    validate(spec)
    spec_paths = {"/api/companies", "/api/companies/{idOrSlug}", "/api/ipos", "/api/pre-ipos", "/api/offerings",
                  "/api/calendar", "/api/search", "/api/news", "/api/filings", "/api/investors", "/api/funding",
                  "/api/industries", "/api/trending", "/api/export", "/api/openapi"}
    assert spec_paths <= set(spec["paths"])
    assert "check primary filings" in spec["info"]["description"]
    for route in DECLARED_ROUTES:  # every filter, those without files too
        names = {p["name"] for p in spec["paths"][route.path]["get"]["parameters"]}
        assert names == {f.name for f in route.filters} | {"sort", "page"}


@pytest.mark.parametrize("served", ["site", "front_site"])
def test_schemathesis_finds_no_failure(served: str, request: pytest.FixtureRequest, tmp_path) -> None:
    """Against the rewrite rules alone and against the front door: no 500, nothing outside the document."""
    pytest.importorskip("schemathesis")
    site: Served = request.getfixturevalue(served)
    result = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", f"{site.base}/api/openapi", "--url", site.base,
         "--checks", "all", "--max-examples", "30", "--workers", "2", "--no-color",
         "--seed", "20251121"],  # reproducible in CI; random seeds were explored locally (see the commit log)
        capture_output=True, text=True, timeout=900, cwd=tmp_path,  # its cache stays out of the repository
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
