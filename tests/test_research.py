"""Derived figures a researcher relies on: the IPO-ready score with unknown inputs, secondary marks without
look-ahead, current valuations, equity vs other funding, and provenance fields. Rows come from the routes' own SQL
over a loaded dataset; expectations are computed independently from the CSV files."""

from __future__ import annotations

import calendar
import csv
import shutil
from pathlib import Path

import duckdb
import pytest

from generator.api import details, queries, responses
from generator.api.registry import DETAIL_ROUTES
from generator.dataset.load import load
from generator.dataset.schema import CompanyStatus

from . import oracle
from .conftest import EMBEDDED, TINY


def _rows(data: Path, name: str) -> list[dict]:
    con = duckdb.connect()
    info = load(data, con)
    con.execute(queries.read_sql("views"))
    sql, values = queries.staged(con, name, info)
    result = con.execute(sql, values)
    names = [d[0] for d in result.description]
    return [dict(zip(names, values, strict=True)) for values in result.fetchall()]


@pytest.fixture(scope="module")
def embedded_csv() -> dict[str, list[dict[str, str]]]:
    tables = ("companies", "funding_rounds", "offerings", "secondary_prices", "filings")
    return {t: oracle.read(EMBEDDED, t) for t in tables}


def _append(path: Path, row: dict[str, str]) -> None:
    with open(path, encoding="utf-8", newline="") as handle:
        fields = next(csv.reader(handle))
    with open(path, "a", encoding="utf-8", newline="") as handle:
        csv.DictWriter(handle, fieldnames=fields, lineterminator="\n").writerow(row)


def test_unknown_score_inputs_score_zero_and_say_unknown(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    _append(data / "companies.csv", {"id": "99", "slug": "all-unknown", "name": "All Unknown",
                                     "sector": "fintech", "country": "us", "status": "private",
                                     "valuation_usd": "1000000000", "valuation_date": "2024-01-02",
                                     "valuation_basis": "press-report"})
    entries = [r for r in _rows(data, "trending") if r["kind"] == "ipo-ready"]
    entry = next(r for r in entries if r["company"]["id"] == 99)
    parts = {c["name"]: c for c in entry["components"]}
    for name in ("revenue", "growth", "secondary_momentum"):
        assert parts[name]["value"] is None and parts[name]["points"] == 0 and parts[name]["known"] is False
        assert "unknown" in parts[name]["note"]
    assert parts["ipo_pipeline"]["points"] == 0
    expected_scale = round(25 * max(0.0, min(1.0, (9 - 8.5) / 2.5)), 2)
    assert parts["scale"]["points"] == expected_scale and entry["score"] == expected_scale
    known = [c for e in entries for c in e["components"] if c["known"]]
    assert any(c["points"] > 0 for c in known), "known inputs still score"


def test_secondary_marks_are_observed_transactions_without_look_ahead(embedded_csv: dict) -> None:
    offerings = {o["id"]: o for o in embedded_csv["offerings"]}
    marks = embedded_csv["secondary_prices"]
    assert marks
    for mark in marks:
        month = mark["month"]
        year, mon = int(month[:4]), int(month[5:7])
        month_end = f"{month[:8]}{calendar.monthrange(year, mon)[1]:02d}"
        assert mark["method"] in ("observed", "carried-forward"), mark
        offering = offerings[mark["offering_id"]]
        assert offering["company_id"] == mark["company_id"]
        assert offering["kind"] in ("tender", "secondary") and offering["status"] != "cancelled"
        assert offering["announced_date"] == mark["observed_date"] <= month_end, f"mark uses a later fact: {mark}"
        assert offering["implied_valuation_usd"] == mark["implied_valuation_usd"]
        if mark["method"] == "observed":
            assert mark["observed_date"] >= month, mark


def test_movers_start_and_end_at_marks_dated_within_the_window(embedded_csv: dict) -> None:
    by_company: dict[int, list[tuple[str, int]]] = {}
    for mark in embedded_csv["secondary_prices"]:
        by_company.setdefault(int(mark["company_id"]), []).append((mark["month"], int(mark["implied_valuation_usd"])))
    movers = [r for r in _rows(EMBEDDED, "trending") if r["kind"] in ("gainers", "decliners")]
    assert movers
    for row in movers:
        end = row["window_end"]  # YYYY-MM
        known = [m for m in by_company[row["company"]["id"]] if m[0][:7] <= end]  # nothing after the window's end
        assert row["end_valuation_usd"] == max(known)[1]
        assert row["start_valuation_usd"] in [v for _, v in known]
        assert (row["change"] > 0) == (row["kind"] == "gainers")


def _profiles(data: Path) -> dict[int, dict]:
    con = duckdb.connect()
    info = load(data, con)
    con.execute(queries.read_sql("views"))
    route = next(route for route in DETAIL_ROUTES if route.name == "company")
    profiles = (responses.CompanyProfile.model_validate_json(data) for _, data in details.bodies(con, route, info))
    return {p.id: p.model_dump() for p in profiles}


def test_company_rows_carry_status_and_only_current_valuations(embedded_csv: dict) -> None:
    rows = {r["id"]: r for r in _rows(EMBEDDED, "companies")}
    profiles = _profiles(EMBEDDED)
    statuses = set(CompanyStatus.__args__)
    for c in embedded_csv["companies"]:
        row = rows[int(c["id"])]
        assert row["status"] == c["status"] in statuses
        assert row["valuation_usd"] == oracle.current_valuation(c)
        assert row["valuation_is_current"] == (oracle.current_valuation(c) is not None)
        known = int(c["valuation_usd"]) if c["valuation_usd"] else None
        assert profiles[int(c["id"])]["valuation_usd"] == known  # the profile keeps the last known figure
        assert profiles[int(c["id"])]["valuation_is_current"] == row["valuation_is_current"]
    history = [r for r in rows.values()
               if r["status"] in ("acquired", "closed") and profiles[r["id"]]["valuation_usd"]]
    assert history and all(r["valuation_usd"] is None for r in history)


def test_industry_totals_sum_current_valuations_and_equity(embedded_csv: dict) -> None:
    companies = embedded_csv["companies"]
    sector_of = {c["id"]: c["sector"] for c in companies}
    for row in _rows(EMBEDDED, "industries"):
        current = [v for c in companies if c["sector"] == row["slug"] and (v := oracle.current_valuation(c))]
        assert row["valued_company_count"] == len(current)
        assert row["total_valuation_usd"] == (sum(current) or None)
        equity = [int(r["amount_usd"]) for r in embedded_csv["funding_rounds"]
                  if sector_of[r["company_id"]] == row["slug"] and r["amount_usd"] and _kind(r) == "equity"]
        assert row["total_raised_usd"] == (sum(equity) or None)


def _kind(round_row: dict[str, str]) -> str:
    return round_row["transaction"] or ("debt" if round_row["stage"] == "debt" else "equity")


def test_totals_raised_are_equity_and_other_transactions_apart(embedded_csv: dict) -> None:
    rows = {r["id"]: r for r in _rows(EMBEDDED, "companies")}
    equity: dict[int, int] = {}
    other: dict[int, int] = {}
    for r in embedded_csv["funding_rounds"]:
        if r["amount_usd"]:
            target = equity if _kind(r) == "equity" else other
            target[int(r["company_id"])] = target.get(int(r["company_id"]), 0) + int(r["amount_usd"])
    profiles = _profiles(EMBEDDED)
    for company_id, row in rows.items():
        assert row["total_raised_usd"] == equity.get(company_id)
        assert profiles[company_id]["funding"]["total_raised_usd"] == equity.get(company_id)
        assert profiles[company_id]["funding"]["other_transactions_usd"] == other.get(company_id)
    assert sum(other.values()) > 0.1 * sum(equity.values() or [0]), "buyouts, stake purchases and debt are apart"


def test_filings_say_what_their_edgar_link_is(embedded_csv: dict) -> None:
    companies = {c["id"]: c for c in embedded_csv["companies"]}
    csv_filings = {int(f["id"]): f for f in embedded_csv["filings"]}
    rows = _rows(EMBEDDED, "filings")
    assert {r["edgar_url_kind"] for r in rows} == {"filing", "filer-page"}
    for row in rows:
        source = csv_filings[row["id"]]
        filer = source["filer_cik"] or companies[source["company_id"]]["cik"]
        assert row["filer_cik"] == (int(filer) if filer else None)
        if row["accession_number"]:
            assert row["edgar_url_kind"] == "filing"
            assert row["edgar_url"].endswith(f"/{filer}/{row['accession_number'].replace('-', '')}/")
        elif filer:
            assert row["edgar_url_kind"] == "filer-page" and row["edgar_url"].endswith(f"CIK={int(filer):010d}")


def test_converted_round_figures_name_their_currency(embedded_csv: dict) -> None:
    flagged = {int(r["id"]): r["currency_converted_from"] for r in embedded_csv["funding_rounds"]
               if r["currency_converted_from"]}
    assert flagged
    rows = {r["id"]: r for r in _rows(EMBEDDED, "funding")}
    for round_id, row in rows.items():
        assert row["currency_converted_from"] == flagged.get(round_id)


def test_figures_reported_in_another_currency_are_flagged(embedded_csv: dict) -> None:
    """An offering described in euros or pounds, and a valuation taken from a converted round, say so."""
    for offering in embedded_csv["offerings"]:
        foreign = any(mark in (offering["description"] or "") for mark in ("EUR ", "GBP ", "£", "€"))
        assert bool(offering["currency_converted_from"]) == foreign, offering
    converted = {(r["company_id"], r["announced_date"], r["post_money_valuation_usd"]): r["currency_converted_from"]
                 for r in embedded_csv["funding_rounds"]
                 if r["currency_converted_from"] and r["post_money_valuation_usd"]}
    for c in embedded_csv["companies"]:
        source = converted.get((c["id"], c["valuation_date"], c["valuation_usd"]))
        if source:
            assert c["valuation_currency_converted_from"] == source, c["name"]
    rows = {r["id"]: r for r in _rows(EMBEDDED, "offerings")}
    assert {i: r["currency_converted_from"] for i, r in rows.items() if r["currency_converted_from"]} == {
        int(o["id"]): o["currency_converted_from"] for o in embedded_csv["offerings"] if o["currency_converted_from"]}
