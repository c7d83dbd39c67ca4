"""Merge facts into a canonical folder: find the record a fact is about, or create it; keep the best value per field.

Companies are resolved by CIK, then by ticker (when the names agree and the listing dates are not years apart),
then by slug hint (Crunchbase permalinks), then by normalised name within the same country (a source that gives
no country matches on the name alone when only one company has it), then by a name the company had (``aliases``).
A field keeps the value of the most authoritative basis (``RANK``: a filing over a list of market values over
exchange data over a press report over an estimate); with equal rank the value already there stays, except that a
source always updates its own values and a valuation is replaced by a newer one. Values already in the folder
without provenance (hand-curated) are never overwritten. New ids are the next free integers in the order facts
arrive, so the same files give the same ids.
"""

from __future__ import annotations

from generator.dataset.schema import TABLE_BY_NAME
from generator.importers.aliases import AliasBook
from generator.importers.base import (
    RANK,
    CompanyFact,
    FilingFact,
    FinancialFact,
    InvestmentFact,
    InvestorFact,
    IpoFact,
    NewsFact,
    RoundFact,
    Source,
    slugify,
)
from generator.importers.deal_book import DealBook
from generator.importers.financial_book import FinancialBook
from generator.importers.fold import fold_decided
from generator.importers.identity import (
    SAME_LISTING_DAYS,
    Decisions,
    assigned_after,
    cities_differ,
    days_apart,
    names_agree,
    normalise,
    other_era,
    registered_for,
    share_ticker,
)
from generator.importers.investor_book import InvestorBook
from generator.importers.news import NewsMerger
from generator.importers.report import Report
from generator.importers.store import COLUMNS, PLACEHOLDER_SOURCE, Store, record_key

VALUATION = ("valuation_usd", "valuation_date", "valuation_basis")
__all__ = ["Merger", "Report", "normalise", "names_agree"]


class Merger:
    def __init__(self, store: Store, reserved: frozenset[str] = frozenset(), ticker_lists: frozenset[str] = frozenset(),
                 decisions: Decisions | None = None) -> None:
        self.store = store
        self.report = Report()
        self.reserved = reserved
        self.ticker_lists = ticker_lists
        """Sources whose tickers are current listings (ticker lists), not a listing on a date."""
        self.decisions = decisions or Decisions()
        fold_decided(store, self.decisions, self.report)  # before the indexes: records a decision joins are one
        self.listing_date = ""
        """The listing date of the company fact being merged ('' if it has none)."""
        self.from_list = False
        """Whether the company fact being merged comes from a ticker list (its ticker is a current listing)."""
        companies = store.rows["companies"]
        self.by_cik = {r["cik"]: k for k, r in companies.items() if r["cik"]}
        self.by_ticker = {r["ticker"]: k for k, r in companies.items() if r["ticker"]}
        self.by_slug = {r["slug"]: k for k, r in companies.items()}
        self.by_name: dict[str, list[str]] = {}
        for key, row in companies.items():
            self.by_name.setdefault(normalise(row["name"]), []).append(key)
        self.investors = InvestorBook(self)
        self.financials = FinancialBook(self)
        self.deals = DealBook(self)
        self.rounds: dict[tuple[str, str], list[str]] = {}
        for key, row in store.rows["funding_rounds"].items():
            self.rounds.setdefault((row["company_id"], row["announced_date"]), []).append(key)
        self.ipos: dict[str, list[str]] = {}
        self.listings: dict[str, list[tuple[str, str]]] = {}
        """Ticker -> (listing date, company) of every listed IPO on record: tickers with the dates they were held."""
        for key, row in store.rows["ipos"].items():
            self.ipos.setdefault(row["company_id"], []).append(key)
            self._listed(row)
        self.repeats: dict[tuple[str, str, str, str], str] = {}
        """(source, company, date, amount) -> the round that source's first such row made or found."""
        self.aliases = AliasBook(self)
        self.news: NewsMerger | None = None
        """Made for the first news item (after the company lists: it indexes what they made)."""
        self.accessions = {r["accession_number"] for r in store.rows["filings"].values() if r["accession_number"]}
        self.next_id = {name: max((int(k) for k in store.rows[name]), default=0) + 1
                        for name in ("companies", "investors", "funding_rounds", "ipos", "filings", "news")}

    # --- values --------------------------------------------------------------------------------------------------

    def _new(self, table: str, values: dict[str, str]) -> str:
        row = dict.fromkeys(COLUMNS[table], "")
        if "id" in row:
            row["id"] = str(self.next_id[table])
            self.next_id[table] += 1
        row.update({c: v for c, v in values.items() if c in row})
        key = record_key(TABLE_BY_NAME[table], row)
        self.store.rows[table][key] = row
        self.report.created[table] += 1
        return key

    def _may_replace(self, table: str, key: str, column: str, source: Source, basis: str) -> bool:
        row = self.store.rows[table][key]
        if row[column] == "":
            return True
        owner = self.store.owner(table, key, column)
        if owner is None:
            return False
        if owner[0] in (source.name, PLACEHOLDER_SOURCE):
            return True
        return RANK[basis] > RANK[owner[1]]

    def assign(self, table: str, key: str, values: dict[str, str], source: Source, basis: str,
               only_empty: bool = False) -> None:
        row = self.store.rows[table][key]
        changed = False
        for column, value in values.items():
            if value == "" or column not in row:
                continue
            if only_empty and row[column] != "" and self.store.owner(table, key, column) != (source.name, basis):
                continue
            if not only_empty and not self._may_replace(table, key, column, source, basis):
                continue
            if column == "ticker" and table == "companies" and not self._take_ticker(key, value):
                continue
            owner = self.store.owner(table, key, column)
            if row[column] == value and owner not in (None, (PLACEHOLDER_SOURCE, "estimate")):
                continue  # the value stays with the source that gave it first: a re-import moves nothing
            if row[column] != value:
                row[column] = value
                changed = True
            self.store.claim(table, key, column, source.name, basis)
        if changed:
            self.report.updated[table] += 1

    def _take_ticker(self, key: str, ticker: str) -> bool:
        """Make ``key`` the current holder of ``ticker``. A holder whose ticker came from a listing older than the
        one being merged (``self.listing_date``) hands it over (tickers are reused); a ticker list's holder keeps
        it (``finalize`` weighs the list's date)."""
        holder = self.by_ticker.get(ticker)
        if holder not in (None, key):
            row = self.store.rows["companies"][holder]
            owner = self.store.owner("companies", holder, "ticker")
            newer = self.listing_date and row["listing_date"] and row["listing_date"] < self.listing_date
            if owner is None or owner[0] in self.ticker_lists or not newer:
                self.report.conflicts["ticker held by another company"] += 1
                return False
            self.report.conflicts["ticker listed again later: moved to the newer listing"] += 1
            row["ticker"] = ""
            self.store.release("companies", holder, "ticker")
        old = self.store.rows["companies"][key]["ticker"]
        if old and self.by_ticker.get(old) == key:
            del self.by_ticker[old]
        self.by_ticker[ticker] = key
        return True

    def _listed(self, row: dict[str, str]) -> None:
        if row["status"] == "listed" and row["ticker"] and row["listing_date"]:
            held = self.listings.setdefault(row["ticker"], [])
            if (row["listing_date"], row["company_id"]) not in held:
                held.append((row["listing_date"], row["company_id"]))

    # --- companies -----------------------------------------------------------------------------------------------

    def _by_ticker(self, fact: CompanyFact) -> tuple[str | None, str]:
        """The company a ticker (with the listing date, when the fact has one) identifies, and the rule that
        found it (``identity``: evidence 2 to 4; a ticker that two ticker lists give is one listing, whatever the
        names, unless another record has the fact's name: a company renamed or translated since one of the lists)."""
        companies = self.store.rows["companies"]
        if fact.date:
            for listed, key in sorted(self.listings.get(fact.ticker, []), key=lambda e: (e[0], int(e[1]))):
                if days_apart(listed, fact.date) <= SAME_LISTING_DAYS and not (fact.cik and companies[key]["cik"]):
                    return key, "same listing (ticker and date)"
        key = self.by_ticker.get(fact.ticker)
        if key is not None:
            row = companies[key]
            far = fact.date and row["listing_date"] and days_apart(fact.date, row["listing_date"]) > 730
            if names_agree(row["name"], fact.name) and not far and not (fact.cik and row["cik"]) and not (
                    assigned_after(row["cik"], fact.date) and normalise(row["name"]) != normalise(fact.name)):
                return key, "ticker"  # not a ticker reused by a company registered since (a reorganised one
                # keeps its name: Accenture plc's CIK of 2009 holds Accenture's listing of 2001)
            owner = self.store.owner("companies", key, "ticker")
            as_of = fact.fields.get("valuation_date", "")  # a dated list (the screener) holds no later listing
            if self.from_list and owner is not None and owner[0] in self.ticker_lists and not (fact.cik and row[
                    "cik"]) and not [k for k in self.by_name.get(normalise(fact.name), []) if k != key] and not (
                    as_of and row["listing_date"] > as_of) and row["country"] in ("", "xx", fact.country or row[
                    "country"]):  # a ticker reused by a company of another country is another company
                return key, "ticker on two ticker lists (names differ)"
        named = any(companies[k]["cik"] for k in self.by_name.get(normalise(fact.name), []))
        if fact.date and not fact.cik and not named:  # a registrant with the fact's own name is the better match
            for symbol in (fact.ticker, share_ticker(fact.ticker)):
                key = self.by_ticker.get(symbol) if symbol else None
                row = companies[key] if key is not None else None
                if row and row["cik"] and not row["listing_date"] and registered_for(row["cik"], fact.date):
                    return key, "ticker (or a unit's share ticker) of the CIK registered for the listing"
        return None, ""

    def find_company(self, fact: CompanyFact) -> str | None:
        companies = self.store.rows["companies"]
        if fact.cik and fact.cik in self.by_cik:
            self.report.matched["cik"] += 1
            return self.by_cik[fact.cik]
        if fact.ticker:
            key, rule = self._by_ticker(fact)
            if key is not None:
                self.report.matched[rule] += 1
                return key
        slug = fact.slug
        if slug and slug in self.by_slug and names_agree(companies[self.by_slug[slug]]["name"], fact.name) and not (
                other_era(fact, companies[self.by_slug[slug]])):
            self.report.matched["slug"] += 1
            return self.by_slug[slug]
        name, city = self.decisions.resolve(fact.name, fact.fields.get("headquarters_city", ""))
        candidates = [
            k for k in self.by_name.get(normalise(name), [])
            if not fact.country or companies[k]["country"] in ("", "xx", fact.country)
            if not (fact.cik and companies[k]["cik"])
        ]
        apart = {k: why for k in candidates if (why := "headquarters cities differ" if cities_differ(
            city, self.decisions.resolve(companies[k]["name"], companies[k]["headquarters_city"])[1])
            else other_era(fact, companies[k]))}
        candidates = [k for k in candidates if k not in apart]
        if not candidates and not apart and (key := self.aliases.find(normalise(name), fact, city)):
            self.report.matched["former name"] += 1
            return key
        if len(candidates) > 1 and fact.country:
            candidates = [k for k in candidates if companies[k]["country"] == fact.country] or candidates
        if len(candidates) > 1:
            self.report.conflicts["name matches several companies (first taken)"] += 1
        if candidates:
            self.report.matched["name" if name == fact.name else "name (identities.csv)"] += 1
            return min(candidates, key=int)
        if apart:  # the rule that kept it from the first record of the name
            self.report.kept_apart[f"same name, {apart[min(apart, key=int)]}"] += 1
        return None

    def company(self, fact: CompanyFact, source: Source, key: str | None = None) -> str | None:
        """Merge ``fact`` into the company it is about (``key`` when the caller knows it), or a new one."""
        self.listing_date = fact.date
        self.from_list = source.name in self.ticker_lists
        key = key if key is not None else self.find_company(fact)
        found = key is not None
        if key is None:
            if not fact.create or not fact.name:
                return None
            key = self._new("companies", {"slug": self._free_slug(fact.slug or fact.name),
                                          "name": fact.name})
            self.by_slug[self.store.rows["companies"][key]["slug"]] = key
            self.by_name.setdefault(normalise(fact.name), []).append(key)
            self.store.claim("companies", key, "name", source.name, "estimate")
        if fact.create or fact.fields or fact.defaults:  # not a fact that only finds the company for another record
            self.store.mention("companies", key, source.name, source.basis)
        row = self.store.rows["companies"][key]
        old_name = row["name"]
        if found:
            self.aliases.renamed_since(key, fact, source)
        asserted = dict(fact.fields)
        for column, value in (("cik", fact.cik), ("ticker", fact.ticker), ("country", fact.country)):
            if value:
                asserted.setdefault(column, value)
        if all(row.get(c, "") for c in VALUATION) and "valuation_date" in asserted:
            newer = asserted["valuation_date"] > row["valuation_date"]
            if not newer:
                asserted = {c: v for c, v in asserted.items() if c not in VALUATION}
            elif RANK[source.basis] >= RANK.get(row["valuation_basis"], 0):
                for column in VALUATION:
                    if self.store.owner("companies", key, column) is not None:
                        self.store.claim("companies", key, column, PLACEHOLDER_SOURCE, "estimate")
        self.assign("companies", key, asserted, source, source.basis)
        self.assign("companies", key, fact.defaults, source, "estimate", only_empty=True)
        if row["cik"]:
            self.by_cik[row["cik"]] = key
        if row["name"] != old_name:
            previous = self.by_name.get(normalise(old_name), [])
            if key in previous:
                previous.remove(key)
            self.by_name.setdefault(normalise(row["name"]), []).append(key)
        self.aliases.observe(key, fact, old_name if found else "", source)
        return key

    def _free_slug(self, text: str) -> str:
        base = slugify(text) or "company"
        if base.isdigit() or base in self.reserved:
            base = f"{base}-company"
        slug, n = base, 1
        while slug in self.by_slug:
            n += 1
            slug = f"{base}-{n}"
        return slug

    # --- the other facts -----------------------------------------------------------------------------------------

    def funding_round(self, fact: RoundFact, source: Source) -> str | None:
        fact.company.active = fact.company.active or fact.fields["announced_date"]
        company = self.company(fact.company, source)
        if company is None:
            return None
        date, stage, amount = fact.fields["announced_date"], fact.fields["stage"], fact.fields.get("amount_usd", "")
        repeat = (source.name, company, date, amount)
        if amount and repeat in self.repeats:  # a source's row repeating one it gave: the same round, counted once
            key = self.repeats[repeat]
            self.report.repeated["funding_rounds"] += 1
            self.store.repeat("funding_rounds", key, source.name, source.basis)
            self.assign("funding_rounds", key, fact.fields, source, source.basis, only_empty=True)
            return key
        existing = [k for k in self.rounds.get((company, date), [])
                    if self.store.rows["funding_rounds"][k]["stage"] in (stage, "undisclosed")]
        if existing:
            key = min(existing, key=int)
        else:
            key = self._new("funding_rounds", {"company_id": company, "basis": source.basis, **fact.fields})
            self.rounds.setdefault((company, date), []).append(key)
        if amount:
            self.repeats[repeat] = key
        self.store.mention("funding_rounds", key, source.name, source.basis)
        self.assign("funding_rounds", key, {"company_id": company, **fact.fields}, source, source.basis)
        return key

    def investment(self, fact: InvestmentFact, source: Source) -> None:
        fact.company.active = fact.company.active or fact.date
        company = self.company(fact.company, source)
        if company is None:
            return
        existing = self.rounds.get((company, fact.date), [])
        if existing:
            round_key = min(existing, key=int)
        else:
            round_key = self.funding_round(RoundFact(fact.company, {
                "stage": "undisclosed", "announced_date": fact.date, "amount_usd": fact.amount}), source) or ""
        investor = self.investors.investor(fact.investor, source)
        links = self.store.rows["round_investors"]
        if f"{round_key}|{investor}" not in links:
            self._new("round_investors", {"round_id": round_key, "investor_id": investor, "is_lead": "false"})
            self.store.mention("round_investors", f"{round_key}|{investor}", source.name, source.basis)

    def filing(self, fact: FilingFact, source: Source) -> None:
        accession = fact.fields.get("accession_number", "")
        if accession in self.accessions:  # read before (another index, an earlier import): its places stay those of
            return                         # the fact that made it, whatever the order files are read in
        company = self.company(fact.company, source)
        if company is None:
            self.report.conflicts["filing of a CIK no imported company list knows (skipped)"] += 1
            return
        key = self._new("filings", {"company_id": company, **fact.fields})
        self.store.mention("filings", key, source.name, source.basis)
        if accession:
            self.accessions.add(accession)

    def apply(self, fact: object, source: Source) -> None:
        if isinstance(fact, CompanyFact):
            self.company(fact, source)
        elif isinstance(fact, IpoFact):
            self.deals.merge(fact, source)
        elif isinstance(fact, RoundFact):
            self.funding_round(fact, source)
        elif isinstance(fact, InvestmentFact):
            self.investment(fact, source)
        elif isinstance(fact, InvestorFact):
            self.investors.investor(fact, source)
        elif isinstance(fact, FilingFact):
            self.filing(fact, source)
        elif isinstance(fact, FinancialFact):
            self.financials.merge(fact, source)
        elif isinstance(fact, NewsFact):
            if self.news is None:
                self.news = NewsMerger(self)
            self.news.merge(fact, source)
        else:  # pragma: no cover - importers only yield the facts above
            raise TypeError(f"unknown fact {fact!r}")
