"""IPO records (``DealBook.merge``), and a Nasdaq deal as one IPO of one company: its filing, pricing, postponement
and withdrawal, whatever name each row gives the company (identity rule: a Nasdaq deal's ID is a strong key).

The calendar names a deal's company as it is called when the row is written: a SPAC's filing row often carries the
name the company took after its merger (HNR Acquisition's deal filed as "EON Resources Inc."), its pricing row the
SPAC's ticker. Each row is looked up by its own evidence; the first row of a deal fixes the deal's IPO record, and
every later row of the deal lands on that IPO. When a later row's own evidence finds another company, and the
deal's record was made by the deal alone in this import (no CIK, nothing but the deal), that record was the same
company under another name: the IPO moves to the company found, the record goes, and its name stays as a name the
company used (``aliases``). Otherwise the deal's record stands and the row's name is kept as a name it used.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

from generator.importers.base import RANK, CompanyFact, IpoFact, Source
from generator.importers.identity import SAME_LISTING_DAYS, days_apart, normalise
from generator.importers.report import Report
from generator.importers.store import Store


class Merging(Protocol):
    """What of ``merge.Merger`` this module uses."""

    store: Store
    report: Report
    aliases: Any
    ipos: dict[str, list[str]]
    listings: dict[str, list[tuple[str, str]]]
    by_slug: dict[str, str]
    by_name: dict[str, list[str]]
    by_ticker: dict[str, str]
    by_cik: dict[str, str]

    def find_company(self, fact: CompanyFact) -> str | None: ...

    def _new(self, table: str, values: dict[str, str]) -> str: ...

    def assign(self, table: str, key: str, values: dict[str, str], source: Source, basis: str,
               only_empty: bool = False) -> None: ...

    def _listed(self, row: dict[str, str]) -> None: ...

    def company(self, fact: CompanyFact, source: Source, key: str | None = None) -> str | None: ...

IPO_PROGRESS = {"pipeline": 0, "filed": 1, "postponed": 2, "upcoming": 3, "withdrawn": 4, "listed": 5}
"""An IPO's status only moves forward: a later row saying an earlier stage does not undo a listing."""
FOLDED = "Nasdaq deal ID (a record its filing made, under a later name, joined to its pricing's)"
"""How the report counts a deal's record folded into the company its other rows found."""
NAMED = "name on the Nasdaq deal's filing"


class DealBook:
    def __init__(self, merger: Merging) -> None:
        self.merger = merger
        self.ipo_of: dict[str, str] = {}
        """Deal ID -> the IPO record its first row made or found (this import)."""
        self.made: set[str] = set()
        """Companies a deal's row created in this import."""
        self.on_record: dict[tuple[str, str], list[str]] = {}
        """(ticker, filing or listing date) -> IPO records the folder held before this import: a deal imported
        before is found again on the IPO it landed on (a re-import routes its rows as the first import ended)."""
        for key, row in merger.store.rows["ipos"].items():
            for column in ("filed_date", "listing_date"):
                if row["ticker"] and row[column]:
                    self.on_record.setdefault((row["ticker"], row[column]), []).append(key)

    def company(self, fact: IpoFact, source: Source) -> str | None:
        """The company ``fact`` is about: as its own evidence finds it, or the deal's, or both joined."""
        merger = self.merger
        companies = merger.store.rows["companies"]
        known = self.ipo_of.get(fact.deal) if fact.deal else None
        if known is None and fact.deal:
            ticker = fact.fields.get("ticker", "")
            held = {k for column in ("filed_date", "listing_date") if fact.fields.get(column)
                    for k in self.on_record.get((ticker, fact.fields[column]), [])}
            if len(held) == 1:
                known = self.ipo_of[fact.deal] = held.pop()
        if known is None:
            before = len(companies)
            key = merger.company(fact.company, source)
            if key is not None and fact.deal and len(companies) > before:
                self.made.add(key)
            return key
        first = merger.store.rows["ipos"][known]["company_id"]
        counted = Counter(merger.report.matched)
        found = merger.find_company(fact.company)
        merger.report.matched = counted  # looked up to compare, not matched yet
        if found not in (None, first) and first in self.made and not companies[first]["cik"] and (
                self._only_the_deal(first, known)):
            name = companies[first]["name"]
            self._move(known, first, found)
            merger.aliases.add(found, name, source, NAMED)
            merger.report.matched[FOLDED] += 1
            first = found
        return merger.company(fact.company, source, key=first)

    def merge(self, fact: IpoFact, source: Source) -> None:
        """Merge an IPO fact: into its deal's IPO, else an IPO of its company on the same listing or within 550
        days of its filing, else a new one; its status only moves forward."""
        merger = self.merger
        company = self.company(fact, source)
        if company is None:
            return
        values = {"company_id": company, **fact.fields}
        own_date = values.get("listing_date") or values.get("filed_date") or ""
        key = self.ipo_of.get(fact.deal) if fact.deal else None
        for candidate in [] if key is not None else merger.ipos.get(company, []):
            row = merger.store.rows["ipos"][candidate]
            dates = [row[c] for c in ("filed_date", "priced_date", "listing_date") if row[c]]
            if values.get("listing_date") and row["listing_date"] and days_apart(
                    values["listing_date"], row["listing_date"]) > SAME_LISTING_DAYS:
                continue  # two listings on different days are two IPOs (a SPAC's units, a later re-listing)
            if (values.get("ticker") and values["ticker"] == row["ticker"]) or (
                own_date and any(days_apart(own_date, other) <= 550 for other in dates)
            ):
                key = candidate
                break
        if key is None:
            key = merger._new("ipos", {"company_id": company, "status": values["status"], "basis": source.basis})
            merger.ipos.setdefault(company, []).append(key)
        self.remember(fact, key)
        merger.store.mention("ipos", key, source.name, source.basis)
        row = merger.store.rows["ipos"][key]
        if row["filed_date"] and values.get("filed_date", "") > row["filed_date"]:
            values.pop("filed_date")  # the first registration statement is the one that counts
        if IPO_PROGRESS[values["status"]] < IPO_PROGRESS[row["status"]]:
            values.pop("status")
        elif values["status"] != row["status"]:
            row["status"] = ""
        merger.assign("ipos", key, values, source, source.basis)
        if RANK[source.basis] > RANK[row["basis"]]:
            merger.assign("ipos", key, {"basis": source.basis}, source, source.basis)
        merger._listed(row)

    def remember(self, fact: IpoFact, ipo: str) -> None:
        if fact.deal:
            self.ipo_of.setdefault(fact.deal, ipo)

    def _only_the_deal(self, company: str, ipo: str) -> bool:
        """Whether the record holds nothing but this deal's IPO (no other row of any table is about it)."""
        rows = self.merger.store.rows
        if self.merger.ipos.get(company, []) != [ipo]:
            return False
        return not any(r["company_id"] == company for table in ("funding_rounds", "filings", "news", "financials",
                                                                   "aliases", "offerings", "secondary_prices")
                       for r in rows[table].values())

    def _move(self, ipo: str, gone: str, kept: str) -> None:
        merger, store = self.merger, self.merger.store
        store.rows["ipos"][ipo]["company_id"] = kept
        merger.ipos.pop(gone, None)
        merger.ipos.setdefault(kept, []).append(ipo)
        for held in merger.listings.values():
            held[:] = [(day, kept if company == gone else company) for day, company in held]
        row = store.rows["companies"].pop(gone)
        store.drop("companies", gone)
        merger.by_slug.pop(row["slug"], None)
        named = merger.by_name.get(normalise(row["name"]), [])
        if gone in named:
            named.remove(gone)
        for index in (merger.by_ticker, merger.by_cik):
            for value in [v for v, k in index.items() if k == gone]:
                del index[value]
        self.made.discard(gone)
