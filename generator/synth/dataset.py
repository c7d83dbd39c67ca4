"""Synthetic canonical datasets of any size, for benchmarks and scale tests.

``synthesize(out, companies=N, seed=S)`` writes a dataset the loader accepts: every table of
``generator.dataset.schema.TABLES`` plus ``dataset.json`` (as of ``AS_OF``). The reference tables (sectors, countries,
exchanges) are copied from the tiny fixture; everything else is drawn from one ``random.Random(seed)``, so the
same arguments give byte-identical files and no wall-clock is involved.

Shapes follow real company data: sectors and countries are skewed (enterprise software and fintech, the US
first), valuations and round sizes follow power laws, investors' portfolios have a long tail (most investors
back one company, a few back hundreds), every IPO status occurs, and news and filings cluster around funding
and IPO events. Expected rows per company, roughly:

    funding_rounds 1.5, round_investors 3.1, investors 0.75, ipos 0.25, offerings 0.015,
    secondary_prices 0.75, filings 1.25, news 2.7, financials 0.95

Company status: 18 % public, 67 % private, 10 % acquired, 5 % closed.
"""

from __future__ import annotations

import bisect
import csv
import datetime as dt
import itertools
import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

from generator.dataset.schema import RESERVED_SLUGS, TABLES
from generator.synth.events import MarketEvents
from generator.synth.vocab import (
    _AS_OF,
    AS_OF,
    CITIES,
    CODAS,
    COUNTRY_WEIGHTS,
    GENERIC_SUFFIX,
    INVESTOR_SUFFIX,
    INVESTOR_TYPES,
    LISTING_KINDS,
    NAME_SUFFIX,
    NUMERIC_TICKER_DIGITS,
    PRIVATE_IPO_STATUSES,
    PUBLISHERS,
    SECTOR_WEIGHTS,
    STATUS_WEIGHTS,
    SYLLABLES,
    US_EXCHANGES,
    _iso,
    _money,
    _pick_table,
    _sig3,
)

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "tiny"
REFERENCE_TABLES = ("sectors", "countries", "exchanges")

_FIELDS = {table.name: tuple(table.model.model_fields) for table in TABLES}
_FIELD_SETS = {name: frozenset(fields) for name, fields in _FIELDS.items()}



class _Synth(MarketEvents):
    """One synthetic dataset being drawn; rows are tuples in the model's field order."""

    def __init__(self, rng: random.Random, reference: dict[str, list[dict[str, str]]], companies: int) -> None:
        self.rng = rng
        self.n = companies
        self.rows: dict[str, list[tuple]] = {name: [] for name in _FIELDS if name not in REFERENCE_TABLES}
        sectors = [r["slug"] for r in reference["sectors"]]
        self.sectors = _pick_table(tuple((s, SECTOR_WEIGHTS.get(s, 1)) for s in sectors))
        self.countries = _pick_table(tuple((r["code"], COUNTRY_WEIGHTS.get(r["code"], 0.3))
                                           for r in reference["countries"]))
        self.exchange_names = {r["slug"]: r["name"] for r in reference["exchanges"]}
        self.home_exchanges: dict[str, list[str]] = {}
        for r in reference["exchanges"]:
            self.home_exchanges.setdefault(r["country"], []).append(r["slug"])
        self.us_exchanges = _pick_table(US_EXCHANGES)
        self.slugs: set[str] = set()
        self.investor_slugs: set[str] = set()
        self.tickers: set[str] = set()
        self.next_cik = 1_000_000 + rng.randrange(1000)
        self.round_slots: list[tuple[int, int]] = []
        """(round id, number of investors) of every round; investors are dealt out at the end."""
        self.ids = dict.fromkeys(("funding_rounds", "ipos", "offerings", "filings", "news"), 0)

    # -- helpers ------------------------------------------------------------------------------------------------

    def add(self, table: str, **values: object) -> None:
        if not values.keys() <= _FIELD_SETS[table]:
            raise KeyError(f"{table}: unknown columns {sorted(values.keys() - _FIELD_SETS[table])}")
        self.rows[table].append(tuple(values.get(f) for f in _FIELDS[table]))

    def next_id(self, table: str) -> int:
        self.ids[table] += 1
        return self.ids[table]

    def choose(self, table: tuple[list[str], list[float]]) -> str:
        values, cumulative = table
        return values[bisect.bisect(cumulative, self.rng.random() * cumulative[-1])]

    def word(self, syllables: int) -> str:
        choice = self.rng.choice
        return ("".join(choice(SYLLABLES) for _ in range(syllables)) + choice(CODAS)).capitalize()

    def unique_name(self, make: Callable[[], str], used: set[str]) -> tuple[str, str]:
        while True:
            name = make()
            slug = "-".join(name.lower().split())
            if slug not in used and slug not in RESERVED_SLUGS and not slug.isdigit() and len(slug) > 2:
                used.add(slug)
                return name, slug

    def ticker(self, name: str, exchange: str) -> str:
        rng = self.rng
        digits = NUMERIC_TICKER_DIGITS.get(exchange)
        letters = "".join(ch for ch in name.upper() if "A" <= ch <= "Z")
        candidates = [] if digits else [letters[:4], letters[:3], letters[0] + letters[2:5], letters[:2] + letters[-2:]]
        for candidate in candidates:
            if len(candidate) >= 2 and candidate not in self.tickers:
                self.tickers.add(candidate)
                return candidate
        while True:
            if digits:
                candidate = str(rng.randrange(10 ** (digits - 1), 10**digits))
            else:
                candidate = letters[:2] + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
            if candidate not in self.tickers:
                self.tickers.add(candidate)
                return candidate

    def cik(self) -> int:
        self.next_cik += 1 + self.rng.randrange(300)
        return self.next_cik

    def day(self, start: int, end: int) -> int:
        """A day in [start, end] (ordinals), start clamped to end."""
        return end if start >= end else start + self.rng.randrange(end - start + 1)

    # -- investors ------------------------------------------------------------------------------------------------

    def investors(self) -> None:
        rng = self.rng
        count = max(12, round(self.n * 0.75))
        types = _pick_table(INVESTOR_TYPES)
        weights = []
        for investor_id in range(1, count + 1):
            kind = self.choose(types)
            if kind == "angel":
                name, slug = self.unique_name(lambda: f"{self.word(2)} {self.word(rng.choice((2, 3)))}",
                                              self.investor_slugs)
                website = None
            else:
                suffixes = INVESTOR_SUFFIX[kind]
                name, slug = self.unique_name(lambda s=suffixes: f"{self.word(rng.choice((2, 3)))} {rng.choice(s)}",
                                              self.investor_slugs)
                website = f"{slug.split('-')[0]}.{rng.choice(('com', 'vc', 'com', 'capital'))}"
            country = "us" if rng.random() < 0.5 else self.choose(self.countries)
            founded = 2024 - int(rng.expovariate(1 / 15)) if rng.random() < 0.8 else None
            self.add("investors", id=investor_id, slug=slug, name=name, type=kind, country=country,
                     founded_year=max(1850, founded) if founded else None,
                     website=website if rng.random() < 0.85 else None)
            # Portfolio weight: a power law (calibrated on Crunchbase 2013: over half of all investors back one
            # company, the busiest back hundreds); every investor also gets one round of its own.
            weights.append(min(1500.0, rng.paretovariate(0.7)))
        self.investor_weights = weights
        self.investor_cumulative = list(itertools.accumulate(weights))

    def investor(self) -> int:
        cumulative = self.investor_cumulative
        return bisect.bisect(cumulative, self.rng.random() * cumulative[-1]) + 1

    def companies(self) -> None:
        statuses = _pick_table(STATUS_WEIGHTS)
        self.listing_kinds = _pick_table(LISTING_KINDS)
        self.ipo_statuses = _pick_table(PRIVATE_IPO_STATUSES)
        # Every IPO status and offering kind occurs, even in a small dataset: the first draws take them in turn.
        self.forced_statuses = [s for s, _ in PRIVATE_IPO_STATUSES]
        self.forced_offerings = [("tender", "closed"), ("secondary", "open"), ("placement", "announced"),
                                 ("tender", "cancelled")]
        for company_id in range(1, self.n + 1):
            status = self.choose(statuses)
            if company_id <= 2:
                status = "public"  # a dataset without a public company would not be realistic at any size
            self.company(company_id, status)

    def company(self, company_id: int, status: str) -> None:
        rng = self.rng
        forced_statuses, forced_offerings = self.forced_statuses, self.forced_offerings
        sector = self.choose(self.sectors)
        country = self.choose(self.countries)
        suffixes = NAME_SUFFIX.get(sector, GENERIC_SUFFIX)

        def make_name() -> str:
            base = self.word(rng.choice((2, 2, 2, 3)))
            roll = rng.random()
            if roll < 0.3:
                return f"{base} {rng.choice(suffixes)}"
            if roll < 0.4:
                return f"{base} {rng.choice(GENERIC_SUFFIX)}"
            if roll < 0.5:
                return f"{base} {self.word(2)}"
            return base

        name, slug = self.unique_name(make_name, self.slugs)
        was_listed = status == "public" or (status == "acquired" and rng.random() < 0.25)
        listing_date = listing_kind = exchange = ticker = cik = None
        if was_listed:
            listing_date = max(dt.date(1980, 1, 2).toordinal(), _AS_OF - int(rng.expovariate(1 / 2600)))
            listing_kind = self.choose(self.listing_kinds)
            homes = self.home_exchanges.get(country, [])
            if country != "us" and homes and rng.random() < 0.6:
                exchange = rng.choice(homes)
            else:
                exchange = self.choose(self.us_exchanges)
            if status == "public":
                ticker = self.ticker(name, exchange)
            founded = dt.date.fromordinal(listing_date).year - 3 - int(rng.expovariate(1 / 9))
        else:
            founded = AS_OF.year - int(rng.expovariate(1 / 8))
        founded = max(1900, min(founded, AS_OF.year))
        us_listed = exchange in ("nasdaq", "nyse", "nyse-american")
        if us_listed or (country == "us" and status == "private" and rng.random() < 0.3):
            cik = self.cik()

        # Valuation: a power law; public companies are larger.
        valuation: int | None
        if status == "public":
            valuation = _sig3(min(4e12, 1e8 * rng.paretovariate(0.8)))
        elif status == "private" and rng.random() < 0.88 or status in ("acquired", "closed") and rng.random() < 0.4:
            valuation = _sig3(min(5e11, 1e7 * rng.paretovariate(0.8)))
        else:
            valuation = None

        rounds = self.funding(company_id, status, founded, valuation, listing_date)
        last_round = rounds[-1] if rounds else None
        valuation_date = basis = None
        if valuation is not None:
            if status == "public":
                valuation_date, basis = _AS_OF, "exchange-data"
            elif last_round is not None and last_round[1] is not None and status == "private":
                valuation = last_round[1]  # the latest disclosed post-money
                valuation_date, basis = last_round[0], "press-report"
            else:
                valuation_date = self.day(max(_AS_OF - 1500, dt.date(founded, 1, 1).toordinal()), _AS_OF)
                basis = "estimate"

        acquirer = acquired_date = acquisition_price = None
        if status == "acquired":
            acquirer = f"{self.word(2)} {rng.choice(('Corporation', 'Holdings', 'Group', 'Inc'))}"
            start = listing_date + 200 if listing_date else dt.date(founded + 1, 1, 1).toordinal()
            acquired_date = self.day(min(start, _AS_OF), _AS_OF)
            if rng.random() < 0.5:
                acquisition_price = _sig3((valuation or 2e7) * rng.uniform(0.5, 1.5))

        city = rng.choice(CITIES[country]) if country in CITIES and rng.random() < 0.92 else None
        sector_words = sector.replace("-", " ")
        self.add(
            "companies", id=company_id, slug=slug, name=name, sector=sector, country=country, status=status,
            founded_year=founded if rng.random() < 0.95 else None, headquarters_city=city,
            website=f"{slug.replace('-', '')}.{rng.choice(('com', 'com', 'io', 'ai', 'co'))}"
            if rng.random() < 0.95 else None,
            description=f"{name} is a {sector_words} company"
            + (f" based in {city}." if city else ".") if rng.random() < 0.9 else None,
            ticker=ticker, exchange=exchange if status == "public" else None, cik=cik,
            listing_date=_iso(listing_date) if listing_date else None, listing_kind=listing_kind,
            valuation_usd=valuation, valuation_date=_iso(valuation_date) if valuation_date else None,
            valuation_basis=basis, acquirer=acquirer, acquired_date=_iso(acquired_date) if acquired_date else None,
            acquisition_price_usd=acquisition_price,
        )

        filings: list[tuple[str, int, str]] = []
        news: list[tuple[int, str, str]] = []
        for date, post_money, amount, stage in rounds:
            if rng.random() < 0.5:
                headline = f"{name} raises {_money(amount)} in {stage.replace('-', ' ')} round" if amount else \
                    f"{name} closes {stage.replace('-', ' ')} round"
                tags = "funding"
                if post_money:
                    headline += f" at {_money(post_money)} valuation"
                    tags = "funding;valuation"
                news.append((date, headline, tags))
            if cik and status == "private" and rng.random() < 0.6:
                filings.append(("D", date + rng.randrange(15), "Notice of exempt offering of securities"))
        if was_listed:
            self.listed_ipo(company_id, name, exchange, ticker, listing_kind, listing_date, valuation, us_listed,
                            filings, news)
        if status in ("private", "acquired") or (status == "public" and rng.random() < 0.03):
            chance = 0.06 + (0.25 if (valuation or 0) >= 1e9 else 0) if status == "private" else 0.03
            if rng.random() < chance:
                ipo_status = forced_statuses.pop(0) if forced_statuses and status == "private" else \
                    self.choose(self.ipo_statuses)
                if status != "private":
                    ipo_status = "withdrawn"
                end = min(listing_date - 400, _AS_OF) if listing_date else _AS_OF
                self.private_ipo(company_id, name, country, ipo_status, end, cik, filings, news)
        if status == "private" and valuation is not None:
            chance = 0.2 if valuation >= 5e8 else 0.02
            while rng.random() < chance or (forced_offerings and valuation >= 5e8):
                self.offering(company_id, name, valuation, forced_offerings.pop(0) if forced_offerings else None,
                              news)
                chance /= 3
            if rng.random() < (0.35 if valuation >= 1e8 else 0.03):
                self.secondary_prices(company_id, valuation)
        if status == "acquired":
            news.append((acquired_date, f"{acquirer} to acquire {name}", "acquisition"))
        self.financials(company_id, status, sector, valuation, listing_date, us_listed)
        # Everyday news: a long tail, larger companies get more.
        extra = int(rng.paretovariate(1.6)) - 1 + (2 if (valuation or 0) >= 1e9 else 0)
        start = dt.date(max(founded, 2005), 1, 1).toordinal()
        for _ in range(min(extra, 40)):
            tag, headline = rng.choice((
                ("product", f"{name} launches {self.word(2)}"), ("leadership", f"{name} names new chief executive"),
                ("layoffs", f"{name} cuts {rng.randrange(3, 30)}% of staff"),
                ("regulation", f"Regulators open review of {name}"),
                ("earnings" if status == "public" else "product", f"{name} reports strong quarterly growth"),
            ))
            news.append((self.day(start, _AS_OF), headline, tag))
        for sequence, (form, date, description) in enumerate(filings, start=1):
            filed = dt.date.fromordinal(min(date, _AS_OF))
            # Accession numbers are unique because CIKs are: filer CIK, two-digit year, sequence of the filer.
            accession = f"{cik:010d}-{filed.year % 100:02d}-{sequence:06d}" if cik else None
            self.add("filings", id=self.next_id("filings"), company_id=company_id, form=form,
                     filed_date=filed.isoformat(), accession_number=accession, description=description)
        for date, headline, tags in news:
            self.add("news", id=self.next_id("news"), company_id=company_id, published_date=_iso(min(date, _AS_OF)),
                     headline=headline, tags=tags, publisher=rng.choice(PUBLISHERS) if rng.random() < 0.8 else None,
                     summary=f"{headline}, according to people familiar with the matter." if rng.random() < 0.3
                     else None)

def _read_reference(reference_dir: Path) -> dict[str, list[dict[str, str]]]:
    out = {}
    for name in REFERENCE_TABLES:
        with open(reference_dir / f"{name}.csv", encoding="utf-8", newline="") as handle:
            out[name] = list(csv.DictReader(handle))
    return out


def _key_function(table_name: str) -> Callable[[tuple], tuple]:
    (table,) = (t for t in TABLES if t.name == table_name)
    positions = [_FIELDS[table_name].index(column) for column in table.key]
    return lambda row: tuple(row[p] for p in positions)


def synthesize(out_dir: Path, companies: int, seed: int, reference_dir: Path = REFERENCE_DIR) -> dict[str, int]:
    """Write a synthetic dataset of ``companies`` companies into ``out_dir``; return the rows per table."""
    if companies < 1:
        raise ValueError("companies must be at least 1")
    rng = random.Random(seed)
    reference = _read_reference(reference_dir)
    synth = _Synth(rng, reference, companies)
    synth.investors()
    synth.companies()
    synth.deal_round_investors()

    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for name in REFERENCE_TABLES:
        shutil.copyfile(reference_dir / f"{name}.csv", out_dir / f"{name}.csv")
        counts[name] = len(reference[name])
    for name, rows in synth.rows.items():
        rows.sort(key=_key_function(name))
        with open(out_dir / f"{name}.csv", "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(_FIELDS[name])
            writer.writerows(rows)
        counts[name] = len(rows)
    info = {
        "title": f"Synthetic company & IPO dataset ({companies} companies, seed {seed})",
        "as_of": AS_OF.isoformat(),
        "disclaimer": "Synthetic data for benchmarks and tests: every company, person, figure and headline is "
        "made up. Figures are estimates in form only; check primary filings before relying on any real figure.",
        "license": "CC0 1.0 (generated data)",
        "sources": [f"python -m generator synth --companies {companies} --seed {seed}"],
    }
    (out_dir / "dataset.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return {name: counts[name] for name in _FIELDS}
