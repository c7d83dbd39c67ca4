"""Make a merged folder valid: fill what no source said, add the reference rows records point at, set as_of.

Every value filled here is owned by the placeholder source ``import`` in ``provenance.csv`` (so any real source
replaces it later) and counted in the report: nothing that did not map is hidden.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

from generator.dataset.schema import TABLES
from generator.importers.reference import (
    COUNTRIES,
    EXCHANGE_NOT_REPORTED,
    EXCHANGES,
    SECTORS,
    UNCLASSIFIED,
    UNKNOWN_COUNTRY,
)
from generator.importers.store import PLACEHOLDER_SOURCE, Store

NOT_REPORTED = "Not reported"
_NOT_REPORTED_DATES = frozenset({"expected_date", "close_date"})


def _fill(store: Store, table: str, key: str, column: str, value: str, fixes: Counter[str], why: str) -> None:
    store.rows[table][key][column] = value
    store.claim(table, key, column, PLACEHOLDER_SOURCE, "estimate")
    fixes[why] += 1


def finalize(store: Store, sources: list[str]) -> Counter[str]:
    fixes: Counter[str] = Counter()
    for key, row in store.rows["companies"].items():
        if not row["sector"]:
            _fill(store, "companies", key, "sector", UNCLASSIFIED, fixes, "company sector not given or not mapped")
        if not row["country"]:
            _fill(store, "companies", key, "country", UNKNOWN_COUNTRY, fixes,
                  "company country not given or not mapped")
        if not row["status"]:
            _fill(store, "companies", key, "status", "private", fixes, "company status not given: private")
        if row["status"] == "public" and not row["ticker"]:
            _fill(store, "companies", key, "status", "private", fixes,
                  "company said public but no free ticker: written as private")
        if row["status"] == "public" and not row["exchange"]:
            _fill(store, "companies", key, "exchange", EXCHANGE_NOT_REPORTED, fixes, "ticker without exchange")
        if row["status"] == "acquired" and not row["acquirer"]:
            _fill(store, "companies", key, "acquirer", NOT_REPORTED, fixes, "acquired company without acquirer")
    for key, row in store.rows["investors"].items():
        if not row["type"]:
            _fill(store, "investors", key, "type", "vc", fixes, "investor type not given: vc")
        if not row["country"]:
            _fill(store, "investors", key, "country", UNKNOWN_COUNTRY, fixes, "investor country not given")
    _add_reference_rows(store)
    _dataset_info(store, sources)
    return fixes


def _add_reference_rows(store: Store) -> None:
    rows = store.rows
    exchanges = {r["exchange"] for t in ("companies", "ipos") for r in rows[t].values() if r["exchange"]}
    for slug in sorted(exchanges - set(rows["exchanges"])):
        if slug in EXCHANGES:
            name, country, mic = EXCHANGES[slug]
            rows["exchanges"][slug] = {"slug": slug, "name": name, "country": country, "mic": mic}
    countries = {r["country"] for t in ("companies", "investors", "exchanges") for r in rows[t].values()}
    for code in sorted(countries - set(rows["countries"]) - {""}):
        if code in COUNTRIES:
            name, region = COUNTRIES[code]
            rows["countries"][code] = {"code": code, "name": name, "region": region}
    sectors = {r["sector"] for r in rows["companies"].values()}
    for slug in sorted(sectors - set(rows["sectors"]) - {""}):
        if slug in SECTORS:
            name, description = SECTORS[slug]
            rows["sectors"][slug] = {"slug": slug, "name": name, "description": description}


def _latest_date(store: Store) -> str:
    latest = ""
    for table in TABLES:
        columns = [c for c, info in table.model.model_fields.items()
                   if "date" in str(info.annotation) and c not in _NOT_REPORTED_DATES]
        for row in store.rows[table.name].values():
            for column in columns:
                if row[column] > latest:
                    latest = row[column]
    return latest


def _dataset_info(store: Store, sources: list[str]) -> None:
    latest = _latest_date(store) or dt.date(2000, 1, 1).isoformat()
    info = store.dataset
    if info is None:
        info = store.dataset = {
            "title": "Imported company & IPO dataset",
            "as_of": latest,
            "disclaimer": "Compiled automatically from public data files; figures may be incomplete, out of date "
            "or wrong: check primary filings before relying on any figure. provenance.csv names the source "
            "of every value.",
            "license": "See the licenses of the sources listed here; no warranty.",
            "sources": [],
        }
    if str(info.get("as_of", "")) < latest:
        info["as_of"] = latest
    listed = info.setdefault("sources", [])
    for line in sources:
        if line not in listed:  # type: ignore[operator]
            listed.append(line)  # type: ignore[attr-defined]
