"""What each source is: its URLs, where a download lands in a run's folder, and how a download is verified.

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

A download is verified by the importer that will read it (``generator.importers.edgar``: every line of an index,
every entry of a ticker list; ``generator.importers.nasdaq_calendar``: the calendar's shape and every row) or,
for the submissions JSON, by its documented keys (the ``edgar`` importer then reads its company and former names).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path

from generator.importers import edgar, nasdaq_calendar
from generator.importers.base import Context, FilingFact, SourceError

NASDAQ = "api.nasdaq.com"
SITES = {"www.sec.gov": "https://www.sec.gov", "data.sec.gov": "https://data.sec.gov",
         NASDAQ: "https://api.nasdaq.com"}
"""Each site's public base URL; a run can point any of them elsewhere (a mirror, the tests' fixture server)."""
TICKERS, DAILY_INDEX, SUBMISSIONS = "edgar-tickers", "edgar-daily-index", "edgar-submissions"
CALENDAR = "nasdaq-calendar"
SOURCES = (TICKERS, DAILY_INDEX, SUBMISSIONS, CALENDAR)
"""Every source, in the order a run fetches them (submissions need the indexes of the same run)."""
ALIASES = {"edgar": (TICKERS, DAILY_INDEX, SUBMISSIONS), "nasdaq": (CALENDAR,)}
CALENDAR_PATH = "/api/ipo/calendar"
SETTLE_DAYS = 7
"""A month's calendar is asked again until a download made this many days after the month's end."""
BROWSER_HEADERS = {"Accept": "application/json, text/plain, */*", "Accept-Language": "en-US,en;q=0.9"}
"""Sent to Nasdaq with a browser-like User-Agent (``request_headers``)."""
TICKER_LISTS = ("company_tickers.json", "company_tickers_exchange.json")
SUBMISSION_FORMS = edgar.CREATES_COMPANY - {"D", "D/A"}
"""Forms whose filer's submissions document is fetched: registrations, prospectuses, withdrawals."""
ABSENT = frozenset({403, 404})
"""Answers that mean "no such document" for an index day or a CIK (the SEC answers either)."""
_INDEX_NAME = re.compile(r"^master\.(\d{8})\.idx$")
_SUBMISSION_KEYS = ("cik", "name", "filings")


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


def filers(index: Path) -> set[str]:
    """CIKs that a verified daily index names with one of ``SUBMISSION_FORMS``."""
    return {fact.company.cik for fact in edgar.read(index, Context())
            if isinstance(fact, FilingFact) and fact.fields["form"] in SUBMISSION_FORMS}


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


def request_headers(site: str, agent: str) -> dict[str, str]:
    """Headers a site needs beyond the client's own: for Nasdaq a browser-like User-Agent that keeps naming the
    operator, and an ``Accept`` naming JSON."""
    if site != NASDAQ:
        return {}
    browser = agent if agent.startswith("Mozilla/") else f"Mozilla/5.0 (compatible; {agent})"
    return {"User-Agent": browser, **BROWSER_HEADERS}


def verify(path: Path, source: str = "") -> None:
    """Raises ``ValueError`` (one line) unless the file is what its name says, complete."""
    if source == CALENDAR:
        try:
            for _ in nasdaq_calendar.read(path, Context()):
                pass
        except SourceError as error:
            raise ValueError(str(error).removeprefix(f"{path}: ")) from None
        return
    if edgar.detect(path) is not None:
        try:
            for _ in edgar.read(path, Context()):
                pass
        except SourceError as error:
            line, _, reason = str(error).removeprefix(f"{path}:").partition(": ")
            raise ValueError(f"line {line}: {reason}" if line.isdigit() else str(error)) from None
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"unexpected content ({type(error).__name__}: {error})") from None
        return
    if path.suffix == ".json":
        try:
            document = json.loads(path.read_bytes())
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"malformed JSON ({error})") from None
        missing = [key for key in _SUBMISSION_KEYS if not isinstance(document, dict) or key not in document]
        if missing:
            raise ValueError(f"a submissions document needs the keys {', '.join(_SUBMISSION_KEYS)} "
                             f"(missing {', '.join(missing)})")
        return
    raise ValueError("no check for this kind of file")
