"""Make a merged folder valid: fill what no source said, add the reference rows records point at, set as_of.

Every value filled here is owned by the placeholder source ``import`` in ``provenance.csv`` (so any real source
replaces it later) and counted in the report: nothing that did not map is hidden.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter

from generator.importers.reference import (
    COUNTRIES,
    EXCHANGE_NOT_REPORTED,
    EXCHANGES,
    SECTORS,
    UNCLASSIFIED,
    UNKNOWN_COUNTRY,
)
from generator.importers.store import PLACEHOLDER_SOURCE, RECORDS, Store

NOT_REPORTED = "Not reported"
_NOT_REPORTED_DATES = frozenset({"expected_date", "close_date"})


def _fill(store: Store, table: str, key: str, column: str, value: str, fixes: Counter[str], why: str,
          by: tuple[str, str] | None = None) -> None:
    store.rows[table][key][column] = value
    store.claim(table, key, column, *(by or (PLACEHOLDER_SOURCE, "estimate")))
    fixes[why] += 1


LIST_WINDOW_DAYS = 60
LIST_SHARE = 2 / 3


def ticker_list_date(store: Store, ticker_lists: frozenset[str]) -> str:
    """The date the imported ticker lists stand at, as their content shows it ('' when no list was imported).

    Nearly every company listed before a list's date is on it under its IPO ticker; almost none listed after it
    is (only companies that traded elsewhere before their IPO). So the date is the latest listing, among those a
    list confirms, at which at least ``LIST_SHARE`` of the listings of the ``LIST_WINDOW_DAYS`` before it are
    confirmed too. A listing up to that date whose ticker no list holds is no current listing."""
    companies = store.rows["companies"]
    every, confirmed = [], []
    for ipo in store.rows["ipos"].values():
        if ipo["status"] != "listed" or not ipo["ticker"] or not ipo["listing_date"]:
            continue
        every.append(ipo["listing_date"])
        owner = store.owner("companies", ipo["company_id"], "ticker")
        if ipo["ticker"] == companies[ipo["company_id"]]["ticker"] and owner and owner[0] in ticker_lists:
            confirmed.append(ipo["listing_date"])
    every.sort()
    confirmed.sort()
    for day in reversed(confirmed):
        start = (dt.date.fromisoformat(day) - dt.timedelta(days=LIST_WINDOW_DAYS)).isoformat()
        listed = bisect.bisect_right(every, day) - bisect.bisect_right(every, start)
        on_list = bisect.bisect_right(confirmed, day) - bisect.bisect_right(confirmed, start)
        if on_list >= LIST_SHARE * listed:
            return day
    return ""


def derive_status(store: Store, ticker_lists: frozenset[str], fixes: Counter[str]) -> None:
    """Status from the evidence, for every company whose status a source gave or ``import`` filled (hand-curated
    ones keep theirs): acquired and closed stay; a company listed once (an IPO listed, or a source saying public)
    is ``public`` while it holds a current listing (a ticker a ticker list gives it, or a listing newer than the
    lists) and ``delisted`` otherwise; its old ticker stays on its IPO record."""
    companies = store.rows["companies"]
    as_of = ticker_list_date(store, ticker_lists)
    listed: dict[str, str] = {}
    for ipo in store.rows["ipos"].values():
        if ipo["status"] == "listed" and ipo["listing_date"] > listed.get(ipo["company_id"], ""):
            listed[ipo["company_id"]] = ipo["listing_date"]
    for key, row in companies.items():
        owner = store.owner("companies", key, "status")
        if owner is None and row["status"]:
            continue
        if row["status"] == "acquired" and _listed_since(store, key, row, listed.get(key, "")):
            continue
        if row["status"] == "closed" or (row["status"] == "acquired" and not (
                row["acquired_date"] and listed.get(key, "") > row["acquired_date"])):
            continue
        if row["status"] != "public" and key not in listed:
            continue
        ticker_owner = store.owner("companies", key, "ticker")
        on_list = ticker_owner is not None and ticker_owner[0] in ticker_lists
        stale = bool(as_of) and not on_list and listed.get(key, "") <= as_of
        if row["ticker"] and not stale:
            if row["status"] != "public":  # owned by the source of its listing, which a re-import finds the same
                _fill(store, "companies", key, "status", "public", fixes,
                      "company listed and holding its ticker: public", by=ticker_owner)
            continue
        if row["ticker"]:
            why = "listed company whose ticker is on no ticker list of its date: delisted (ticker kept on its IPO)"
            for column in ("ticker", "exchange"):
                if store.owner("companies", key, column) is not None:
                    row[column] = ""
                    store.release("companies", key, column)
        elif key in listed:
            why = "listed company whose ticker another company holds now: delisted"
        else:
            why = "company said public but holding no ticker: delisted"
        _fill(store, "companies", key, "status", "delisted", fixes, why)


def _listed_since(store: Store, key: str, row: dict[str, str], listed: str) -> bool:
    """An acquired company listed again after its acquisition (a re-IPO, a spin-off: Reddit, bought by Condé Nast
    in 2006, listed in 2024): its status is the listing's, owned by the source that gave the listing, so that a
    re-import reads it the same. The acquisition stays on the record as history."""
    since = row["acquired_date"]
    valued = row["valuation_basis"] == MARKET_VALUE and row["valuation_date"] > since and row["ticker"]
    if not since or not (listed > since or valued):
        return False
    by = store.owner("companies", key, "valuation_usd" if valued else "ticker") or (PLACEHOLDER_SOURCE, "estimate")
    if not (row["ticker"] and row["exchange"]):
        return False  # no current listing: ``derive_status`` goes on to call it delisted
    row["status"] = "public"
    store.claim("companies", key, "status", *by)
    return True


MARKET_VALUE = "market-cap"
"""The basis of a listed company's market value (a list of market values, such as the Nasdaq screener, gives it)."""
BEFORE_LISTING = "public company's imported valuation dated before its listing (a private mark): not current"
NO_MARKET_VALUE = ("public company's imported valuation that is no market value, with no list of market values "
                   "describing it: not current")
CURRENT_AGAIN = "public company's valuation current again (a market value, or a mark after its listing)"


def stale_valuations(store: Store, fixes: Counter[str]) -> None:
    """A public company's current valuation is its market value, never an older private mark: an imported valuation
    of a public company whose basis is not ``market-cap`` gets ``valuation_is_current`` false when it is dated before
    the company's (latest) listing, or when no list of market values describes the company at all (a unicorn list's
    mark of a company that has listed since). The profile keeps the figure as history; listings and sorts leave it
    out. Values no source owns (hand-curated) are never touched; a flag this set is cleared again once the valuation
    is current (a market value arrived)."""
    listed: dict[str, str] = {}
    for ipo in store.rows["ipos"].values():
        if ipo["status"] == "listed" and ipo["listing_date"] > listed.get(ipo["company_id"], ""):
            listed[ipo["company_id"]] = ipo["listing_date"]
    for key, row in store.rows["companies"].items():
        flag = store.owner("companies", key, "valuation_is_current")
        if flag is None and row["valuation_is_current"]:
            continue  # hand-curated
        why = _stale(store, key, row, max(row["listing_date"], listed.get(key, "")))
        if why and row["valuation_is_current"] != "false":
            _fill(store, "companies", key, "valuation_is_current", "false", fixes, why)
        elif not why and row["status"] == "public" and flag is not None and flag[0] == PLACEHOLDER_SOURCE \
                and row["valuation_is_current"]:
            row["valuation_is_current"] = ""
            store.release("companies", key, "valuation_is_current")
            fixes[CURRENT_AGAIN] += 1


def _stale(store: Store, key: str, row: dict[str, str], listing: str) -> str:
    """Why a company's valuation is not current under ``stale_valuations`` ('' when it is, or is not imported)."""
    if row["status"] != "public" or not row["valuation_usd"] or row["valuation_basis"] == MARKET_VALUE:
        return ""
    if store.owner("companies", key, "valuation_usd") is None:
        return ""
    if listing and row["valuation_date"] and row["valuation_date"] < listing:
        return BEFORE_LISTING
    if not any(basis == MARKET_VALUE for _, basis in store.provenance.get(("companies", key), {})):
        return NO_MARKET_VALUE
    return ""


def finalize(store: Store, sources: list[str], ticker_lists: frozenset[str] = frozenset()) -> Counter[str]:
    fixes: Counter[str] = Counter()
    derive_status(store, ticker_lists, fixes)
    stale_valuations(store, fixes)
    for key, row in store.rows["companies"].items():
        if not row["sector"]:
            _fill(store, "companies", key, "sector", UNCLASSIFIED, fixes, "company sector not given or not mapped")
        if not row["country"]:
            _fill(store, "companies", key, "country", UNKNOWN_COUNTRY, fixes,
                  "company country not given or not mapped")
        if not row["status"]:
            _fill(store, "companies", key, "status", "private", fixes, "company status not given: private")
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
    for table in RECORDS:
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
