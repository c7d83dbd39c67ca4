"""What each source is: its URLs, where a download lands in a run's folder, and which documents a run asks for.

SEC EDGAR (public domain, documented at https://www.sec.gov/os/accessing-edgar-data and
https://www.sec.gov/edgar/sec-api-documentation):

- ``edgar-tickers``: ``www.sec.gov/files/company_tickers.json`` and ``company_tickers_exchange.json``.
- ``edgar-daily-index``: ``www.sec.gov/Archives/edgar/daily-index/YYYY/QTRn/master.YYYYMMDD.idx`` for every
  business day (Monday to Friday) in the run's range. A day without an index (a holiday, or tonight's not
  published yet) answers 403 or 404: that is recorded, not a failure, and a later run asks again for the days
  after the last index it has.
- ``edgar-submissions``: ``data.sec.gov/submissions/CIK##########.json`` for the companies that the indexes
  downloaded by the same run name with a registration or IPO form (S-1, F-1, DRS, 424B, RW: the filings of
  ``/api/ipos`` and ``/api/calendar``): tickers, exchanges, SIC, former names with their dates, recent filings.
- ``edgar-companyfacts``: ``data.sec.gov/api/xbrl/companyfacts/CIK##########.json`` (every XBRL fact the company
  ever reported, with the filing that reported it) for the companies that the same run's indexes name with an
  annual or quarterly report (10-K, 10-Q, 20-F, 40-F, 10-KT, 10-QT and their amendments): a new report is the
  only thing that changes the document, so the night's filers are the documents to ask for (conditionally, for
  one held already). A CIK without XBRL facts answers 404: recorded, not a failure.
- ``edgar-financial-statements`` (asked for by name only): the Financial Statement Data Set of a quarter,
  ``www.sec.gov/files/dera/data/financial-statement-data-sets/YYYYqN.zip`` (every filer's statements of that
  quarter's filings, 85-125 MB). From ``since``'s quarter; else the quarters after the newest one held; else the
  last complete quarter; never a quarter not yet over. A quarter not yet published answers 404: asked again the
  next night. docs/sources.md compares the two sources' costs.

Nasdaq (no documented API and no published access rules; the shape was established from public clients and
recorded answers, docs/sources.md):

- ``nasdaq-calendar``: ``api.nasdaq.com/api/ipo/calendar?date=YYYY-MM``, one month of priced, upcoming, filed
  and withdrawn deals, kept as ``api.nasdaq.com/api/ipo/calendar/YYYY-MM.json``. Every month from ``since``
  (default: the month after the newest one held, else the previous month) through the current one, and again
  every held month not yet ``SETTLE_DAYS`` past its end when last asked (late pricings and withdrawals). Its
  answers carry no validators (every answer a 200 with the whole body): a body identical to the file held is
  recorded against that file, not kept twice. Its front end refuses clients that do not look like a browser's,
  so requests there carry a ``Mozilla/5.0 (compatible; OPERATOR)`` User-Agent, still naming the operator, and
  an ``Accept`` naming JSON (``BROWSER_HEADERS``).
- ``nasdaq-screener``: ``api.nasdaq.com/api/screener/stocks?tableonly=true&download=true&exchange=X`` for X in
  nasdaq, nyse and amex, once a run, with the same headers: every stock listed there with its last sale and market
  capitalisation, kept as ``api.nasdaq.com/api/screener/stocks/X.json`` (one file an exchange, because a row does
  not say its exchange; the run's folder dates the prices, which the answer does not). No validators either.

How a download is verified before its run is kept: ``generator.fetch.verify``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from generator.importers import edgar

NASDAQ = "api.nasdaq.com"
SITES = {"www.sec.gov": "https://www.sec.gov", "data.sec.gov": "https://data.sec.gov",
         NASDAQ: "https://api.nasdaq.com"}
"""Each site's public base URL; a run can point any of them elsewhere (a mirror, the tests' fixture server)."""
TICKERS, DAILY_INDEX, SUBMISSIONS = "edgar-tickers", "edgar-daily-index", "edgar-submissions"
FACTS, FSDS = "edgar-companyfacts", "edgar-financial-statements"
CALENDAR, SCREENER = "nasdaq-calendar", "nasdaq-screener"
SOURCES = (TICKERS, DAILY_INDEX, SUBMISSIONS, FACTS, FSDS, CALENDAR, SCREENER)
"""Every source, in the order a run fetches them (submissions and companyfacts need the indexes of the same run)."""
ALIASES = {"edgar": (TICKERS, DAILY_INDEX, SUBMISSIONS, FACTS), "nasdaq": (CALENDAR, SCREENER)}
"""What the nightly commands fetch; the Financial Statement Data Sets are asked for by name."""
CALENDAR_PATH = "/api/ipo/calendar"
SCREENER_PATH = "/api/screener/stocks"
EXCHANGES = ("nasdaq", "nyse", "amex")
"""The screener's exchanges, one request each (the answer names no exchange per row)."""
STATEMENTS_PATH = "/files/dera/data/financial-statement-data-sets"
SETTLE_DAYS = 7
"""A month's calendar is asked again until a download made this many days after the month's end."""
BROWSER_HEADERS = {"Accept": "application/json, text/plain, */*", "Accept-Language": "en-US,en;q=0.9"}
"""Sent to Nasdaq with a browser-like User-Agent (``request_headers``)."""
TICKER_LISTS = ("company_tickers.json", "company_tickers_exchange.json")
SUBMISSION_FORMS = edgar.CREATES_COMPANY - {"D", "D/A"}
"""Forms whose filer's submissions document is fetched: registrations, prospectuses, withdrawals."""
FACTS_FORMS = frozenset(form + amended for form in ("10-K", "10-Q", "20-F", "40-F", "10-KT", "10-QT")
                        for amended in ("", "/A"))
"""Forms whose filer's companyfacts document is fetched: annual and quarterly reports, which bring new facts."""
ABSENT = frozenset({403, 404})
"""Answers that mean "no such document" for an index day or a CIK (the SEC answers either)."""
_INDEX_NAME = re.compile(r"^master\.(\d{8})\.idx$")
_QUARTER_FILE = re.compile(r"/(\d{4})q([1-4])\.zip$")


@dataclass(frozen=True)
class Target:
    """One document to fetch: its source, its site and its path there (which is also its path in the run)."""

    source: str
    site: str
    path: str
    absent_ok: bool = False
    query: str = ""
    name: str = ""
    """The file's name under the URL's path when the query picks the document (``?date=2025-07``)."""

    def url(self, bases: dict[str, str]) -> str:
        return bases[self.site].rstrip("/") + self.path + (f"?{self.query}" if self.query else "")

    @property
    def local(self) -> str:
        """Where it lands inside a run's folder: the site's name and the URL's path (and ``name``)."""
        return self.site + self.path + (f"/{self.name}" if self.name else "")


def expand(names: list[str]) -> list[str]:
    """Source names (aliases expanded) in fetch order; unknown names fail with the list of known ones."""
    wanted: set[str] = set()
    for name in names:
        if name in ALIASES:
            wanted.update(ALIASES[name])
        elif name in SOURCES:
            wanted.add(name)
        else:
            raise ValueError(f"unknown source {name!r}; expected one of {', '.join([*ALIASES, *SOURCES])}")
    return [source for source in SOURCES if source in wanted]


def base_urls(values: list[str]) -> dict[str, str]:
    """Each site's base URL: the public ones, overridden by ``URL`` (every site) or ``SITE=URL`` values."""
    bases = dict(SITES)
    for value in values:
        site, equals, url = value.partition("=")
        if not equals:
            site, url = "", value
        elif site not in SITES:
            raise ValueError(f"--base-url {value!r}: unknown site {site!r}; expected one of {', '.join(SITES)}")
        if not re.match(r"^https?://[^/\s]+", url):
            raise ValueError(f"--base-url {value!r}: expected an http(s) URL")
        bases.update({name: url.rstrip("/") for name in ([site] if site else SITES)})
    return bases


def ticker_lists() -> list[Target]:
    return [Target(TICKERS, "www.sec.gov", f"/files/{name}") for name in TICKER_LISTS]


def business_days(first: dt.date, last: dt.date) -> list[dt.date]:
    days = (first + dt.timedelta(days=n) for n in range((last - first).days + 1))
    return [day for day in days if day.weekday() < 5]


def daily_index(day: dt.date) -> Target:
    quarter = (day.month - 1) // 3 + 1
    return Target(DAILY_INDEX, "www.sec.gov",
                  f"/Archives/edgar/daily-index/{day.year}/QTR{quarter}/master.{day:%Y%m%d}.idx", absent_ok=True)


def index_day(path: str) -> dt.date | None:
    """The day of a daily index, from its URL or file path; None for anything else."""
    found = _INDEX_NAME.match(path.rsplit("/", 1)[-1])
    return dt.datetime.strptime(found.group(1), "%Y%m%d").date() if found else None


def submissions(cik: str) -> Target:
    return Target(SUBMISSIONS, "data.sec.gov", f"/submissions/CIK{int(cik):010d}.json", absent_ok=True)


def companyfacts(cik: str) -> Target:
    return Target(FACTS, "data.sec.gov", f"/api/xbrl/companyfacts/CIK{int(cik):010d}.json", absent_ok=True)


def filers(index: Path, forms: frozenset[str] = SUBMISSION_FORMS) -> set[str]:
    """CIKs (without leading zeros) that a daily index names with one of ``forms``. The index was verified line by
    line by the importer when it landed, so its ``CIK|Company Name|Form Type|Date Filed|File Name`` lines are read
    directly (the importer itself yields only the forms the filings table lists, not 10-Q or 40-F)."""
    found = set()
    for line in index.read_text(encoding="latin-1").splitlines():
        parts = line.split("|")
        if len(parts) == 5 and parts[0].isdigit() and parts[2] in forms:
            found.add(str(int(parts[0])))
    return found


def quarter_of(day: dt.date) -> tuple[int, int]:
    return day.year, (day.month - 1) // 3 + 1


def _next_quarter(quarter: tuple[int, int]) -> tuple[int, int]:
    year, number = quarter
    return (year + 1, 1) if number == 4 else (year, number + 1)


def statement_quarters(held: set[tuple[int, int]], since: dt.date | None, until: dt.date) -> list[tuple[int, int]]:
    """The Financial Statement Data Sets to ask for: from ``since``'s quarter; else the quarters after the newest one
    held; else the last complete quarter; none that has not ended by ``until`` (its data set cannot exist)."""
    last = quarter_of(dt.date(*_start(quarter_of(until))) - dt.timedelta(days=1))
    first = quarter_of(since) if since is not None else _next_quarter(max(held)) if held else last
    quarters = []
    while first <= last:
        quarters.append(first)
        first = _next_quarter(first)
    return quarters


def _start(quarter: tuple[int, int]) -> tuple[int, int, int]:
    return quarter[0], 3 * quarter[1] - 2, 1


def statements(quarter: tuple[int, int]) -> Target:
    return Target(FSDS, "www.sec.gov", f"{STATEMENTS_PATH}/{quarter[0]}q{quarter[1]}.zip", absent_ok=True)


def statement_quarter(url: str) -> tuple[int, int] | None:
    """The quarter of a Financial Statement Data Set's URL; None for anything else."""
    found = _QUARTER_FILE.search(url)
    return (int(found.group(1)), int(found.group(2))) if found and STATEMENTS_PATH in url else None


def month_range(first: dt.date, last: dt.date) -> list[dt.date]:
    """The first day of every month from ``first``'s to ``last``'s."""
    months, month = [], first.replace(day=1)
    while month <= last:
        months.append(month)
        month = _next_month(month)
    return months


def _next_month(month: dt.date) -> dt.date:
    return (month.replace(day=28) + dt.timedelta(days=4)).replace(day=1)


def calendar(month: dt.date) -> Target:
    return Target(CALENDAR, NASDAQ, CALENDAR_PATH, query=f"date={month:%Y-%m}", name=f"{month:%Y-%m}.json")


def calendar_month(url: str) -> dt.date | None:
    """The month of a calendar URL; None for anything else."""
    found = re.search(r"/api/ipo/calendar\?date=(\d{4})-(\d{2})$", url)
    return dt.date(int(found.group(1)), int(found.group(2)), 1) if found else None


def settled(month: dt.date, asked: str) -> bool:
    """Whether a month last asked at ``asked`` (the manifest's UTC time) was asked late enough to be final."""
    return dt.date.fromisoformat(asked[:10]) >= _next_month(month) + dt.timedelta(days=SETTLE_DAYS)


def calendar_months(held: dict[dt.date, str], since: dt.date | None, until: dt.date) -> list[dt.date]:
    """The months to ask: from ``since``'s; else every held month not settled and every month after the newest
    held one; else (a first run) the previous and the current month; never after ``until``'s month."""
    if since is not None:
        return month_range(since, until)
    if not held:
        return month_range(until.replace(day=1) - dt.timedelta(days=1), until)
    newest = max(held)
    again = [month for month, asked in sorted(held.items()) if month <= until and not settled(month, asked)]
    return sorted(set(again) | set(month_range(_next_month(newest), until)))


def screener(exchange: str) -> Target:
    return Target(SCREENER, NASDAQ, SCREENER_PATH, query=f"tableonly=true&download=true&exchange={exchange}",
                  name=f"{exchange}.json")


def request_headers(site: str, agent: str) -> dict[str, str]:
    """Headers a site needs beyond the client's own: for Nasdaq a browser-like User-Agent that keeps naming the
    operator, and an ``Accept`` naming JSON."""
    if site != NASDAQ:
        return {}
    browser = agent if agent.startswith("Mozilla/") else f"Mozilla/5.0 (compatible; {agent})"
    return {"User-Agent": browser, **BROWSER_HEADERS}
