"""Merge news items into the folder: each on the company that held its ticker on its date, one record per company
and URL.

The company is found with the identity rules for tickers (``identity.held_on``): a former ticker dated in
``aliases``, the listed IPOs of the ticker with their dates, and its current holder. A feed names no company
otherwise, so an item whose ticker no company is known to have held on its date is not imported: the report
counts it by reason and shows the first rows. An item a feed repeats (same company and URL) is one record; a
source updates its own values, so importing the same feed again changes nothing.
"""

from __future__ import annotations

from typing import Protocol

from generator.importers.base import NewsFact, Source
from generator.importers.identity import held_on
from generator.importers.report import UNMATCHED_SHOWN, Report
from generator.importers.store import Store


class Merging(Protocol):
    """What of ``merge.Merger`` this module uses."""

    store: Store
    report: Report
    by_ticker: dict[str, str]
    listings: dict[str, list[tuple[str, str]]]

    def _new(self, table: str, values: dict[str, str]) -> str: ...

    def assign(self, table: str, key: str, values: dict[str, str], source: Source, basis: str,
               only_empty: bool = False) -> None: ...


class NewsMerger:
    def __init__(self, merger: Merging) -> None:
        self.merger = merger
        store = merger.store
        self.items = {(r["company_id"], r["article_url"]): key
                      for key, r in store.rows["news"].items() if r["article_url"]}
        self.seen: set[tuple[str, str, str]] = set()
        """(company, URL, source) of the items merged in this import: a second one is a repeat."""
        self.dated: dict[str, list[tuple[str, str, str]]] = {}
        """Ticker -> (from, to, company) of the tickers ``aliases`` dates."""
        for row in store.rows["aliases"].values():
            if row["kind"] == "ticker":
                self.dated.setdefault(row["alias"], []).append((row["from_date"], row["to_date"], row["company_id"]))

    def company(self, ticker: str, day: str) -> tuple[str | None, str]:
        merger = self.merger
        holder = merger.by_ticker.get(ticker)
        since = merger.store.rows["companies"][holder]["listing_date"] if holder is not None else ""
        return held_on(day, merger.listings.get(ticker, []), holder, since, self.dated.get(ticker, []))

    def merge(self, fact: NewsFact, source: Source) -> None:
        merger, report = self.merger, self.merger.report
        day = fact.fields["published_date"]
        company, evidence = self.company(fact.ticker, day) if fact.ticker else (None, "no ticker")
        if company is None:
            report.unmatched[evidence] += 1
            if len(report.unmatched_rows) < UNMATCHED_SHOWN:
                report.unmatched_rows.append(f"{fact.where}: {fact.ticker or '(none)'} on {day}: {evidence}")
            return
        report.news[evidence] += 1
        values = {"company_id": company, **fact.fields, "origin": "feed"}
        key = self.items.get((company, fact.fields["article_url"]))
        if key is None:
            key = merger._new("news", values)
            self.items[(company, fact.fields["article_url"])] = key
        elif (company, fact.fields["article_url"], source.name) in self.seen:
            report.repeated["news"] += 1
        self.seen.add((company, fact.fields["article_url"], source.name))
        merger.store.mention("news", key, source.name, source.basis)
        merger.assign("news", key, values, source, source.basis)
