"""The names a company is also known by (``aliases.csv``): kept as sources give them, and found again when a source
uses one.

A name is kept when EDGAR lists it among a company's former names (with the dates it was used), when a source
calls a record it was matched to (by CIK, listing, ticker, or a decision in ``identities.csv``) by a name that does
not agree with the record's (a former or translated name, the name a SPAC listed under), and when a more
authoritative source renames a record (the old name stays). ``merge.find_company`` looks a source's name up here
when no record has it as its current name: a name used before a company's rename finds the renamed record. A
dated list of current listings renames a record an undated ticker list named (``renamed_since``).
"""

from __future__ import annotations

from typing import Protocol

from generator.importers.base import CompanyFact, Source
from generator.importers.identity import cities_differ, names_agree, normalise
from generator.importers.report import Report
from generator.importers.store import Store


class Merging(Protocol):
    """What of ``merge.Merger`` this module uses."""

    store: Store
    ticker_lists: frozenset[str]
    by_ticker: dict[str, str]
    report: Report

    def _new(self, table: str, values: dict[str, str]) -> str: ...

    def _take_ticker(self, key: str, ticker: str) -> bool: ...

    def assign(self, table: str, key: str, values: dict[str, str], source: Source, basis: str,
               only_empty: bool = False) -> None: ...


class AliasBook:
    def __init__(self, merger: Merging) -> None:
        self.merger = merger
        self.by_name: dict[str, list[tuple[str, str, str, str]]] = {}
        """Normalised name -> (company, from, to, alias) of every name alias."""
        for row in merger.store.rows["aliases"].values():
            if row["kind"] == "name":
                self.by_name.setdefault(normalise(row["alias"]), []).append(
                    (row["company_id"], row["from_date"], row["to_date"], row["alias"]))

    def find(self, name: str, fact: CompanyFact, city: str) -> str | None:
        """The record that had ``name`` (normalised) as a name on the fact's date, in its country, with no other
        CIK and no other headquarters city; the lowest id when several did."""
        companies = self.merger.store.rows["companies"]
        found = [
            company for company, start, end, _ in self.by_name.get(name, [])
            if not (fact.date and ((start and fact.date < start) or (end and fact.date > end)))
            if not fact.country or companies[company]["country"] in ("", "xx", fact.country)
            if not (fact.cik and companies[company]["cik"])
            if not cities_differ(city, companies[company]["headquarters_city"])
        ]
        return min(found, key=int) if found else None

    def add(self, company: str, name: str, source: Source, what: str, start: str = "", end: str = "") -> None:
        """Keep ``name`` as a name of ``company`` (``what``: how the source knows it, for the ``source`` column)."""
        store, norm = self.merger.store, normalise(name)
        if not norm or norm == normalise(store.rows["companies"][company]["name"]):
            return
        known = [alias for other, _, _, alias in self.by_name.get(norm, []) if other == company]
        if known and not (start or end):
            return  # known already, and this source adds no dates: it stays with the source that gave it
        if known:  # written differently before ("FACEBOOK INC", "Facebook, Inc."): the first spelling stays
            name = known[0]
        else:
            self.merger._new("aliases", {"company_id": company, "kind": "name", "alias": name})
            self.by_name.setdefault(norm, []).append((company, start, end, name))
        key = f"{company}|name|{name}"
        store.mention("aliases", key, source.name, source.basis)
        values = {"from_date": start, "to_date": end, "source": f"{source.name} ({what})"}
        self.merger.assign("aliases", key, values, source, source.basis)

    def ticker(self, company: str, ticker: str, source: Source, what: str) -> None:
        """Keep ``ticker`` as a former ticker of ``company`` (``what``: how the source knows it)."""
        key = f"{company}|ticker|{ticker}"
        if key not in self.merger.store.rows["aliases"]:
            self.merger._new("aliases", {"company_id": company, "kind": "ticker", "alias": ticker})
        self.merger.store.mention("aliases", key, source.name, source.basis)
        self.merger.assign("aliases", key, {"source": f"{source.name} ({what})"}, source, source.basis)

    def renamed_since(self, company: str, fact: CompanyFact, source: Source) -> None:
        """A dated list of current listings (``fact.listed_on``) that trades the record's company under another
        ticker than an undated ticker list gave it, a ticker the dated list no longer lists: the company was
        renamed or relisted since (a de-SPAC: Digital World Acquisition, DWAC, trades as Trump Media & Technology
        Group, DJT; Fiserv moved from FISV to FI). The list's ticker and name become the record's; the old ticker
        stays here (``observe`` keeps the old name), and a name kept here that is its name now goes."""
        merger, store = self.merger, self.merger.store
        row = store.rows["companies"][company]
        owner = store.owner("companies", company, "ticker")
        if not (fact.listed_on and fact.ticker and row["ticker"] and fact.ticker != row["ticker"]
                and row["ticker"] not in fact.others_listed and owner is not None
                and owner[0] in merger.ticker_lists and owner[0] != source.name
                and merger.by_ticker.get(fact.ticker) in (None, company)):
            return
        merger.report.renamed[f"{source.name}: listed under another ticker (and name) than an undated list said"] += 1
        self.ticker(company, row["ticker"], source, f"ticker before {fact.ticker}, {fact.listed_on} or earlier")
        merger._take_ticker(company, fact.ticker)
        row["ticker"] = fact.ticker
        store.claim("companies", company, "ticker", source.name, source.basis)
        if not names_agree(fact.name, row["name"]):
            row["name"] = fact.name
            store.claim("companies", company, "name", source.name, source.basis)
            norm = normalise(fact.name)
            for entry in [e for e in self.by_name.get(norm, []) if e[0] == company]:
                self.by_name[norm].remove(entry)  # its name now, no longer another name
                key = f"{company}|name|{entry[3]}"
                store.rows["aliases"].pop(key, None)
                store.drop("aliases", key)
        if row["sector"] == "blank-check" and fact.defaults.get("sector"):  # the business it acquired, as the
            row["sector"] = fact.defaults["sector"]                       # list's default sector is claimed
            store.claim("companies", company, "sector", source.name, "estimate")

    def observe(self, company: str, fact: CompanyFact, old_name: str, source: Source) -> None:
        """After ``fact`` was merged into ``company``: keep its former names, the name it used if that does not
        agree with the record's, and the record's old name if the fact renamed it."""
        for name, start, end in fact.former_names:
            self.add(company, name, source, "former name", start, end)
        current = self.merger.store.rows["companies"][company]["name"]
        dated = {normalise(name) for name, _, _ in fact.former_names}
        if old_name and current != old_name and not names_agree(old_name, current) and normalise(old_name) not in dated:
            self.add(company, old_name, source, "name before it renamed the company")
        elif fact.name and not names_agree(fact.name, current):
            self.add(company, fact.name, source, "name it uses")
        elif fact.name and fact.date and normalise(fact.name) != normalise(current):
            self.add(company, fact.name, source, f"name at its listing on {fact.date}")  # ULTA Salon, Ulta Beauty
