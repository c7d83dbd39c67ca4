"""Recorded-style monthly answers of Nasdaq's IPO calendar API for the fixture server (tests/sec_fixture.py).

``tests/fixtures/nasdaq-calendar/`` holds three months, July to September 2025, in the shape of
``https://api.nasdaq.com/api/ipo/calendar?date=YYYY-MM`` (docs/sources.md says where the shape comes from).
``derive`` wrote them from the rows of ``../shared/data/nasdaq-ipos-2021-2025`` (which were scraped from that
API): a month's priced table is the pricings priced in it, its filed table the filings filed in it, in the
files' order. September exists twice: as it stood on 2025-09-18 (``2025-09.json``, the CSVs' last day) and on
2025-09-11 (``2025-09-as-of-2025-09-11.json``), when the deals priced from the 12th on were still upcoming
(expected on the day they priced, at the price they priced at). The CSVs have no withdrawn deal: the two
withdrawn rows are invented, of companies that do not exist ("Fixture Withdrawn Bio Inc.", filed in July and
withdrawn on 2025-09-16; "Fixture Shelved Holdings Ltd", filed in November 2024 and withdrawn in August).

``python -m tests.nasdaq_fixture [SHARED_DATA] [OUT]`` writes the files again.

The stock screener's answers (``https://api.nasdaq.com/api/screener/stocks?tableonly=true&download=true&exchange=X``)
are derived at test time from the screener's recorded CSV download (``../shared/data/nasdaq-screener``, 6,928 rows
of 2025-05-23): the CSV is that answer's ``data.rows`` with the ``data.headers`` titles as its header, so each row
becomes an object of the API's keys (docs/sources.md says where they come from) with the CSV's strings, plus the
``url`` the API adds. The CSV names no exchange: a row goes to ``nasdaq`` or ``nyse`` when EDGAR's exchange list of
May 2023 (``../shared/data/edgar/company_tickers_exchange.json``) puts its symbol there, and to ``amex`` otherwise
(newer listings, preferreds, units; a stand-in for NYSE American's list, not that list).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "nasdaq-calendar"
CALENDAR = "api/ipo/calendar"
"""The API's path; ``?date=YYYY-MM`` picks the month."""
SCREENER = "api/screener/stocks"
BROWSER = ("/api/ipo/", "/api/screener/")
"""Nasdaq's API paths, which the fixture server serves as Nasdaq does (data.sec.gov has an /api/ of its own)."""
SCREENER_HEADERS = {"symbol": "Symbol", "name": "Name", "lastsale": "Last Sale", "netchange": "Net Change",
                    "pctchange": "% Change", "marketCap": "Market Cap", "country": "Country", "ipoyear": "IPO Year",
                    "volume": "Volume", "sector": "Sector", "industry": "Industry", "url": "Url"}
"""The answer's ``data.headers``: the CSV download's columns are their titles, in this order."""
ROW_KEYS = ("symbol", "name", "lastsale", "netchange", "pctchange", "volume", "marketCap", "country", "ipoyear",
            "industry", "sector", "url")
"""The keys of a row, in the order public clients' recorded rows show them."""
MONTHS = ("2025-07", "2025-08", "2025-09")
EARLY, FINAL = dt.date(2025, 9, 11), dt.date(2025, 9, 18)
EARLY_FILE = "2025-09-as-of-2025-09-11.json"
HEADERS = {
    "priced": {"proposedTickerSymbol": "Symbol", "companyName": "Company Name", "proposedExchange":
               "Exchange/ Market", "proposedSharePrice": "Price", "sharesOffered": "Shares", "pricedDate": "Date",
               "dollarValueOfSharesOffered": "Offer Amount", "dealStatus": "Actions"},
    "upcoming": {"proposedTickerSymbol": "Symbol", "companyName": "Company Name", "proposedExchange":
                 "Exchange/ Market", "proposedSharePrice": "Price", "sharesOffered": "Shares", "expectedPriceDate":
                 "Expected IPO Date", "dollarValueOfSharesOffered": "Offer Amount"},
    "filed": {"proposedTickerSymbol": "Symbol", "companyName": "Company Name", "filedDate": "Date Filed",
              "dollarValueOfSharesOffered": "Offer Amount"},
    "withdrawn": {"proposedTickerSymbol": "Symbol", "companyName": "Company Name", "proposedExchange":
                  "Exchange/ Market", "sharesOffered": "Shares", "filedDate": "Date Filed",
                  "dollarValueOfSharesOffered": "Offer Amount", "withdrawDate": "Date Withdrawn"},
}
INVENTED_FILING = {"dealID": "9000001-900001", "proposedTickerSymbol": "FXWB",
                   "companyName": "Fixture Withdrawn Bio Inc.", "filedDate": "7/14/2025",
                   "dollarValueOfSharesOffered": "$15,000,000"}
INVENTED_WITHDRAWALS = [
    {"dealID": "9000002-900002", "proposedTickerSymbol": None, "companyName": "Fixture Shelved Holdings Ltd",
     "proposedExchange": None, "sharesOffered": "", "filedDate": "11/20/2024",
     "dollarValueOfSharesOffered": "$8,000,000", "withdrawDate": "8/05/2025"},
    {"dealID": "9000001-900001", "proposedTickerSymbol": None, "companyName": "Fixture Withdrawn Bio Inc.",
     "proposedExchange": None, "sharesOffered": "3,000,000", "filedDate": "7/14/2025",
     "dollarValueOfSharesOffered": "$15,000,000", "withdrawDate": "9/16/2025"},
]
HTML_PAGE = b"<!DOCTYPE html><html><head><title>Access Denied</title></head><body>Access Denied</body></html>\n"
"""What a bot filter in front of the API answers instead of JSON."""


def _day(text: str) -> dt.date:
    month, day, year = text.split("/")
    return dt.date(int(year), int(month), int(day))


def _api_date(day: dt.date) -> str:
    """The API's M/DD/YYYY (month not padded, day padded)."""
    return f"{day.month}/{day.day:02d}/{day.year}"


def document(month: str, as_of: dt.date, tables: dict[str, list[dict[str, str | None]]]) -> bytes:
    """One month's answer: every table (empty ones with null headers and rows), the status block, one row a line."""
    year, number = (int(part) for part in month.split("-"))

    def table(name: str) -> dict[str, object]:
        rows = tables.get(name) or None
        return {"asOf": None, "headers": HEADERS[name] if rows else None, "rows": rows}

    empty = [name for name in ("priced", "upcoming", "filed", "withdrawn") if not tables.get(name)]
    last = next((len(tables[n]) for n in ("withdrawn", "filed", "upcoming", "priced") if tables.get(n)), 0)
    answer = {
        "data": {"priced": table("priced"),
                 "upcoming": {"upcomingTable": table("upcoming"),
                              "lastUpdatedTime": f"LAST UPDATED: {as_of:%m/%d/%Y}* - Source: EDGAR\u00ae Online"},
                 "filed": table("filed"), "withdrawn": table("withdrawn"),
                 "month": number, "year": year, "totalResults": last},
        "message": None,
        "status": {"rCode": 200, "bCodeMessage": [
            {"code": 1002, "errorMessage": f"{name.title()}:No record found."} for name in empty] or None,
            "developerMessage": None},
    }
    text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    return (text.replace('},{"dealID"', '},\n{"dealID"').replace('"rows":[{', '"rows":[\n{') + "\n").encode()


def empty_month(month: str, as_of: dt.date) -> bytes:
    return document(month, as_of, {})


def error_answer(message: str = "Invalid date") -> bytes:
    """An answer without a calendar (``data`` null), as the API gives for a request it cannot serve."""
    return json.dumps({"data": None, "message": None, "status": {
        "rCode": 400, "bCodeMessage": [{"code": 1001, "errorMessage": message}], "developerMessage": None}}).encode()


def derive(shared: Path, out: Path) -> list[Path]:
    folder = shared / "nasdaq-ipos-2021-2025"
    with open(folder / "nasdaq_ipos_pricings.csv", encoding="utf-8", newline="") as handle:
        pricings = list(csv.DictReader(handle))
    with open(folder / "nasdaq_ipos_filings.csv", encoding="utf-8", newline="") as handle:
        filings = list(csv.DictReader(handle))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for month, as_of, name in [*((m, FINAL, f"{m}.json") for m in MONTHS), (MONTHS[-1], EARLY, EARLY_FILE)]:
        priced = [row for row in pricings if f"{_day(row['pricedDate']):%Y-%m}" == month]
        filed = [row for row in filings if f"{_day(row['filedDate']):%Y-%m}" == month
                 and _day(row["filedDate"]) <= as_of]
        if month == "2025-07":
            filed.append(INVENTED_FILING)
        withdrawn = [row for row in INVENTED_WITHDRAWALS if _day(row["withdrawDate"]).strftime("%Y-%m") == month
                     and _day(row["withdrawDate"]) <= as_of]
        upcoming = [{"dealID": row["dealID"], **{key: row.get(key, "") for key in HEADERS["upcoming"]},
                     "expectedPriceDate": _api_date(_day(row["pricedDate"]))}
                    for row in priced if _day(row["pricedDate"]) > as_of]
        priced = [row for row in priced if _day(row["pricedDate"]) <= as_of]
        body = document(month, as_of, {"priced": priced, "upcoming": upcoming, "filed": filed,
                                       "withdrawn": withdrawn})
        (out / name).write_bytes(body)
        written.append(out / name)
    return written


def calendar_tree(root: Path, months: dict[str, bytes]) -> Path:
    """The API's layout under ``root`` for the fixture server: ``?date=YYYY-MM`` answered with ``months[month]``."""
    folder = root / CALENDAR
    folder.mkdir(parents=True, exist_ok=True)
    for month, body in months.items():
        (folder / f"date={month}").write_bytes(body)
    return root


def screener_query(exchange: str) -> str:
    return f"tableonly=true&download=true&exchange={exchange}"


def screener_answers(shared: Path, rows: int | None = None) -> dict[str, bytes]:
    """The screener's answer for each exchange (nasdaq, nyse, amex), derived from the recorded CSV (see above);
    ``rows``: only the first that many of each exchange."""
    listing = json.loads((shared / "edgar" / "company_tickers_exchange.json").read_bytes())
    exchange_of = {ticker: {"Nasdaq": "nasdaq", "NYSE": "nyse"}.get(exchange, "amex")
                   for _, _, ticker, exchange in listing["data"]}
    titles = {title: key for key, title in SCREENER_HEADERS.items()}
    tables: dict[str, list[dict[str, str]]] = {"nasdaq": [], "nyse": [], "amex": []}
    with open(shared / "nasdaq-screener" / "nasdaq_screener_2025-05-23.csv", encoding="utf-8", newline="") as handle:
        for record in csv.DictReader(handle):
            row = {titles[title]: value for title, value in record.items()}
            row["url"] = f"/market-activity/stocks/{row['symbol'].lower()}"
            tables[exchange_of.get(row["symbol"].replace("/", "-"), "amex")].append({key: row[key] for key in ROW_KEYS})
    return {exchange: (json.dumps({"data": {"asOf": None, "headers": SCREENER_HEADERS, "rows": table[:rows]},
                                   "message": None,
                                   "status": {"rCode": 200, "bCodeMessage": None, "developerMessage": None}},
                                  ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            for exchange, table in tables.items()}


def screener_tree(root: Path, answers: dict[str, bytes]) -> Path:
    """The screener's layout under ``root``: ``?tableonly=true&download=true&exchange=X`` answered with
    ``answers[X]``."""
    folder = root / SCREENER
    folder.mkdir(parents=True, exist_ok=True)
    for exchange, body in answers.items():
        (folder / screener_query(exchange)).write_bytes(body)
    return root


def fixture_months(early: bool = False) -> dict[str, bytes]:
    """The three fixture months as the API answered on 2025-09-18 (``early``: on 2025-09-11)."""
    months = {month: (FIXTURES / f"{month}.json").read_bytes() for month in MONTHS}
    if early:
        months[MONTHS[-1]] = (FIXTURES / EARLY_FILE).read_bytes()
    return months


if __name__ == "__main__":
    arguments = sys.argv[1:]
    shared = Path(arguments[0]) if arguments else ROOT.parent / "shared" / "data"
    for path in derive(shared, Path(arguments[1]) if len(arguments) > 1 else FIXTURES):
        print(path, path.stat().st_size)
