"""Synthetic canonical datasets of any size, for benchmarks and scale tests.

``synthesize(out, companies=N, seed=S)`` writes a dataset the loader accepts: every table of
``generator.schema.TABLES`` plus ``dataset.json`` (as of ``AS_OF``). The reference tables (sectors, countries,
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
import math
import random
import shutil
from collections.abc import Callable
from pathlib import Path

from generator.schema import TABLES

AS_OF = dt.date(2025, 6, 30)
REFERENCE_DIR = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "tiny"
REFERENCE_TABLES = ("sectors", "countries", "exchanges")
RESERVED_SLUGS = frozenset({"sector", "country", "minvaluation", "sort", "page", "q", "all", "index", "errors"})

_AS_OF = AS_OF.toordinal()
_FIELDS = {table.name: tuple(table.model.model_fields) for table in TABLES}
_FIELD_SETS = {name: frozenset(fields) for name, fields in _FIELDS.items()}

# --- skews -------------------------------------------------------------------------------------------------------

SECTOR_WEIGHTS = {
    "enterprise-software": 18, "fintech": 14, "health-tech": 9, "consumer-internet": 9,
    "artificial-intelligence": 8, "e-commerce": 7, "biotech": 7, "hardware": 4, "cybersecurity": 4,
    "mobility": 4, "climate-energy": 4, "media-entertainment": 3, "edtech": 3, "crypto": 3, "consumer-goods": 3,
    "semiconductors": 2, "travel": 2, "space-defense": 1,
}
COUNTRY_WEIGHTS = {
    "us": 48, "cn": 9, "gb": 6, "in": 5, "de": 4, "fr": 3, "ca": 3, "il": 2.5, "sg": 2, "jp": 2, "kr": 2,
    "se": 1.5, "nl": 1.2, "br": 1.2, "au": 1.2, "ch": 1, "es": 1, "id": 0.8, "ie": 0.6, "fi": 0.5, "dk": 0.5,
}
"""Countries not named here weigh 0.3."""
US_EXCHANGES = (("nasdaq", 55), ("nyse", 40), ("nyse-american", 5))
NUMERIC_TICKER_DIGITS = {"hkex": 4, "tse": 4, "twse": 4, "krx": 6, "sse": 6, "szse": 6}
STATUS_WEIGHTS = (("public", 18), ("private", 67), ("acquired", 10), ("closed", 5))
LISTING_KINDS = (("ipo", 85), ("direct-listing", 4), ("spac-merger", 11))
PRIVATE_IPO_STATUSES = (("pipeline", 35), ("filed", 20), ("upcoming", 12), ("withdrawn", 15), ("postponed", 18))
INVESTOR_TYPES = (
    ("vc", 45), ("angel", 15), ("corporate", 8), ("growth", 6), ("accelerator", 5), ("private-equity", 5),
    ("family-office", 4), ("hedge-fund", 3), ("asset-manager", 3), ("crossover", 2), ("bank", 2), ("sovereign", 2),
)
INVESTOR_SUFFIX = {
    "vc": ("Ventures", "Capital", "Partners", "Venture Partners"), "growth": ("Growth", "Growth Partners"),
    "corporate": ("Corporate Ventures", "Ventures"), "sovereign": ("Investment Authority", "Sovereign Fund"),
    "crossover": ("Management", "Investors"), "private-equity": ("Equity Partners", "Private Equity"),
    "hedge-fund": ("Capital Management", "Fund"), "asset-manager": ("Asset Management", "Investments"),
    "accelerator": ("Accelerator", "Launchpad"), "bank": ("Bank",), "family-office": ("Family Office",),
}
STAGES = ("pre-seed", "seed", "series-a", "series-b", "series-c", "series-d", "series-e", "series-f", "series-g",
          "series-h", "series-i", "series-j")
SIDE_STAGES = ("debt", "convertible-note", "grant", "corporate", "undisclosed", "growth", "private-equity")
ROUND_BASIS = (("press-report", 70), ("company-report", 15), ("sec-filing", 10), ("estimate", 5))
NAME_SUFFIX = {
    "artificial-intelligence": ("AI", "Labs", "Intelligence"), "biotech": ("Bio", "Therapeutics", "Biosciences"),
    "climate-energy": ("Energy", "Power", "Climate"), "consumer-goods": ("Brands", "Goods", "Foods"),
    "consumer-internet": ("App", "Social"), "crypto": ("Chain", "Protocol", "Exchange"),
    "cybersecurity": ("Security", "Shield", "Defense"), "e-commerce": ("Market", "Shop", "Commerce"),
    "edtech": ("Learning", "Academy", "Education"), "enterprise-software": ("Software", "Cloud", "Systems", "Data"),
    "fintech": ("Pay", "Financial", "Bank", "Capital"), "hardware": ("Devices", "Robotics", "Instruments"),
    "health-tech": ("Health", "Care", "Medical"), "media-entertainment": ("Media", "Games", "Studios"),
    "mobility": ("Motors", "Mobility", "Logistics"), "semiconductors": ("Semiconductor", "Micro", "Silicon"),
    "space-defense": ("Space", "Aerospace", "Orbital"), "travel": ("Travel", "Trips", "Stays"),
}
GENERIC_SUFFIX = ("Labs", "Technologies", "Group", "Inc", "Works", "Networks")
GROSS_MARGIN = {"enterprise-software": 0.75, "cybersecurity": 0.75, "consumer-internet": 0.6, "fintech": 0.55,
                "hardware": 0.35, "consumer-goods": 0.4, "mobility": 0.2, "semiconductors": 0.5, "e-commerce": 0.4}
CITIES = {
    "us": ("San Francisco", "New York", "Austin", "Boston", "Seattle", "Los Angeles", "Palo Alto", "Chicago"),
    "cn": ("Beijing", "Shanghai", "Shenzhen", "Hangzhou"), "gb": ("London", "Cambridge", "Manchester"),
    "in": ("Bengaluru", "Mumbai", "Gurugram"), "de": ("Berlin", "Munich", "Hamburg"), "fr": ("Paris", "Lyon"),
    "ca": ("Toronto", "Vancouver", "Montreal"), "il": ("Tel Aviv", "Haifa"), "jp": ("Tokyo", "Osaka"),
    "kr": ("Seoul",), "br": ("Sao Paulo",), "au": ("Sydney", "Melbourne"), "se": ("Stockholm",),
}
"""Other countries get their capital-less default: no city (null)."""
PUBLISHERS = ("Market Wire", "The Daily Ledger", "Tech Dispatch", "Capital Journal", "Venture Report",
              "Global Business Review", "Deal Street", "The Listing Desk")

# --- names -------------------------------------------------------------------------------------------------------

_ONSETS = ("b", "br", "c", "cl", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr",
           "qu", "r", "s", "st", "sk", "t", "tr", "v", "w", "z", "")
_NUCLEI = ("a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y")
SYLLABLES = tuple(o + n for o in _ONSETS for n in _NUCLEI)
"""Open syllables; only a word's last syllable may close with a coda, which keeps names pronounceable."""
CODAS = ("", "", "", "n", "r", "s", "x", "l", "m", "t", "k", "nd", "st")


def _pick_table(pairs: tuple[tuple[str, float], ...]) -> tuple[list[str], list[float]]:
    values = [v for v, _ in pairs]
    return values, list(itertools.accumulate(w for _, w in pairs))


def _iso(ordinal: int) -> str:
    return dt.date.fromordinal(ordinal).isoformat()


def _sig3(value: float) -> int:
    """Round to three significant digits, as reported figures are."""
    if value < 1000:
        return max(1, int(value))
    scale = 10 ** (int(math.log10(value)) - 2)
    return int(round(value / scale)) * scale


def _money(usd: int) -> str:
    if usd >= 1_000_000_000:
        return f"${usd / 1e9:.1f} billion"
    if usd >= 1_000_000:
        return f"${usd / 1e6:.0f} million"
    return f"${usd:,}"


class _Synth:
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

    def deal_round_investors(self) -> None:
        """Give every round its investors: each investor at least once, the rest by portfolio weight."""
        rng = self.rng
        slots = [round_id for round_id, k in self.round_slots for _ in range(k)]
        picks = [self.investor() for _ in slots]
        investors = list(range(1, len(self.investor_cumulative) + 1))
        rng.shuffle(investors)
        positions = list(range(len(slots)))
        rng.shuffle(positions)
        for position, investor_id in zip(positions, investors, strict=False):
            picks[position] = investor_id
        by_round: dict[int, list[int]] = {}
        for round_id, investor_id in zip(slots, picks, strict=True):
            members = by_round.setdefault(round_id, [])
            for _ in range(5):
                if investor_id not in members:
                    members.append(investor_id)
                    break
                investor_id = self.investor()
        weights = self.investor_weights
        for round_id in sorted(by_round):
            members = by_round[round_id]
            lead = None
            if rng.random() < 0.85:  # the investor with the largest portfolio leads the round
                lead = max(members, key=lambda i: (weights[i - 1], i))
            for investor_id in sorted(members):
                self.add("round_investors", round_id=round_id, investor_id=investor_id,
                         is_lead="true" if investor_id == lead else "false")

    # -- companies ------------------------------------------------------------------------------------------------

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

    def funding(self, company_id: int, status: str, founded: int, valuation: int | None,
                listing_date: int | None) -> list[tuple[int, int | None, int | None, str]]:
        """Draw the company's rounds; return (date, post-money, amount, stage) oldest first."""
        rng = self.rng
        size = valuation or 1e7 * rng.paretovariate(1.2)
        if status == "public":
            size /= rng.uniform(2, 20)  # market value has grown since the last private round
        count = max(0, round(math.log(max(size, 1e6) / 1e7) / math.log(2.8) + rng.uniform(-0.5, 1.5)))
        if status != "private":
            count = min(count, rng.randrange(0, 6))
        count = min(count, 14)
        if count == 0:
            return []
        start = max(dt.date(founded, 1, 1).toordinal() + rng.randrange(540), dt.date(1995, 1, 1).toordinal())
        end = listing_date - 60 if listing_date else _AS_OF - int(rng.expovariate(1 / 500))
        end = min(max(end, start), _AS_OF)
        dates = sorted(self.day(start, end) for _ in range(count))
        first_stage = 0 if rng.random() < 0.3 else 1 if rng.random() < 0.7 else 2
        rounds = []
        post_money = float(size) * rng.uniform(0.6, 1.0)
        stage_index = min(first_stage + count - 1, len(STAGES) - 1)
        for position in range(count - 1, -1, -1):  # newest first: post-money falls going back in time
            if rng.random() < 0.12:
                stage = rng.choice(SIDE_STAGES)
            else:
                stage = STAGES[max(0, stage_index)]
                stage_index -= 1
            small = 0.1 if stage in ("grant", "convertible-note") else 1.0
            amount = _sig3(post_money * rng.uniform(0.08, 0.25) * small)
            disclosed_post = _sig3(post_money) if rng.random() < 0.6 and stage not in ("debt", "grant") else None
            rounds.append((dates[position], disclosed_post, amount if rng.random() < 0.9 else None, stage))
            post_money /= rng.uniform(1.6, 3.5)
        rounds.reverse()
        basis_table = _pick_table(ROUND_BASIS)
        for date, post, amount, stage in rounds:
            round_id = self.next_id("funding_rounds")
            self.add("funding_rounds", id=round_id, company_id=company_id, stage=stage, announced_date=_iso(date),
                     amount_usd=amount, post_money_valuation_usd=post, basis=self.choose(basis_table))
            k = 1 + int(rng.expovariate(1 / (0.6 + 0.5 * min(STAGES.index(stage) if stage in STAGES else 2, 6))))
            self.round_slots.append((round_id, min(k, 15)))
        return rounds

    def listed_ipo(self, company_id, name, exchange, ticker, kind, listing_date, valuation, us_listed,
                   filings, news) -> None:
        rng = self.rng
        filed = listing_date - 30 - rng.randrange(120)
        low = rng.randrange(500, 4000) // 100 * 100
        high = low + rng.choice((100, 200, 200, 300, 500))
        priced = listing_date - (1 if rng.random() < 0.8 else 0)
        offer = shares = proceeds = first_close = None
        cap = valuation or _sig3(1e8 * rng.paretovariate(0.9))
        if kind == "ipo":
            offer = max(100, int(rng.uniform(low * 0.85, high * 1.2)))
            proceeds = _sig3(cap * rng.uniform(0.05, 0.2))
            shares = proceeds * 100 // offer
            first_close = max(1, int(offer * (1 + rng.gauss(0.15, 0.3))))
        elif kind == "direct-listing":
            first_close = rng.randrange(500, 10000)
        self.add("ipos", id=self.next_id("ipos"), company_id=company_id, status="listed", exchange=exchange,
                 ticker=ticker, listing_kind=kind, filed_date=_iso(filed),
                 priced_date=_iso(priced) if kind == "ipo" else None, listing_date=_iso(listing_date),
                 price_range_low_cents=low if kind == "ipo" else None,
                 price_range_high_cents=high if kind == "ipo" else None, offer_price_cents=offer,
                 shares_offered=shares, proceeds_usd=proceeds,
                 valuation_at_ipo_usd=_sig3(cap * rng.uniform(0.3, 1.2)) if rng.random() < 0.8 else None,
                 first_day_close_cents=first_close, basis="sec-filing" if us_listed else "exchange-data")
        exchange_name = self.exchange_names[exchange]
        if us_listed:
            foreign = rng.random() < 0.15
            if kind == "spac-merger":
                filings.append(("S-4", filed, "Registration statement for business combination"))
            else:
                filings.append(("F-1" if foreign else "S-1", filed, "Registration statement"))
                for _ in range(rng.randrange(3)):
                    filings.append(("F-1/A" if foreign else "S-1/A", self.day(filed, priced),
                                    "Amended registration statement"))
                if kind == "ipo":
                    filings.append(("424B4", priced, "Final prospectus"))
            first_year = dt.date.fromordinal(listing_date).year
            for year in range(max(first_year, AS_OF.year - 5), AS_OF.year):
                filings.append(("20-F" if foreign else "10-K", dt.date(year + 1, 2, 10).toordinal() + rng.randrange(50),
                                f"Annual report for fiscal {year}"))
            for _ in range(rng.randrange(3)):
                filings.append(("8-K", self.day(listing_date, _AS_OF), "Current report"))
        if kind == "spac-merger":
            news.append((filed, f"{name} to go public via SPAC merger", "spac;ipo"))
        else:
            news.append((filed, f"{name} files for IPO on {exchange_name}", "ipo;filing"))
        if offer:
            news.append((priced, f"{name} prices IPO at ${offer / 100:.2f} per share", "ipo;pricing"))
        news.append((listing_date, f"{name} shares begin trading on {exchange_name}", "ipo;listing"))

    def private_ipo(self, company_id, name, country, status, end, cik, filings, news) -> None:
        rng = self.rng
        homes = self.home_exchanges.get(country, [])
        exchange = rng.choice(homes) if homes and country != "us" and rng.random() < 0.5 else \
            self.choose(self.us_exchanges)
        row: dict[str, object] = {"exchange": exchange, "basis": "press-report"}
        announced = filed = None
        if status == "pipeline":
            announced = self.day(end - 540, end)
            row["exchange"] = None
        else:
            filed = self.day(end - (180 if status == "upcoming" else 1500), end)
            if rng.random() < 0.4:
                announced = filed - rng.randrange(30, 300)
            row["ticker"] = self.ticker(name, exchange)
            row["basis"] = "sec-filing" if exchange in ("nasdaq", "nyse", "nyse-american") else "press-report"
        row["announced_date"] = _iso(announced) if announced else None
        row["filed_date"] = _iso(filed) if filed else None
        news_date = announced if status == "pipeline" else filed
        if status == "upcoming":
            row["expected_date"] = _iso(_AS_OF + 1 + rng.randrange(90))  # after as_of: allowed
            low = rng.randrange(800, 3000) // 100 * 100
            row.update(price_range_low_cents=low, price_range_high_cents=low + 200,
                       shares_offered=rng.randrange(5, 60) * 1_000_000)
        elif status == "withdrawn":
            news_date = self.day(filed + 30, min(filed + 600, end))
            row["withdrawn_date"] = _iso(news_date)
        elif status == "postponed":
            news_date = self.day(filed + 20, min(filed + 400, end))
            row["postponed_date"] = _iso(news_date)
        self.add("ipos", id=self.next_id("ipos"), company_id=company_id, status=status, listing_kind="ipo", **row)
        if filed and row["basis"] == "sec-filing":
            if cik is None:
                return  # filings are only recorded for companies with a CIK
            if rng.random() < 0.5:
                filings.append(("DRS", filed - rng.randrange(30, 120), "Draft registration statement"))
            filings.append(("S-1", filed, "Registration statement"))
            if status == "withdrawn":
                filings.append(("RW", news_date, "Registration withdrawal request"))
        tags = {"pipeline": "ipo", "filed": "ipo;filing", "upcoming": "ipo;filing", "withdrawn": "ipo;withdrawal",
                "postponed": "ipo;withdrawal"}[status]
        verb = {"pipeline": "is preparing an IPO", "filed": "files for IPO", "upcoming": "sets terms for IPO",
                "withdrawn": "withdraws IPO filing", "postponed": "postpones IPO"}[status]
        news.append((news_date, f"{name} {verb}", tags))

    def offering(self, company_id, name, valuation, forced, news) -> None:
        rng = self.rng
        kind, status = forced or (
            rng.choice(("tender", "tender", "secondary", "secondary", "placement")),
            rng.choice(("closed", "closed", "closed", "closed", "announced", "open", "cancelled")),
        )
        announced = self.day(_AS_OF - 1460, _AS_OF)
        close = None
        if status == "closed":
            close = min(announced + rng.randrange(60), _AS_OF)
        elif status == "open":
            close = announced + 30 + rng.randrange(60)  # may lie after as_of: allowed
        implied = _sig3(valuation * rng.uniform(0.7, 1.3))
        amount = _sig3(min(implied * 0.2, 5e6 * rng.paretovariate(1.2)))
        self.add("offerings", id=self.next_id("offerings"), company_id=company_id, kind=kind, status=status,
                 announced_date=_iso(announced), close_date=_iso(close) if close else None,
                 price_per_share_cents=rng.randrange(100, 50000) if kind == "tender" and rng.random() < 0.7 else None,
                 amount_usd=amount if rng.random() < 0.8 else None, implied_valuation_usd=implied,
                 lead_investor_id=self.investor() if rng.random() < 0.4 else None,
                 description={"tender": "Employee tender offer", "secondary": "Secondary share sale",
                              "placement": "Private placement"}[kind],
                 basis=rng.choice(("press-report", "press-report", "company-report", "estimate")))
        if kind == "tender":
            news.append((announced, f"{name} tender offer values company at {_money(implied)}", "tender;valuation"))
        else:
            news.append((announced, f"{name} {kind} share sale values company at {_money(implied)}",
                         "secondary;valuation"))

    def secondary_prices(self, company_id: int, valuation: int) -> None:
        rng = self.rng
        year, month = AS_OF.year, AS_OF.month
        lag = int(rng.expovariate(1 / 3))
        months = 6 + int(rng.expovariate(1 / 10))
        index = year * 12 + month - 1 - min(lag, 12)
        value = math.log(valuation)
        points = []
        for step in range(min(months, 48)):
            points.append((index - step, _sig3(math.exp(value))))
            value -= rng.gauss(0.01, 0.08)
        for month_index, implied in reversed(points):
            self.add("secondary_prices", company_id=company_id,
                     month=f"{month_index // 12:04d}-{month_index % 12 + 1:02d}-01", implied_valuation_usd=implied,
                     basis="estimate")

    def financials(self, company_id, status, sector, valuation, listing_date, us_listed) -> None:
        rng = self.rng
        if status == "public":
            first = max(dt.date.fromordinal(listing_date).year - 2, AS_OF.year - 5)
            years = range(first, AS_OF.year)
            basis = "sec-filing" if us_listed else "company-report"
        elif status == "private" and valuation is not None and rng.random() < 0.2:
            years = range(AS_OF.year - rng.choice((1, 1, 2)), AS_OF.year)
            basis = "estimate"
        else:
            return
        revenue = (valuation or 1e8) / math.exp(rng.gauss(1.6, 0.6))
        series = []
        for year in reversed(years):
            series.append((year, revenue))
            revenue /= 1 + max(-0.4, rng.gauss(0.2, 0.2))
        margin = GROSS_MARGIN.get(sector, 0.5)
        for year, revenue in reversed(series):
            detailed = basis != "estimate"
            net = int(revenue * max(-2.0, min(0.4, rng.gauss(-0.05, 0.15)))) if detailed else None
            self.add("financials", company_id=company_id, fiscal_year=year, revenue_usd=_sig3(revenue),
                     net_income_usd=net,
                     operating_income_usd=int(net + revenue * rng.gauss(0.03, 0.04)) if net is not None else None,
                     gross_margin=f"{max(-1.0, min(0.95, rng.gauss(margin, 0.08))):.2f}" if detailed else None,
                     employees=int(revenue / rng.uniform(150_000, 600_000)) if rng.random() < 0.8 else None,
                     basis=basis)


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
