"""The query front door against an oracle: every query of a conformance table answered with exactly the rows a SQL
query over the dataset gives (its filters, its order with the route's tie-break, its page), through the Python
resolver over the files, through ``serve``, and through the Python client over ``python -m http.server``."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

import duckdb
import pytest

from generator.api.listing import _order_by
from generator.api.queries import staged
from generator.api.registry import FACET_LIMIT, LIST_ROUTES, ListRoute
from generator.frontdoor.client import Client
from generator.frontdoor.common import query_words
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import LEGAL_FORMS, VALUE_SORTS, slugify

from .conftest import Served
from .frontdoor_js.table import BAD, ISSUE_36, ISSUE_37, ISSUE_TABLE, NATURAL, UNANSWERABLE

ROUTES = {route.name: route for route in LIST_ROUTES}

_MATERIALIZED: dict[int, str] = {}
"""Connection -> the route whose rows its ``oracle`` table holds."""


def _where(con: duckdb.DuckDBPyConnection, info: object, url: str) -> tuple[ListRoute, str, list[object], list[str],
                                                                       str, int]:
    """A URL's route, its condition over the temp table ``oracle`` (the route's rows) with its parameters, the filters
    it applies (the default's included), its sort and its page: the documented semantics written as SQL,
    independently of the resolver."""
    parts = urlsplit(url)
    route: ListRoute = next(r for r in LIST_ROUTES if r.path == parts.path)
    params = dict(parse_qsl(parts.query))
    params = {k: v for k, v in params.items() if not k.startswith("utm_")}
    held = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'oracle' AND temporary").fetchone()[0]
    if _MATERIALIZED.get(id(con)) != route.name or not held:  # the route's rows, once per run of one route's queries
        # (an id is an address: a closed connection's may be a new one's, which holds no table yet)
        sql, sql_values = staged(con, route.rows_sql, info)  # a route's file may stage parts in tables first
        con.execute(f"CREATE OR REPLACE TEMP TABLE oracle AS SELECT * FROM ({sql})", sql_values)
        _MATERIALIZED[id(con)] = route.name
    where: list[str] = []
    values: list[object] = []
    filters = {f.name: f for f in route.filters}
    named = [n for n in params if n in filters]
    defaults = [(n, v) for n, v in route.default_filters if n not in params]  # the default applies to every query
    for name, (column, value) in ([(n, (filters[n].column, params[n])) for n in named]
                                  + [(n, (filters[n].column, v)) for n, v in defaults]):
        flt = filters[name]
        if flt.kind.name == "ladder":
            where.append(f"{column} >= ?")
            values.append(math.ceil(float(value)))
        elif flt.kind.name == "upper":
            where.append(f"{column} <= ?")
            values.append(math.floor(float(value)))
        elif flt.kind.name == "year":  # the year of a date column, or a column of years
            typed = con.execute(f"SELECT typeof({column}) FROM oracle LIMIT 1").fetchone()
            where.append("year = ?" if typed and typed[0] == "DATE" else f"{column} = ?")
            values.append(int(value))
        elif flt.kind.name == "text":
            words = query_words(value, list(LEGAL_FORMS))  # the documented rule: legal-form words dropped beside others
            terms = f"regexp_split_to_array(lower(strip_accents(coalesce({column}, ''))), '[^a-z0-9]+')"
            if flt.prefixes:
                hit = f"list_bool_or(list_transform({terms}, lambda x: starts_with(x, ?)))"
            else:
                hit = f"list_contains({terms}, ?)"
            where.append("((" + " AND ".join([hit] * len(words)) + f") OR {hit})")
            values += [*words, "".join(words)]
        elif flt.multi:
            where.append(f"list_contains({column}, ?)")
            values.append(_canonical(con, name, value, column, flt.multi))
        else:
            where.append(f"{column} = ?")
            values.append(_canonical(con, name, value, column, flt.multi))
    given = {**dict(route.default_filters), **params}
    default = next((by[slugify(given[n])] for (r, n), by in VALUE_SORTS.items()
                    if r == route.name and slugify(given.get(n, "")) in by),
                   route.default_sort)  # past events: newest first
    sort = params.get("sort", default).removeprefix("+")  # a leading + says ascending
    page = int(params.get("page", "1"))
    return route, " AND ".join(where) or "TRUE", values, [*named, *(n for n, _ in defaults)], sort, page


def _oracle(con: duckdb.DuckDBPyConnection, info: object, url: str) -> tuple[list[object], int]:
    """The row keys of the page a URL asks for, and the total, by SQL over the dataset."""
    route, condition, values, _, sort, page = _where(con, info, url)
    total = con.execute(f"SELECT count(*) FROM oracle WHERE {condition}", values).fetchone()[0]
    keys = con.execute(f"SELECT {route.key} FROM oracle WHERE {condition} ORDER BY {_order_by(route, sort)} "
                       f"LIMIT {route.per_page} OFFSET {(page - 1) * route.per_page}", values).fetchall()
    return [k for (k,) in keys], total


def _oracle_facets(con: duckdb.DuckDBPyConnection, info: object,
                   url: str) -> tuple[dict[str, list[tuple[object, int]]], list[str]]:
    """Page 1's facets by SQL: per filter (not text, not applied) that the route combines with the applied ones, each
    value's count of the answer's rows (a ladder's rung: the rows at or above it), most first then by value, at most
    ``FACET_LIMIT``; and the names of the facets cut short."""
    route, condition, values, applied, _, _ = _where(con, info, url)
    out: dict[str, list[tuple[object, int]]] = {}
    cut: list[str] = []
    for flt in route.filters:
        narrowing = {n for n in applied if next(f for f in route.filters if f.name == n).published}
        if flt.kind.name == "text" or not flt.published or flt.name in applied or not any(  # a facet is a file; a
                {*narrowing, flt.name} <= {f.name for f in group} for group in route.groups):  # filter without
            continue  # files narrows the rows only
        if flt.kind.name == "ladder":
            found = [(rung, con.execute(f"SELECT count(*) FROM oracle WHERE {condition} AND {flt.column} >= {rung}",
                                        values).fetchone()[0]) for rung in flt.domain]
        else:
            column = "year" if flt.kind.name == "year" else f"unnest(list_distinct({flt.column}))" if flt.multi \
                else flt.column
            found = con.execute(f"SELECT v, count(*) FROM (SELECT {column} AS v FROM oracle WHERE {condition}) "
                                "WHERE v IS NOT NULL GROUP BY v", values).fetchall()
        ordered = sorted(((v, n) for v, n in found if n), key=lambda vn: (-vn[1], vn[0]))
        if ordered:
            out[flt.name] = ordered[:FACET_LIMIT]
        if len(ordered) > FACET_LIMIT:
            cut.append(flt.name)
    return out, cut


def _canonical(con: duckdb.DuckDBPyConnection, name: str, value: str, column: str, multi: bool) -> str:
    """A value as written -> the slug, by the dataset's own tables (names, ISO codes) and the route's own values:
    as folded, else without separators, else (sectors) the initials of a name that joins nothing."""
    folded = slugify(value)
    if name == "month" and re.fullmatch(r"[0-9]{4}-[0-9]", folded):  # 2025-7: July 2025
        folded = f"{folded[:5]}0{folded[5:]}"
    compact = folded.replace("-", "")
    if name == "company":  # a company by its id or its slug
        found = con.execute("SELECT slug FROM companies WHERE CAST(id AS VARCHAR) = ? OR slug = ?",
                            [folded, folded]).fetchone()
        return found[0] if found else folded
    lookups = {"sector": "SELECT slug, name FROM sectors", "country": "SELECT code, name FROM countries",
               "exchange": "SELECT slug, name, mic FROM exchanges"}
    if name in lookups:
        rows = con.execute(lookups[name]).fetchall()
        for slug, display, *code in rows:
            if folded in (slug, slugify(display), *(slugify(c) for c in code if c)):
                return slug
        for slug, display, *_ in rows:
            words = slugify(display).split("-")
            initials = "".join(w[0] for w in words) if name == "sector" and "&" not in display and len(words) > 1 \
                else ""
            if compact in (slug.replace("-", ""), slugify(display).replace("-", ""), initials):
                return slug
        if name == "country":
            return {"usa": "us", "uk": "gb", "uae": "ae"}.get(compact, folded)
        return folded
    found = con.execute(f"SELECT DISTINCT {'unnest(' + column + ')' if multi else column} FROM oracle").fetchall()
    known = [str(v) for (v,) in found if v is not None]
    return folded if folded in known else next((v for v in known if v.replace("-", "") == compact), folded)


def _row_key(route: ListRoute, row: dict) -> object:
    if route.key in row:
        return row[route.key]
    return f"{row['type']}:{row['slug']}" if route.name == "search" else f"{row['kind']}:{row['rank']:08d}"


def _check(url: str, status: int, body: dict, embedded_db: tuple) -> None:
    con, info = embedded_db
    route = next(r for r in LIST_ROUTES if r.path == urlsplit(url).path)
    keys, total = _oracle(con, info, url)
    page = int(dict(parse_qsl(urlsplit(url).query)).get("page", "1"))
    if page > max(1, math.ceil(total / route.per_page)):
        assert status == 404, url
        return
    assert status == 200, (url, body)
    assert [_row_key(route, row) for row in body["data"]] == keys, url
    assert body["meta"]["total"] == total and body["meta"]["page"] == page, url
    if page == 1:  # every page 1 carries its facets, with exact counts (a file's as a composed answer's)
        found = {name: [(e["value"], e["count"]) for e in entries] for name, entries in body["meta"]["facets"].items()}
        assert (found, body["meta"]["facets_truncated"]) == _oracle_facets(con, info, url), url


@pytest.mark.parametrize("url", ISSUE_TABLE + NATURAL + ISSUE_36 + ISSUE_37)
def test_the_resolver_answers_as_the_sql_oracle(url: str, resolver: Resolver, embedded_db: tuple) -> None:
    path, _, query = url.partition("?")
    answer = resolver.resolve(path, query)
    assert answer is not None
    _check(url, answer.status, json.loads(answer.body), embedded_db)


@pytest.mark.parametrize("url", UNANSWERABLE)
def test_a_filter_only_the_index_holds_with_one_it_does_not_is_a_404_naming_both(url: str, resolver: Resolver) -> None:
    path, _, query = url.partition("?")
    answer = resolver.resolve(path, query)
    assert answer is not None and answer.status == 404
    detail = json.loads(answer.body)["detail"]
    assert "is answered from the query index, which does not hold `q`" in detail and "ounded`" in detail, detail


def test_the_issue_table_counts(resolver: Resolver) -> None:
    """The figures the issue states for the embedded data."""
    expected = {"/api/companies?minValuation=1500000000": 257, "/api/companies?sector=fintech&country=us"
                "&sort=valuation": 17, "/api/companies?q=Stripe": 1, "/api/companies?q=open%20ai": 1}
    for url, total in expected.items():
        path, _, query = url.partition("?")
        body = json.loads(resolver.resolve(path, query).body)
        assert body["meta"]["total"] == total, url
    assert json.loads(resolver.resolve(["/api/companies", "q=open%20ai"][0], "q=open%20ai").body)[
        "data"][0]["slug"] == "openai"


@pytest.mark.parametrize(("url", "names"), BAD.items())
def test_a_bad_query_is_a_400_that_names_the_parameter(url: str, names: list[str], front_site: Served) -> None:
    response = front_site.get(url)
    assert response.status == 400 and response.headers["Content-Type"].startswith("application/problem+json")
    body = json.loads(response.body)
    assert [p["name"] for p in body["invalid-params"]] == names
    assert all(p["reason"] for p in body["invalid-params"])


def _generated(resolver: Resolver) -> Iterator[str]:
    """Every category value of every listing alone and under every sort, pages 1 and 2; pairs of filters
    with a sort the files do not publish; ladder values between the rungs."""
    for route in resolver.space["routes"].values():
        for flt in route["filters"]:
            for value in sorted(set(flt.get("values", {}).values()) if isinstance(flt.get("values"), dict)
                                else [])[:12]:
                for sort in route["sorts"]:
                    yield f"{route['path']}?{flt['name']}={value}&sort={sort}"
                yield f"{route['path']}?{flt['name']}={value.upper()}&page=2"
            for rung in flt.get("rungs", [])[:3]:
                yield f"{route['path']}?{flt['name']}={rung * 3 // 2}&sort={list(route['sorts'])[-1]}"


def test_generated_queries_answer_as_the_sql_oracle(resolver: Resolver, embedded_db: tuple) -> None:
    checked = 0
    for url in _generated(resolver):
        path, _, query = url.partition("?")
        answer = resolver.resolve(path, query)
        assert answer is not None
        _check(url, answer.status, json.loads(answer.body), embedded_db)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("url", ISSUE_TABLE + NATURAL + ISSUE_36 + ISSUE_37)
def test_serve_answers_through_the_front_door(url: str, front_site: Served, embedded_db: tuple) -> None:
    response = front_site.get(url)
    _check(url, response.status, json.loads(response.body), embedded_db)


@pytest.mark.parametrize("path", ["/api/companies/Stripe", "/api/companies/STRIPE/", "/api/companies/539"])
def test_a_profile_in_any_case(path: str, front_site: Served) -> None:
    status, body = front_site.get_json(path)
    assert status == 200 and body["data"]["slug"] == "stripe" and body["links"]["self"] == "/api/companies/stripe.json"


def test_an_unknown_profile_says_how_to_find_one(resolver: Resolver) -> None:
    """The 404 names what the route is addressed by and a search that answers (legal forms dropped)."""
    answer = resolver.resolve("/api/companies/Stripe-Inc", "")
    assert answer is not None and answer.status == 404
    detail = json.loads(answer.body)["detail"]
    assert detail.startswith("/api/companies/Stripe-Inc: no company with this id or slug"), detail
    path, _, query = detail.rpartition("search for one: ")[2].partition("?")
    found = resolver.resolve(path, query)
    assert found is not None and [row["slug"] for row in json.loads(found.body)["data"]] == ["stripe"]
    investor = json.loads(resolver.resolve("/api/investors/nobody", "").body)["detail"]
    assert investor == ("/api/investors/nobody: no investor with this slug; search for one: "
                        "/api/search?q=nobody&type=investor")


def test_rewrite_only_mode_is_unchanged(site: Served) -> None:
    assert site.get("/api/companies?sector=Fintech").status == 404  # rewrite rules compare slugs
    assert site.get("/api/companies?sector=fintech").status == 200


def test_a_valid_query_without_rows_is_an_empty_200(front_site: Served) -> None:
    status, body = front_site.get_json("/api/calendar?month=2031-01")
    assert status == 200 and body["data"] == [] and body["meta"]["total"] == 0
    assert re.search(r"month=2031-01", body["links"]["self"])
    assert front_site.get("/api/companies?page=99").status == 404


@pytest.mark.parametrize("url", [*ISSUE_TABLE, *NATURAL, *ISSUE_36, *ISSUE_37, *BAD, "/api/companies/Stripe",
                                 "/api/openapi"])
def test_the_python_client_answers_as_serve_over_a_plain_static_server(
        url: str, plain_http: str, resolver: Resolver, embedded_db: tuple) -> None:
    """``generator.frontdoor.client.Client`` over ``python -m http.server`` gives the resolver's answer, byte for
    byte, reading the same files; listings also match the SQL oracle."""
    answer = Client(plain_http).get(url)
    path, _, query = url.partition("?")
    expected = resolver.resolve(path, query)
    assert expected is not None
    assert (answer.status, answer.body, answer.fetches) == (expected.status, expected.body, expected.fetches)
    body = json.loads(answer.body)
    if isinstance(body.get("data"), list):
        _check(url, answer.status, body, embedded_db)


@pytest.mark.parametrize("url", ["/api/companies?sector=Fintech", "/api/companies?minValuation=1e9&sort=name",
                                 "/api/funding?sector=AI&stage=seriesA", "/api/companies?minValuation=1e30"])
def test_the_python_client_reads_every_page(url: str, plain_http: str, embedded_db: tuple) -> None:
    """``Client.rows`` follows ``links.next`` (path-style files or the front door's query strings) to the last
    page: every row of the SQL oracle's answer, in its order, once."""
    con, info = embedded_db
    route = next(r for r in LIST_ROUTES if r.path == urlsplit(url).path)
    _, total = _oracle(con, info, url)
    pages = [_oracle(con, info, f"{url}&page={n}")[0] for n in range(1, math.ceil(total / route.per_page) + 1)]
    keys = [_row_key(route, row) for row in Client(plain_http).rows(url)]
    assert keys == [k for page in pages for k in page] and len(keys) == total
    with pytest.raises(LookupError, match="sector"):
        list(Client(plain_http).rows("/api/companies?sector=nowhere"))


@pytest.mark.parametrize(("url", "name"), [("/api/export?format=CSV&table=companies", "companies.csv"),
                                           ("/api/export?format=ndjson&table=news", "news.jsonl"),
                                           ("/api/export?format=json", "dataset-json.zip"),
                                           ("/api/export/parquet/ipos.parquet", "ipos.parquet")])
def test_a_download_names_its_file(url: str, name: str, front_site: Served) -> None:
    """The query form's URL names no file: the answer's Content-Disposition does (path-style URLs carry it too)."""
    import urllib.request

    with urllib.request.urlopen(front_site.base + url) as response:  # noqa: S310
        assert response.headers["Content-Disposition"] == f"attachment; filename={name}"
    with urllib.request.urlopen(front_site.base + "/api/export?format=json&table=companies") as response:  # noqa: S310
        assert response.headers["Content-Disposition"] is None  # a JSON document, shown as one
