"""Identity counts of an imported canonical folder, each measured against the raw files or the folder itself (used
by ``test_entities.py``; ``python -m tests.entities FOLDER [SHARED_DATA]`` prints them for any folder).

- ``rows landed apart``: rows of the unicorn lists whose name, headquarters city and (CB Insights) valuation (or a
  market value since the list: the unicorn listed) do not sit together on one record: a record that carries values
  from two companies disagreeing on the city;
- ``shared cik``: CIKs on two records or more;
- ``shared (ticker, date)``: a ticker listed on one day (within 5 days) by two records or more;
- ``private with listed IPO``: private records with a listed IPO and no acquisition after it;
- ``repeated rounds``: a record's rounds repeating date and amount;
- ``former name on another record, not listed``: a name one record had (aliases.csv) that is another record's name
  in its country, where ``identity-review.csv`` does not list the pair for a person to decide;
- ``news without source``: news items that name neither a feed's publisher and URL nor the record they were compiled
  from (``origin`` compiled: a linked record, or the company record itself).
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import sys
from collections import defaultdict
from pathlib import Path


def rows(folder: Path, table: str) -> list[dict[str, str]]:
    path = folder / f"{table}.csv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _name(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("&", " and "))
    drop = {"inc", "incorporated", "corp", "corporation", "ltd", "limited", "co", "company", "llc", "plc", "the",
            "holdings", "holding", "group", "ag", "sa", "nv", "se", "lp"}  # legal forms, as the importers drop them
    return " ".join(w for w in words if w not in drop)


def _city(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower().replace("saint", "st"))


def unicorn_rows(shared: Path) -> list[dict[str, object]]:
    """Every row of the two unicorn lists: name, city, valuation (CB Insights only: the newer list), date joined."""
    out: list[dict[str, object]] = []
    with (shared / "unicorns" / "cbinsights_unicorns_2025-01-07.csv").open(encoding="utf-8", newline="") as f:
        for n, row in enumerate(csv.DictReader(f), start=2):
            joined = dt.datetime.strptime(row["date_joined_ddmmyy"], "%d/%m/%y").date().isoformat()
            out.append({"line": f"CB Insights line {n}", "name": row["company"], "city": row["city"].strip(),
                        "valuation": str(round(float(row["valuation_usd_b"]) * 1e9)), "joined": joined})
    with (shared / "unicorns" / "maven_unicorns_2022-03.csv").open(encoding="utf-8", newline="") as f:
        for n, row in enumerate(csv.DictReader(f, delimiter=";"), start=2):
            joined = dt.datetime.strptime(row["Date Joined"], "%d.%m.%Y").date().isoformat()
            out.append({"line": f"Maven line {n}", "name": row["Company"], "city": row["City"].strip(),
                        "valuation": "", "joined": joined})
    return out


def _listed_since(record: dict[str, str], row: dict[str, object]) -> bool:
    """The record's valuation is a market value dated after the list (the unicorn listed since: its private mark is
    no longer its current valuation)."""
    return record["valuation_basis"] == "market-cap" and record["valuation_date"] > "2025-01-07"


def landed_apart(folder: Path, shared: Path) -> list[str]:
    by_name: dict[str, list[dict[str, str]]] = defaultdict(list)
    for company in rows(folder, "companies"):
        by_name[_name(company["name"])].append(company)
    out = []
    for row in unicorn_rows(shared):
        records = by_name.get(_name(str(row["name"])), [])
        together = [r for r in records if (not row["city"] or _city(r["headquarters_city"]) == _city(str(row["city"])))
                    and (not row["valuation"] or r["valuation_usd"] == row["valuation"] or _listed_since(r, row))]
        if records and not together:
            out.append(f"{row['line']}: {row['name']} ({row['city']}) on "
                       + ", ".join(f"{r['slug']} ({r['headquarters_city']})" for r in records))
    return out


def shared_ciks(folder: Path) -> list[str]:
    seen: dict[str, list[str]] = defaultdict(list)
    for company in rows(folder, "companies"):
        if company["cik"]:
            seen[company["cik"]].append(company["slug"])
    return [f"CIK {cik}: {', '.join(slugs)}" for cik, slugs in seen.items() if len(slugs) > 1]


def _tickers_of_two_deals(shared: Path) -> set[tuple[str, str]]:
    """(ticker, pricing day) that two Nasdaq deals of the raw files give (WPCAU for Warburg Pincus Capital Corp I-A
    and I-B, two SPACs priced the same day: the source's quirk, two companies)."""
    days: dict[tuple[str, str], int] = defaultdict(int)
    for deal in _nasdaq_deals(shared).values():
        if "pricedDate" in deal:
            days[(deal["ticker"], deal["pricedDate"])] += 1
    return {key for key, n in days.items() if n > 1}


def shared_listings(folder: Path, shared: Path) -> list[str]:
    """A ticker listed by two records within 5 days of each other (unless two deals of the source give it)."""
    quirks = _tickers_of_two_deals(shared)
    by_ticker: dict[str, list[tuple[dt.date, str]]] = defaultdict(list)
    for ipo in rows(folder, "ipos"):
        if ipo["status"] == "listed" and ipo["ticker"] and ipo["listing_date"]:
            by_ticker[ipo["ticker"]].append((dt.date.fromisoformat(ipo["listing_date"]), ipo["company_id"]))
    out = []
    for ticker, held in by_ticker.items():
        held.sort()
        for (d1, c1), (d2, c2) in zip(held, held[1:], strict=False):
            if c1 != c2 and (d2 - d1).days <= 5 and (ticker, d1.isoformat()) not in quirks:
                out.append(f"{ticker} {d1}: companies {c1} and {c2}")
    return out


def private_with_listing(folder: Path) -> list[str]:
    companies = {c["id"]: c for c in rows(folder, "companies")}
    out = set()
    for ipo in rows(folder, "ipos"):
        company = companies[ipo["company_id"]]
        after = company["acquired_date"] and company["acquired_date"] >= (ipo["listing_date"] or "")
        if ipo["status"] == "listed" and company["status"] == "private" and not after:
            out.add(f"{company['slug']} ({ipo['ticker']}, listed {ipo['listing_date']})")
    return sorted(out)


def repeated_rounds(folder: Path) -> list[str]:
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in rows(folder, "funding_rounds"):
        if r["amount_usd"]:
            seen[(r["company_id"], r["announced_date"], r["amount_usd"])] += 1
    return [f"company {c} {d} ${a}: {n} rounds" for (c, d, a), n in seen.items() if n > 1]


def shared_former_names(folder: Path) -> list[str]:
    companies = {c["id"]: c for c in rows(folder, "companies")}
    by_name: dict[str, list[dict[str, str]]] = defaultdict(list)
    for company in companies.values():
        by_name[_name(company["name"])].append(company)
    listed = {frozenset((r["slug"], r["other_slug"])) for r in rows(folder, "identity-review")}
    out = []
    for alias in rows(folder, "aliases"):
        owner = companies[alias["company_id"]]
        for other in by_name.get(_name(alias["alias"]), []) if alias["kind"] == "name" else []:
            same_country = other["country"] in ("", "xx", owner["country"]) or owner["country"] in ("", "xx")
            if other["id"] != owner["id"] and same_country and frozenset((other["slug"], owner["slug"])) not in listed:
                out.append(f"{alias['alias']!r} of {owner['slug']} is {other['slug']}'s name")
    return out


def news_without_source(folder: Path) -> list[str]:
    out = []
    for item in rows(folder, "news"):
        origin = item.get("origin")
        sourced = (origin == "feed" and item["publisher"] and item["article_url"]) or origin == "compiled"
        if not sourced:
            out.append(f"news {item['id']}: {item['headline']}")
    return out


def _nasdaq_deals(shared: Path) -> dict[str, dict[str, str]]:
    """Each Nasdaq deal of the shared CSV files by its ID: its ticker, filing date and pricing date (ISO)."""
    deals: dict[str, dict[str, str]] = defaultdict(dict)
    folder = shared / "nasdaq-ipos-2021-2025"
    for name, column in (("nasdaq_ipos_pricings.csv", "pricedDate"), ("nasdaq_ipos_filings.csv", "filedDate")):
        with (folder / name).open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                day = dt.datetime.strptime(row[column].strip(), "%m/%d/%Y").date().isoformat()
                deal = deals[row["dealID"]]
                deal[column] = day
                deal.setdefault("ticker", row["proposedTickerSymbol"].strip().upper())
                deal.setdefault("name", row["companyName"].strip())
    return deals


def _deal_rows(folder: Path, shared: Path) -> list[tuple[str, dict[str, str], list[dict[str, str]]]]:
    """(deal ID, deal, the IPO rows that carry it) for every Nasdaq deal that was filed and priced: the rows of its
    ticker filed on its filing day or listed within 5 days of its pricing."""
    by_ticker: dict[str, list[dict[str, str]]] = defaultdict(list)
    for ipo in rows(folder, "ipos"):
        if ipo["ticker"]:
            by_ticker[ipo["ticker"]].append(ipo)
    out = []
    for deal_id, deal in sorted(_nasdaq_deals(shared).items()):
        if "pricedDate" not in deal or "filedDate" not in deal:
            continue
        priced = dt.date.fromisoformat(deal["pricedDate"])
        carried = [i for i in by_ticker.get(deal["ticker"], []) if i["filed_date"] == deal["filedDate"] or (
            i["status"] == "listed" and i["listing_date"]
            and abs((dt.date.fromisoformat(i["listing_date"]) - priced).days) <= 5)]
        out.append((deal_id, deal, carried))
    return out


def split_deals(folder: Path, shared: Path) -> list[str]:
    """A Nasdaq deal whose filing and pricing sit on two records: one deal is one IPO of one company (its filing
    names the company, often by a later name; its pricing by its ticker)."""
    quirks = _tickers_of_two_deals(shared)
    return [f"deal {deal_id} {deal['ticker']} ({deal['name']}): on {sorted({i['company_id'] for i in carried})}"
            for deal_id, deal, carried in _deal_rows(folder, shared) if len({i["company_id"] for i in carried}) > 1
            and (deal["ticker"], deal["pricedDate"]) not in quirks]


def deals_twice(folder: Path, shared: Path) -> list[str]:
    """A Nasdaq deal on two IPO rows of one record (the same IPO twice)."""
    return [f"deal {deal_id} {deal['ticker']}: IPO rows {sorted(i['id'] for i in carried)}"
            for deal_id, deal, carried in _deal_rows(folder, shared)
            if len(carried) > 1 and len({i["company_id"] for i in carried}) == 1]


def rounds_before_founding(folder: Path) -> list[str]:
    """Unicorns with a funding round dated before the year they were founded: two companies on one record (a 2013
    Crunchbase company of the same name). Crunchbase's own records that date a round a little before their
    founding year are the source's inconsistency, not two companies: only unicorn-list records are counted."""
    founded = {c["id"]: (c["founded_year"], c["slug"]) for c in rows(folder, "companies")
               if c["founded_year"] and c["unicorn_date"]}
    out = set()
    for r in rows(folder, "funding_rounds"):
        year, slug = founded.get(r["company_id"], ("", ""))
        if year and r["announced_date"][:4] < year:
            out.add(f"{slug} (founded {year}): a round of {r['announced_date']}")
    return sorted(out)


_NUMBERED = re.compile(r"\b(i{1,3}|iv|v|vi{0,3}|ix|x|[1-9])\b$")


def numbered_spacs_joined(folder: Path) -> list[str]:
    """A blank-check record with two listed IPOs under two tickers more than 180 days apart: a blank check lists
    once, so two are a sponsor's numbered vehicles (Hennessy I and II) or two SPACs of one name years apart."""
    by_company: dict[str, list[dict[str, str]]] = defaultdict(list)
    for ipo in rows(folder, "ipos"):
        if ipo["status"] == "listed" and ipo["listing_date"]:
            by_company[ipo["company_id"]].append(ipo)
    companies = {c["id"]: c for c in rows(folder, "companies")}
    out = []
    for key, ipos in by_company.items():
        days = sorted(dt.date.fromisoformat(i["listing_date"]) for i in ipos)
        blank = companies[key]["sector"] == "blank-check" or "acquisition" in companies[key]["name"].lower()
        tickers = {i["ticker"] for i in ipos}
        if blank and len(tickers) > 1 and (days[-1] - days[0]).days > 180:
            out.append(f"{companies[key]['slug']}: listed {', '.join(map(str, days))}")
    return out


def public_at_private_mark(folder: Path) -> list[str]:
    """Public companies whose current valuation is not a market value (a private mark, an estimate)."""
    return [f"{c['slug']} ({c['valuation_basis']} {c['valuation_date']})" for c in rows(folder, "companies")
            if c["status"] == "public" and c["valuation_usd"] and c["valuation_basis"] != "market-cap"
            and c["valuation_is_current"] != "false"]


def listed_after_closing(folder: Path) -> list[str]:
    """Acquired or closed companies with a listing after their acquisition (or any listing, for closed ones with
    a market value): the record's own events say it is listed."""
    listed: dict[str, str] = {}
    for ipo in rows(folder, "ipos"):
        if ipo["status"] == "listed" and ipo["listing_date"] > listed.get(ipo["company_id"], ""):
            listed[ipo["company_id"]] = ipo["listing_date"]
    return [f"{c['slug']} ({c['status']} {c['acquired_date']}, listed {listed[c['id']]})"
            for c in rows(folder, "companies") if c["status"] == "acquired" and c["acquired_date"]
            and listed.get(c["id"], "") > c["acquired_date"]]


CIK_FLOORS = ((1_600_000, 2013), (1_450_000, 2008), (1_300_000, 2003))
"""Coarse and independent of the importer's table: CIKs from 1,600,000 were first assigned in 2014, from
1,450,000 in 2009, from 1,300,000 in 2004 (EDGAR assigns them in sequence); a year's slack below each."""


def listed_before_its_cik(folder: Path, shared: Path) -> list[str]:
    """A listed IPO on a record whose CIK the SEC assigned years after the listing, under a name that is not the
    record's: another company's listing under a ticker the record's company reused (Cogent Systems' 2004 COGT on
    Cogent Biosciences). A company reorganised under its name keeps its listing (Accenture plc, CIK of 2009)."""
    companies = {c["id"]: c for c in rows(folder, "companies")}
    named = {(ticker.replace("'", "."), day): name for _, ticker, day, name in _ipo_names(shared)}
    out = []
    for ipo in rows(folder, "ipos"):
        company = companies[ipo["company_id"]]
        if ipo["status"] != "listed" or not ipo["listing_date"] or not company["cik"]:
            continue
        name = named.get((ipo["ticker"], ipo["listing_date"]))
        if name is None or _name(name) == _name(company["name"]):
            continue
        floor = next((year for lowest, year in CIK_FLOORS if int(company["cik"]) >= lowest), None)
        if floor is not None and int(ipo["listing_date"][:4]) < floor - 1:
            out.append(f"{ipo['ticker']} listed {ipo['listing_date']} on {company['slug']} (CIK {company['cik']})")
    return sorted(out)


def _ipo_names(shared: Path) -> list[tuple[str, str, str, str]]:
    """(source line, ticker, listing date, the company's name at its IPO) of the IPO histories' listed rows."""
    out = []
    with (shared / "iposcoop-ipos-2000-2018" / "ipos.csv").open(encoding="utf-8", newline="") as handle:
        for n, row in enumerate(csv.DictReader(handle), start=2):
            day = dt.datetime.strptime(row["Trade Date"].strip(), "%m-%d-%y").date().isoformat()
            out.append((f"IPOScoop line {n}", row["Symbol"].strip().upper(), day, row["Issuer"].strip()))
    for deal_id, deal in _nasdaq_deals(shared).items():
        if "pricedDate" in deal:
            out.append((f"Nasdaq deal {deal_id}", deal["ticker"], deal["pricedDate"], deal["name"]))
    return out


def ipo_names_lost(folder: Path, shared: Path) -> list[str]:
    """A listed IPO on a company whose name then is neither its name nor one of its aliases (normalised): the name
    of the time lost (ULTA Salon Cosmetics & Fragrance on Ulta Beauty)."""
    companies = {c["id"]: c for c in rows(folder, "companies")}
    names: dict[str, set[str]] = defaultdict(set)
    for company in companies.values():
        names[company["id"]].add(_name(company["name"]))
    for alias in rows(folder, "aliases"):
        if alias["kind"] == "name":
            names[alias["company_id"]].add(_name(alias["alias"]))
    listed = {(i["ticker"], i["listing_date"]): i["company_id"] for i in rows(folder, "ipos")
              if i["status"] == "listed" and i["ticker"] and i["listing_date"]}
    quirks = _tickers_of_two_deals(shared)  # two deals, one ticker, one day: which row is whose is unknown
    out = []
    for line, ticker, day, name in _ipo_names(shared):
        company = listed.get((ticker.replace("'", "."), day)) if (ticker, day) not in quirks else None
        if company is not None and _name(name) not in names[company]:
            out.append(f"{line}: {name} ({ticker} {day}) on {companies[company]['name']}")
    return out


COUNTS = {
    "rows landed apart": landed_apart,
    "shared cik": shared_ciks,
    "shared (ticker, date)": shared_listings,
    "private with listed IPO": private_with_listing,
    "repeated rounds": repeated_rounds,
    "former name on another record, not listed": shared_former_names,
    "news without source": news_without_source,
    "deals split over two records": split_deals,
    "the same IPO twice": deals_twice,
    "IPOs on a company under a name that is neither its name nor an alias": ipo_names_lost,
    "unicorns with rounds before their founding": rounds_before_founding,
    "numbered SPACs joined": numbered_spacs_joined,
    "public companies at a private mark": public_at_private_mark,
    "acquired companies listed later": listed_after_closing,
    "IPOs listed before their company's CIK was assigned": listed_before_its_cik,
}
WITH_SHARED = frozenset({"rows landed apart", "IPOs listed before their company's CIK was assigned",
                         "shared (ticker, date)", "deals split over two records", "the same IPO twice",
                         "IPOs on a company under a name that is neither its name nor an alias"})
"""Counts measured against the raw files as well as the folder."""


def measure(folder: Path, shared: Path) -> dict[str, list[str]]:
    return {name: (f(folder, shared) if name in WITH_SHARED else f(folder))  # type: ignore[operator]
            for name, f in COUNTS.items()}


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    shared = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent.parent / "shared/data"
    for name, found in measure(folder, shared).items():
        print(f"{name}: {len(found)}" + "".join(f"\n    {line}" for line in found[:8]))
