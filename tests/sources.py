"""Readers for the public reference files in ``../shared/data`` and per-field comparisons of the embedded dataset
with them (used by ``test_truth.py``). Every comparison returns a ``FieldCheck``: how many facts a source covers,
how many agree, and the disagreements spelled out."""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from generator.dataset.load import validate


@dataclass
class FieldCheck:
    name: str
    source: str
    checked: int = 0
    agreed: int = 0
    disagreements: list[str] = field(default_factory=list)

    def record(self, key: str, ours: object, theirs: object, agree: bool) -> None:
        self.checked += 1
        if agree:
            self.agreed += 1
        else:
            self.disagreements.append(f"{key}: ours {ours!r}, {self.source} {theirs!r}")

    @property
    def rate(self) -> float:
        return self.agreed / self.checked if self.checked else 1.0

    def line(self) -> str:
        return f"{self.name:<28} {self.source:<22} {self.agreed:>4}/{self.checked:<4} {self.rate:6.1%}"


def dataset(data: Path) -> dict[str, list[dict]]:
    _, parsed = validate(data)
    return {name: p.rows for name, p in parsed.items()}


def norm(name: str) -> str:
    """A company name for matching across files: lowercase words, common legal suffixes dropped."""
    words = re.findall(r"[a-z0-9]+", name.lower().replace("&", " and "))
    drop = {"inc", "corp", "corporation", "ltd", "limited", "plc", "co", "holdings", "holding", "group", "sa", "ag",
            "nv", "the", "llc", "class", "a", "ordinary", "shares", "common", "stock", "technologies"}
    return " ".join(w for w in words if w not in drop)


def _money(text: str) -> float | None:
    text = text.replace("$", "").replace(",", "").replace(" ", "").strip()
    try:
        return float(text) if text else None
    except ValueError:  # ranges such as '4.00-6.00' in the calendar: no single figure
        return None


def _mdy(text: str, two_digit: bool = False) -> dt.date | None:
    text = text.strip()
    if not text:
        return None
    return dt.datetime.strptime(text, "%m-%d-%y" if two_digit else "%m/%d/%Y").date()


@cache
def sec_tickers(shared: Path) -> dict[str, set[int]]:
    """Ticker -> CIKs from both SEC ticker lists (2023)."""
    out: dict[str, set[int]] = {}
    for row in json.loads((shared / "edgar" / "company_tickers.json").read_text()).values():
        out.setdefault(row["ticker"], set()).add(int(row["cik_str"]))
    exchange = json.loads((shared / "edgar" / "company_tickers_exchange.json").read_text())
    for cik, _name, ticker, _exchange in exchange["data"]:
        out.setdefault(ticker, set()).add(int(cik))
    return out


@cache
def nasdaq_priced(shared: Path) -> dict[str, dict]:
    """Priced IPOs 2021-2025 by ticker: date, offer price (cents), shares, dollar value."""
    out = {}
    with open(shared / "nasdaq-ipos-2021-2025" / "nasdaq_ipos_merged.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            if row["dealStatus"] != "Priced" or not row["proposedTickerSymbol_x"]:
                continue
            out[row["proposedTickerSymbol_x"]] = {
                "date": _mdy(row["pricedDate"]), "name": row["companyName_x"],
                "price_cents": round((_money(row["proposedSharePrice"]) or 0) * 100) or None,
                "shares": int(_money(row["sharesOffered"]) or 0) or None,
                "value": _money(row["dollarValueOfSharesOffered_x"]),
            }
    return out


@cache
def iposcoop(shared: Path) -> dict[str, list[dict]]:
    """Completed US IPOs 2000-2018 by symbol: trade date, offer price and first-day close (cents)."""
    out: dict[str, list[dict]] = {}
    with open(shared / "iposcoop-ipos-2000-2018" / "ipos.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            try:
                date = _mdy(row["Trade Date"], two_digit=True)
                price, close = _money(row["Offer Price"]), _money(row["1st Day Close"])
            except ValueError:
                continue
            out.setdefault(row["Symbol"].strip(), []).append({
                "date": date, "name": row["Issuer"].strip(),
                "price_cents": round(price * 100) if price else None,
                "close_cents": round(close * 100) if close else None,
            })
    return out


@cache
def cb_unicorns(shared: Path) -> dict[str, dict]:
    """CB Insights unicorns (2025-01-07) by normalised name: valuation (USD), date joined, country, city."""
    out = {}
    with open(shared / "unicorns" / "cbinsights_unicorns_2025-01-07.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            joined = dt.datetime.strptime(row["date_joined_ddmmyy"], "%d/%m/%y").date()
            out[norm(row["company"])] = {"name": row["company"], "valuation": float(row["valuation_usd_b"]) * 1e9,
                                         "joined": joined, "country": row["country"], "city": row["city"].strip()}
    return out


@cache
def maven_unicorns(shared: Path) -> dict[str, dict]:
    """Maven Analytics unicorns (2022-03) by normalised name: founded year, city, country."""
    out = {}
    with open(shared / "unicorns" / "maven_unicorns_2022-03.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter=";"):
            founded = row["Year Founded"].strip()
            out[norm(row["Company"])] = {"name": row["Company"], "founded": int(founded) if founded else None,
                                         "city": row["City"].strip(), "country": row["Country"].strip()}
    return out


@cache
def crunchbase_2013(shared: Path) -> dict[str, dict]:
    """Crunchbase 2013 companies by normalised name: founded year and city (US companies only)."""
    out = {}
    path = shared / "crunchbase-2013" / "crunchbase-companies.csv"
    with open(path, encoding="mac_roman", newline="") as f:
        for row in csv.DictReader(f):
            founded = row["founded_year"].strip()
            out.setdefault(norm(row["name"]), {"name": row["name"], "founded": int(founded) if founded else None,
                                               "city": row["city"].strip()})
    return out


@cache
def edgar_index(shared: Path) -> tuple[dict[str, tuple[int, str, dt.date]], set[dt.date]]:
    """Accession number -> (filer CIK, form, date) from the two EDGAR index files, and the dates they cover."""
    out: dict[str, tuple[int, str, dt.date]] = {}
    line = re.compile(r"^(\S.*?)\s{2,}.*?\s(\d+)\s+(\d{4}-\d{2}-\d{2})\s+edgar/data/\d+/(\S+)\.txt\s*$")
    for text in (shared / "edgar" / "form_2023_QTR2_partial.idx").read_text(encoding="latin-1").splitlines():
        if m := line.match(text):
            out[m[4]] = (int(m[2]), m[1].strip(), dt.date.fromisoformat(m[3]))
    for text in (shared / "edgar" / "master.20200103.idx").read_text(encoding="latin-1").splitlines():
        parts = text.split("|")
        if len(parts) == 5 and parts[0].isdigit():
            accession = parts[4].rsplit("/", 1)[-1].removesuffix(".txt")
            out[accession] = (int(parts[0]), parts[2], dt.datetime.strptime(parts[3], "%Y%m%d").date())
    per_day = Counter(d for _, _, d in out.values())
    return out, {d for d, n in per_day.items() if n >= 100}  # a few stray older dates are not full days


@cache
def crunchbase_rounds(shared: Path) -> dict[str, list[dict]]:
    """Crunchbase 2013 rounds by normalised company name: type, date, amount; and investors per (name, date)."""
    out: dict[str, list[dict]] = {}
    with open(shared / "crunchbase-2013" / "crunchbase-rounds.csv", encoding="mac_roman", newline="") as f:
        for row in csv.DictReader(f):
            try:
                date = dt.date.fromisoformat(row["funded_at"])
            except ValueError:
                continue
            amount = row["raised_amount_usd"].strip()
            out.setdefault(norm(row["company_name"]), []).append(
                {"type": row["funding_round_type"], "date": date, "amount": int(float(amount)) if amount else None})
    return out


@cache
def crunchbase_investors(shared: Path) -> dict[str, list[tuple[dt.date, str]]]:
    """Crunchbase 2013 investments by normalised company name: (date, normalised investor name)."""
    out: dict[str, list[tuple[dt.date, str]]] = {}
    path = shared / "crunchbase-2013-investments" / "investments.csv"
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            try:
                date = dt.date.fromisoformat(row["funded_when"])
            except ValueError:
                continue
            out.setdefault(norm(row["company_name"]), []).append((date, norm(row["investor_name"])))
    return out


_CB_STAGE = {"series-a": "series-a", "series-b": "series-b", "angel": "seed"}


def _rounds_2013(tables: dict[str, list[dict]], companies: dict[int, dict], shared: Path) -> list[FieldCheck]:
    """Rounds up to Crunchbase's cut-off (2013-10): date, amount, stage and investors against the 2013 export."""
    rounds, investments = crunchbase_rounds(shared), crunchbase_investors(shared)
    investors = {i["id"]: i for i in tables["investors"]}
    by_round: dict[int, list[int]] = {}
    for ri in tables["round_investors"]:
        by_round.setdefault(ri["round_id"], []).append(ri["investor_id"])
    date, amount = FieldCheck("round date (+-31 d)", "Crunchbase 2013"), FieldCheck("round amount", "Crunchbase 2013")
    stage, backer = FieldCheck("round stage", "Crunchbase 2013"), FieldCheck("round investor", "Crunchbase 2013")
    for r in tables["funding_rounds"]:
        c = companies[r["company_id"]]
        key = norm(c["name"])
        if r["announced_date"] > dt.date(2013, 9, 30) or key not in rounds:
            continue
        label = f"{c['name']} round {r['id']} ({r['stage']}, {r['announced_date']})"
        near = [x for x in rounds[key] if abs((x["date"] - r["announced_date"]).days) <= 45]
        if r["amount_usd"]:
            same = [x for x in rounds[key] if x["amount"] and abs(x["amount"] / r["amount_usd"] - 1) <= 0.1
                    and abs((x["date"] - r["announced_date"]).days) <= 400]
            if same:  # matched on the amount: is the date the reported one?
                closest = min(same, key=lambda x: abs((x["date"] - r["announced_date"]).days))
                date.record(label, r["announced_date"], closest["date"],
                            abs((closest["date"] - r["announced_date"]).days) <= 31)
        if not near:
            continue
        theirs = min(near, key=lambda x: abs((x["date"] - r["announced_date"]).days))  # matched on the date
        if r["amount_usd"] and theirs["amount"]:
            amount.record(label, r["amount_usd"], theirs["amount"], abs(theirs["amount"] / r["amount_usd"] - 1) <= 0.1)
        if theirs["type"] in _CB_STAGE or theirs["type"] == "series-c+":
            wanted = _CB_STAGE.get(theirs["type"])
            ok = r["stage"] == wanted if wanted else r["stage"] not in ("seed", "series-a", "series-b")
            stage.record(label, r["stage"], theirs["type"], ok)
        names = {n for d, n in investments.get(key, []) if abs((d - theirs["date"]).days) <= 31}
        if not names:
            continue
        for investor_id in by_round.get(r["id"], []):
            name = norm(investors[investor_id]["name"])
            backer.record(f"{label}: {investors[investor_id]['name']}", name, sorted(names),
                          any(name in n or n in name for n in names))
    return [date, amount, stage, backer]


def _city(text: str | None) -> str:
    return re.sub(r"[^a-z]", "", (text or "").lower().replace("saint", "st"))


def compare(tables: dict[str, list[dict]], shared: Path) -> list[FieldCheck]:
    """Every per-field comparison of the embedded dataset with the reference files."""
    companies = {c["id"]: c for c in tables["companies"]}
    checks = []

    cik = FieldCheck("ticker -> cik", "SEC ticker lists")
    sec = sec_tickers(shared)
    for c in companies.values():
        if c["ticker"] in sec and c["cik"] is not None:
            cik.record(f"{c['name']} ({c['ticker']})", c["cik"], sorted(sec[c["ticker"]]), c["cik"] in sec[c["ticker"]])
    checks.append(cik)

    nasdaq = nasdaq_priced(shared)
    n_date, n_price = FieldCheck("ipo date", "Nasdaq 2021-2025"), FieldCheck("ipo offer price", "Nasdaq 2021-2025")
    n_shares, n_value = FieldCheck("ipo shares", "Nasdaq 2021-2025"), FieldCheck("ipo proceeds", "Nasdaq 2021-2025")
    scoop = iposcoop(shared)
    s_date, s_price = FieldCheck("ipo date", "IPOScoop 2000-2018"), FieldCheck("ipo offer price", "IPOScoop 2000-2018")
    s_close = FieldCheck("ipo first-day close", "IPOScoop 2000-2018")
    for ipo in tables["ipos"]:
        listed = ipo["listing_date"] or ipo["priced_date"]
        if ipo["status"] != "listed" or listed is None or ipo["listing_kind"] != "ipo":
            continue
        key = f"{companies[ipo['company_id']]['name']} ({ipo['ticker']}, ipo {ipo['id']})"
        dates = {d for d in (ipo["priced_date"], ipo["listing_date"]) if d}
        theirs = nasdaq.get(ipo["ticker"] or "")
        if theirs and abs((theirs["date"] - listed).days) <= 60:
            n_date.record(key, sorted(dates), theirs["date"], theirs["date"] in dates)
            if ipo["offer_price_cents"] is not None:
                n_price.record(key, ipo["offer_price_cents"], theirs["price_cents"],
                               ipo["offer_price_cents"] == theirs["price_cents"])
            if ipo["shares_offered"] is not None and theirs["shares"]:
                n_shares.record(key, ipo["shares_offered"], theirs["shares"], ipo["shares_offered"] == theirs["shares"])
            if ipo["proceeds_usd"] is not None and theirs["value"]:
                # the calendar's dollar value is price x base shares; proceeds may include the over-allotment (15 %)
                ratio = ipo["proceeds_usd"] / theirs["value"]
                n_value.record(key, ipo["proceeds_usd"], theirs["value"], 0.99 <= ratio <= 1.151)
        for theirs in scoop.get(ipo["ticker"] or "", []):
            if abs((theirs["date"] - listed).days) > 60:
                continue
            s_date.record(key, sorted(dates), theirs["date"], theirs["date"] in dates)
            if ipo["offer_price_cents"] is not None and theirs["price_cents"]:
                s_price.record(key, ipo["offer_price_cents"], theirs["price_cents"],
                               ipo["offer_price_cents"] == theirs["price_cents"])
            if ipo["first_day_close_cents"] is not None and theirs["close_cents"]:
                s_close.record(key, ipo["first_day_close_cents"], theirs["close_cents"],
                               abs(ipo["first_day_close_cents"] - theirs["close_cents"]) <= 1)
    checks += [n_date, n_price, n_shares, n_value, s_date, s_price, s_close]

    index, covered = edgar_index(shared)
    filed = FieldCheck("filing accession+CIK+form", "EDGAR indexes")
    for f in tables["filings"]:
        if f["filed_date"] not in covered or f["accession_number"] is None:
            continue
        c = companies[f["company_id"]]
        filer = f["filer_cik"] or c["cik"]
        theirs = index.get(f["accession_number"])
        filed.record(f"{c['name']} filing {f['id']}", (filer, f["form"], f["filed_date"]), theirs,
                     theirs == (filer, f["form"], f["filed_date"]))
    checks.append(filed)
    checks += _rounds_2013(tables, companies, shared)
    checks += _unicorns(tables, companies, shared)
    return checks


def _valuations_on(tables: dict[str, list[dict]], company_id: int, day: dt.date) -> list[tuple[dt.date, int]]:
    """Every valuation on record for a company dated on or before ``day``: rounds, offerings, the company row."""
    out = [(r["announced_date"], r["post_money_valuation_usd"]) for r in tables["funding_rounds"]
           if r["company_id"] == company_id and r["post_money_valuation_usd"]]
    out += [(o["announced_date"], o["implied_valuation_usd"]) for o in tables["offerings"]
            if o["company_id"] == company_id and o["implied_valuation_usd"]]
    c = next(c for c in tables["companies"] if c["id"] == company_id)
    if c["valuation_usd"] and c["valuation_date"]:
        out.append((c["valuation_date"], c["valuation_usd"]))
    return sorted(v for v in out if v[0] <= day)


def _unicorns(tables: dict[str, list[dict]], companies: dict[int, dict], shared: Path) -> list[FieldCheck]:
    cb, maven, crunch = cb_unicorns(shared), maven_unicorns(shared), crunchbase_2013(shared)
    as_of_cb = dt.date(2025, 1, 7)
    valuation = FieldCheck("unicorn valuation", "CB Insights 2025-01")
    joined = FieldCheck("unicorn: not $1B+ earlier", "CB Insights 2025-01")
    date_joined = FieldCheck("unicorn date joined", "CB Insights 2025-01")
    founded = FieldCheck("founded year", "Maven+Crunchbase")
    city = FieldCheck("headquarters city", "CB Insights+Maven")
    country = FieldCheck("headquarters country", "CB Insights+Maven")
    country_names = {n["name"].lower(): n["code"] for n in tables["countries"]}
    for c in companies.values():
        key = norm(c["name"])
        theirs = cb.get(key)
        if theirs and c["status"] == "private":
            history = _valuations_on(tables, c["id"], as_of_cb)
            if history:
                latest = history[-1][1]
                valuation.record(c["name"], latest, theirs["valuation"],
                                 abs(latest / theirs["valuation"] - 1) <= 0.10)
            first = next((d for d, v in _valuations_on(tables, c["id"], dt.date.max) if v >= 1e9), None)
            if first is not None:
                # we may lack the round that made it a unicorn, so a later first $1B figure is consistent; an
                # earlier one (by more than a month) contradicts the source
                joined.record(c["name"], first, theirs["joined"], (theirs["joined"] - first).days <= 31)
        if theirs and c.get("unicorn_date") is not None:
            date_joined.record(c["name"], c["unicorn_date"], theirs["joined"],
                               abs((c["unicorn_date"] - theirs["joined"]).days) <= 31)
        years = {src[key]["founded"] for src in (maven, crunch) if key in src and src[key]["founded"]}
        if key in maven and len(years) == 1 and c["founded_year"] is not None:
            (year,) = years
            founded.record(c["name"], c["founded_year"], year, c["founded_year"] == year)
        agree = key in cb and key in maven and _city(cb[key]["city"]) == _city(maven[key]["city"])
        if agree and c["headquarters_city"]:
            city.record(c["name"], c["headquarters_city"], cb[key]["city"],
                        _city(c["headquarters_city"]) == _city(cb[key]["city"]))
        if key in cb and key in maven and cb[key]["country"] == maven[key]["country"]:
            theirs = country_names.get(cb[key]["country"].lower())
            if theirs:
                country.record(c["name"], c["country"], cb[key]["country"], c["country"] == theirs)
    return [valuation, joined, date_joined, founded, city, country]
