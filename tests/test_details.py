"""Profiles (company, investor, industry): one query row per resource, serialized as a table. Their bodies are the
bytes their models write, whichever writer makes them, and their groups of rows (rounds, portfolio, companies...)
hold what an independent reading of the csv files gives, in the documented order."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from generator.api import details, queries
from generator.api.registry import DETAIL_ROUTES
from generator.api.routes import DetailRoute
from generator.dataset import serialize

from . import oracle
from .conftest import EMBEDDED


def _bodies(embedded_db: tuple, route: DetailRoute) -> dict[str, dict]:
    con, info = embedded_db
    return {str(keys[0]): json.loads(data) for keys, data in details.bodies(con, route, info)}


def _route(name: str) -> DetailRoute:
    return next(route for route in DETAIL_ROUTES if route.name == name)


@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=lambda r: r.name)
def test_every_body_is_written_by_duckdb_as_its_model_writes_it(
    embedded_db: tuple, route: DetailRoute, monkeypatch: pytest.MonkeyPatch
) -> None:
    con, info = embedded_db
    taken: list[bool] = []
    writer = serialize.duckdb_rows

    def recorded(*args: object) -> list[bytes] | None:
        made = writer(*args)  # type: ignore[arg-type]
        taken.append(made is not None)
        return made

    monkeypatch.setattr(serialize, "duckdb_rows", recorded)
    made = list(details.bodies(con, route, info))
    assert taken == [True]  # the embedded data takes DuckDB's writer
    assert len(made) == len({keys for keys, _ in made}) > 0
    for _, data in made:  # the model reads each body back and writes it byte for byte
        assert serialize.row(route.model.model_validate_json(data)) == data


@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=lambda r: r.name)
def test_through_the_model_the_bodies_are_the_same(
    embedded_db: tuple, route: DetailRoute, monkeypatch: pytest.MonkeyPatch
) -> None:
    con, info = embedded_db
    straight = list(details.bodies(con, route, info))
    monkeypatch.setattr(serialize, "duckdb_rows", lambda *args: None)
    assert list(details.bodies(con, route, info)) == straight


def test_the_first_resource_in_order_and_its_keys_are_the_example(embedded_db: tuple) -> None:
    con, info = embedded_db
    company = _route("company")
    (first_keys, _), *_ = details.bodies(con, company, info)
    companies = sorted(oracle.read(EMBEDDED, "companies"), key=lambda c: int(c["id"]))
    assert first_keys == (int(companies[0]["id"]), companies[0]["slug"])


def _transaction(r: dict[str, str]) -> str:
    return r["transaction"] or ("debt" if r["stage"] == "debt" else "equity")


def _int(value: str) -> int | None:
    return int(value) if value else None


def test_company_profiles_match_the_csv_files(embedded_db: tuple) -> None:
    profiles = _bodies(embedded_db, _route("company"))
    investors = {i["id"]: i for i in oracle.read(EMBEDDED, "investors")}
    backers: dict[str, list[dict]] = defaultdict(list)
    for link in oracle.read(EMBEDDED, "round_investors"):
        backers[link["round_id"]].append(link)
    rounds: dict[str, list[dict]] = defaultdict(list)
    for r in oracle.read(EMBEDDED, "funding_rounds"):
        rounds[r["company_id"]].append(r)
    years: dict[str, list[int]] = defaultdict(list)
    for f in oracle.read(EMBEDDED, "financials"):
        years[f["company_id"]].append(int(f["fiscal_year"]))
    ipos: dict[str, list[dict]] = defaultdict(list)
    for i in oracle.read(EMBEDDED, "ipos"):
        ipos[i["company_id"]].append(i)
    status_date = {"pipeline": "announced_date", "filed": "filed_date", "upcoming": "expected_date",
                   "listed": "listing_date", "withdrawn": "withdrawn_date", "postponed": "postponed_date"}
    companies = oracle.read(EMBEDDED, "companies")
    assert len(profiles) == len(companies)
    checked_investors = 0
    for c in companies:
        p = profiles[c["id"]]
        assert (p["id"], p["slug"], p["name"]) == (int(c["id"]), c["slug"], c["name"])
        mine = sorted(rounds[c["id"]], key=lambda r: (r["announced_date"], int(r["id"])), reverse=True)
        funding = p["funding"]
        assert [r["id"] for r in funding["rounds"]] == [int(r["id"]) for r in mine]  # newest first
        equity = [int(r["amount_usd"]) for r in mine if r["amount_usd"] and _transaction(r) == "equity"]
        other = [int(r["amount_usd"]) for r in mine if r["amount_usd"] and _transaction(r) != "equity"]
        assert funding["total_raised_usd"] == (sum(equity) if equity else None)
        assert funding["other_transactions_usd"] == (sum(other) if other else None)
        assert funding["rounds_count"] == len(mine)
        assert funding["last_round_stage"] == (mine[0]["stage"] if mine else None)
        assert funding["last_round_date"] == (mine[0]["announced_date"] if mine else None)
        ids = {link["investor_id"] for r in mine for link in backers[r["id"]]}
        assert funding["investors_count"] == len(ids)
        for r, made in zip(mine, funding["rounds"], strict=True):
            assert made["transaction"] == _transaction(r)
            links = sorted(backers[r["id"]], key=lambda link: (link["is_lead"] != "true",
                                                               investors[link["investor_id"]]["name"],
                                                               int(link["investor_id"])))
            assert [(i["id"], i["is_lead"]) for i in made["investors"]] == [
                (int(link["investor_id"]), link["is_lead"] == "true") for link in links]  # leads first, by name
            checked_investors += len(links)
        assert [y["fiscal_year"] for y in p["financials"]] == sorted(years[c["id"]])  # oldest first
        records = sorted(ipos[c["id"]], key=lambda i: (i[status_date[i["status"]]], int(i["id"])), reverse=True)
        assert [i["id"] for i in p["ipos"]] == [int(i["id"]) for i in records]  # newest status date first
        assert [i["status_date"] for i in p["ipos"]] == [i[status_date[i["status"]]] for i in records]
        assert (p["acquisition"] is not None) == bool(c["acquirer"])
        if c["acquirer"]:
            assert p["acquisition"] == {"acquirer": c["acquirer"], "acquired_date": c["acquired_date"] or None,
                                        "price_usd": _int(c["acquisition_price_usd"])}
        cik = _int(c["cik"])
        assert p["listing"]["cik"] == cik
        assert p["listing"]["edgar_url"] == (
            f"https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK={cik:010d}" if cik else None)
        assert p["analysis"]["methodology"] == details.ANALYSIS_METHODOLOGY
        assert list(p) == list(_route("company").model.model_fields)
    assert checked_investors > 100  # the embedded data has rounds with investors to order


def test_investor_profiles_match_the_csv_files(embedded_db: tuple) -> None:
    by_id = {i["id"]: i for i in oracle.read(EMBEDDED, "investors")}
    profiles = {p["id"]: p for p in _bodies(embedded_db, _route("investor")).values()}
    rounds = {r["id"]: r for r in oracle.read(EMBEDDED, "funding_rounds")}
    companies = {c["id"]: c for c in oracle.read(EMBEDDED, "companies")}
    joined: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    led: dict[str, list[dict]] = defaultdict(list)
    for link in oracle.read(EMBEDDED, "round_investors"):
        r = rounds[link["round_id"]]
        joined[link["investor_id"]][r["company_id"]].append({**r, "lead": link["is_lead"] == "true"})
        if link["is_lead"] == "true":
            led[link["investor_id"]].append(r)
    assert set(profiles) == {int(i) for i in by_id}
    for investor_id, p in profiles.items():
        held = joined[str(investor_id)]
        expected = sorted(
            ({"company": int(company), "rounds": len(rs), "led": any(r["lead"] for r in rs),
              "first_round_date": min(r["announced_date"] for r in rs),
              "last_round_date": max(r["announced_date"] for r in rs)} for company, rs in held.items()),
            key=lambda e: e["company"])
        expected.sort(key=lambda e: e["last_round_date"], reverse=True)  # latest round first (stable: then id)
        assert [{**e, "company": e["company"]["id"]} for e in p["portfolio"]] == expected
        for entry in p["portfolio"]:
            company = companies[str(entry["company"]["id"])]
            assert entry["company"]["url"] == f"/api/companies/{company['slug']}.json"
        newest = sorted(led[str(investor_id)], key=lambda r: (r["announced_date"], int(r["id"])), reverse=True)
        assert [r["id"] for r in p["rounds_led"]] == [int(r["id"]) for r in newest]
        assert p["lead_count"] == len(newest) and p["portfolio_count"] == len(held)
    assert sum(len(p["portfolio"]) for p in profiles.values()) > 100


def test_industry_details_match_the_csv_files(embedded_db: tuple) -> None:
    details_ = _bodies(embedded_db, _route("industry"))
    companies = oracle.read(EMBEDDED, "companies")
    sector_of = {c["id"]: c["sector"] for c in companies}
    sectors = oracle.read(EMBEDDED, "sectors")
    assert set(details_) == {s["slug"] for s in sectors}
    for slug, d in details_.items():
        members = [c for c in companies if c["sector"] == slug]
        counts: dict[str, int] = defaultdict(int)
        for c in members:
            counts[c["country"]] += 1
        assert [(e["country"], e["count"]) for e in d["companies_by_country"]] == sorted(
            counts.items(), key=lambda kv: (-kv[1], kv[0]))  # most first
        by_year: dict[int, list[int]] = defaultdict(list)
        for r in oracle.read(EMBEDDED, "funding_rounds"):
            if sector_of[r["company_id"]] == slug and _transaction(r) == "equity":
                by_year[int(r["announced_date"][:4])].append(int(r["amount_usd"]) if r["amount_usd"] else 0)
        assert [(e["year"], e["rounds"]) for e in d["funding_by_year"]] == sorted(
            ((year, len(amounts)) for year, amounts in by_year.items()), reverse=True)  # newest year first
        order = sorted(members, key=lambda c: (oracle.current_valuation(c) is None,
                                               -(oracle.current_valuation(c) or 0), int(c["id"])))
        assert [(e["company"]["id"], e["valuation_usd"]) for e in d["companies"]] == [
            (int(c["id"]), oracle.current_valuation(c)) for c in order]  # highest current valuation first


class _Chosen:
    """A writer that renders only the chosen units and records what is written."""

    def __init__(self, chosen: set[str]) -> None:
        self.chosen, self.keys, self.written, self.aliases = chosen, {}, {}, {}

    def render(self, unit: str, key: str) -> bool:
        self.keys[unit] = key
        return unit in self.chosen

    def write(self, path: str, data: bytes, unit: str = "") -> None:
        self.written[path] = data

    def alias(self, path: str, of: str, unit: str = "") -> None:
        self.aliases[path] = of


@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=lambda r: r.name)
def test_a_rebuild_serializes_only_the_profiles_that_render_and_the_same_bytes(
    embedded_db: tuple, route: DetailRoute
) -> None:
    con, info = embedded_db
    made = {keys: data for keys, data in details.bodies(con, route, info)}
    every = _Chosen({f"{route.name}/{keys[0]}" for keys in made})
    assert details.detail_files(con, route, info, every)  # type: ignore[arg-type]
    assert len(every.written) == len(made) and len(set(every.keys.values())) == len(made)  # one key each
    chosen = sorted(made)[1::3]  # every third resource, not the first
    few = _Chosen({f"{route.name}/{keys[0]}" for keys in chosen})
    details.detail_files(con, route, info, few)  # type: ignore[arg-type]
    assert few.keys == every.keys  # the same keys, whatever renders
    assert set(few.written) == {route.file_path(str(keys[0])) for keys in chosen}
    by_path = {route.file_path(str(keys[0])): made[keys] for keys in chosen}
    for path, data in few.written.items():
        assert data == every.written[path]
        assert json.loads(data)["data"] == json.loads(by_path[path])  # its own body, not a neighbour's


@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=lambda r: r.name)
def test_the_table_of_resources_holds_every_resource_of_the_query_once(embedded_db: tuple, route: DetailRoute) -> None:
    """A shard's positions are counted and bounded on ``resources`` (``details._source``): its keys must be the
    query's, one row each, or a shard would skip or repeat resources."""
    con, info = embedded_db
    batched, (sql, params) = queries.staged_by_batch(con, route.rows_sql, info, details.QUERY_PARAMETERS)
    every = dict(zip(queries.BATCH_PARAMETERS, con.execute(  # the parts staged per batch, for every resource at once
        f"SELECT min({route.order}), max({route.order}) FROM {route.resources}").fetchone(), strict=True))
    for stage, values in batched:
        con.execute(stage, values | every)
    queried = con.execute(f"SELECT {route.order} FROM ({sql}) ORDER BY 1", params).fetchall()
    listed = con.execute(f"SELECT {route.order} FROM {route.resources} ORDER BY 1").fetchall()
    assert queried == listed and len(queried) == len(set(queried)) > 0
