"""Nasdaq stock screener: the market value of every US-listed company on one day.

Two shapes of the same rows (docs/sources.md, "Nasdaq stock screener"): the CSV the screener page downloads
(``Symbol, Name, Last Sale, Net Change, % Change, Market Cap, Country, IPO Year, Volume, Sector, Industry``) and the
JSON of its API, ``api.nasdaq.com/api/screener/stocks?tableonly=true&download=true``, whose ``data.rows`` hold the
same fields under their own keys (``symbol``, ``marketCap`` ...).

- **The date.** Neither shape carries one, so it comes from where the file is: its name ending in the day of its
  prices (``nasdaq_screener_2025-05-23.csv``), else the nearest dated folder above it: ``2025-05-23``, or a fetch
  run's ``2025-05-24T031702Z``, whose UTC time is read as the New York time of the prices (before the 9:30 open:
  the previous close; a weekend: Friday's close). A file with no date fails and says how to give one.
- **The exchange.** A row does not say its exchange; a file whose rows are one exchange's (the API asked with
  ``&exchange=nasdaq``, ``nyse`` or ``amex``) says it in its name: a word ``nasdaq``, ``nyse`` or ``amex`` after the
  download's own prefix ``nasdaq_screener`` (``nasdaq_screener_nyse_2025-05-23.csv``; a fetch keeps
  ``.../screener/stocks/nyse.json``). Otherwise the companies get no exchange from this file.
- **One company per issuer.** A row is a security (``securities.kind``): warrants, units, rights, preferreds and
  notes are skipped and counted with their place; they never create or name a company. Share classes of one issuer
  (the same issuer name, symbols that differ in the class letter: GOOGL/GOOG, BRK/A and BRK/B) are one company
  under the ticker of the class traded most that day (Nasdaq's ``BRK/B`` is written ``BRK-B``, as the SEC writes it).
- **Market value.** Nasdaq's Market Cap on a class's row is the whole company's: that class's price times the
  shares of every class (2025-05-23: GOOGL $168.47 and GOOG $169.59 both give 12,135 million shares, Alphabet's
  classes A, B and C together; BRK/A and BRK/B both give 1,470,873 class-A equivalents, Berkshire's two classes
  together). So the classes are not summed: the company's value is the row of its class traded most
  (``valuation_basis`` ``market-cap``, dated the file's day). A market cap of 0 or none gives no valuation.
- **Other values.** Status ``public``, the ticker (a current listing: the source is a ticker list), the exchange
  when the file says it. Country and sector only fill what no other source gave (``defaults``): Nasdaq's country is
  at times the place of incorporation (Cayman Islands for a company run from Kansas City), and its sectors misfile
  some companies (Airbnb under Finance). Name and country do not take part in matching beyond the name itself.
- **Odd rows** (a symbol that is no ticker, a market cap or volume that is no number, a name that is only a
  security's) are skipped and listed in the report with their place; a file whose header or keys are not the
  screener's fails.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.importers import jsondoc, securities
from generator.importers.base import Cells, CompanyFact, Context, Fact, Source, SourceError, csv_rows, ticker

SOURCE = Source("nasdaq-screener", "market-cap",
                "Nasdaq stock screener: market capitalisation of every US-listed stock on the file's date (nasdaq.com; "
                "Nasdaq's data: market values published as facts with attribution, the files not redistributed)",
                current_tickers=True)
COLUMNS = ["Symbol", "Name", "Last Sale", "Net Change", "% Change", "Market Cap", "Country", "IPO Year", "Volume",
           "Sector", "Industry"]
KEYS = {"symbol": "Symbol", "name": "Name", "lastsale": "Last Sale", "netchange": "Net Change",
        "pctchange": "% Change", "marketCap": "Market Cap", "country": "Country", "ipoyear": "IPO Year",
        "volume": "Volume", "sector": "Sector", "industry": "Industry"}
"""The API's key -> the CSV's column; a row's ``url`` and any key not listed are ignored."""
RANK = 25
"""A company list, read after EDGAR's ticker lists (0) and submissions (5, 6), whose companies it finds by ticker or
name, and after the Nasdaq IPO calendar (20, 21), whose filed deals find their company by name alone (named by the
calendar, not by this list: ``Arm Holdings Plc /UK`` is the screener's ``Arm Holdings plc``); before the older IPO
histories (IPOScoop, 30), so that a current listing holds its ticker before an old listing of the ticker arrives."""
NOT_A_NUMBER = ("NA", "N/A", "--")
EXCHANGE_WORDS = ("nasdaq", "nyse", "amex")
_DAY = re.compile(r"(?:^|[_\-. ])(\d{4}-\d{2}-\d{2})$")
_DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$")
_SYMBOL = re.compile(r"^[A-Z0-9.\-]{1,10}$")
_OPEN = dt.time(9, 30)
NO_DATE = ("no date: the screener's rows carry none; name the file with the day of its prices "
           "(nasdaq_screener_YYYY-MM-DD.csv; the website's nasdaq_screener_<milliseconds>.csv is the time of the "
           "download, not of the prices) or keep it in a dated folder (YYYY-MM-DD, or a fetch run's "
           "YYYY-MM-DDTHHMMSSZ)")
SKIPPED = {
    securities.WARRANT: "warrants", securities.UNIT: "units (a SPAC's share with a warrant or right)",
    securities.RIGHT: "rights", securities.PREFERRED: "preferred shares (and depositary shares of one)",
    securities.NOTE: "notes and bonds",
}


def detect(path: Path) -> int | None:
    """By content: the CSV's header, or a JSON answer whose ``data`` holds the screener's headers or rows."""
    start = jsondoc.head(path)
    if path.suffix == ".csv":
        first = start.split(b"\n", 1)[0].decode("utf-8", "replace")
        return RANK if [c.strip() for c in first.split(",")] == COLUMNS else None
    if path.suffix == ".json" and jsondoc.top_keys(path)[:1] == ["data"]:
        return RANK if re.search(rb'"(headers|rows)"\s*:\s*[\[{]\s*\{?\s*"symbol"\s*:', start) else None
    return None


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    day, exchange = file_date(path), file_exchange(path, ctx)
    rows = _json_rows(path, ctx) if path.suffix == ".json" else (
        (f"{path}:{line}", row) for line, row in csv_rows(path, COLUMNS))
    yield from companies(rows, day, exchange, ctx)


# --- where the file is: its date and exchange ------------------------------------------------------------------------


def file_date(path: Path) -> str:
    """The day of the file's prices, from its name or the nearest dated folder above it (see the module)."""
    if match := _DAY.search(path.stem):
        return _iso(path, match.group(1))
    for folder in path.parents:
        if match := _DATED.match(folder.name):
            day = _iso(path, match.group(1))
            if match.group(2) is None:
                return day
            hour, minute, second = (int(g) for g in match.groups()[1:])
            return prices_day(dt.datetime.fromisoformat(day).replace(hour=hour, minute=minute, second=second))
    raise SourceError(path, 0, NO_DATE)


def _iso(path: Path, text: str) -> str:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise SourceError(path, 0, f"{text}: not a date (YYYY-MM-DD)") from None


def new_york(utc: dt.datetime) -> dt.datetime:
    """New York's wall-clock time at a UTC time (US daylight time: from 2 a.m. on March's second Sunday to 2 a.m. on
    November's first Sunday), without depending on the host's time-zone database."""
    def sunday(month: int, nth: int) -> int:
        first = dt.date(utc.year, month, 1)
        return 1 + (6 - first.weekday()) % 7 + 7 * (nth - 1)
    summer = dt.datetime(utc.year, 3, sunday(3, 2), 7) <= utc < dt.datetime(utc.year, 11, sunday(11, 1), 6)
    return utc - dt.timedelta(hours=4 if summer else 5)


def prices_day(utc: dt.datetime) -> str:
    """The trading day whose prices the screener showed at a UTC time: the New York day once the market opened,
    else the day before, a weekend going back to Friday (market holidays are not known here)."""
    local = new_york(utc)
    day = local.date() if local.time() >= _OPEN else local.date() - dt.timedelta(days=1)
    while day.weekday() >= 5:
        day -= dt.timedelta(days=1)
    return day.isoformat()


def file_exchange(path: Path, ctx: Context) -> str:
    """The exchange the file's name gives its rows ('' when it names none)."""
    rest = _DAY.sub("", re.sub(r"^nasdaq_screener", "", path.stem, flags=re.I))
    found = sorted({w for w in re.split(r"[_\-. ]+", rest.lower()) if w in EXCHANGE_WORDS})
    if len(found) > 1:
        raise SourceError(path, 0, f"the file's name names the exchanges {' and '.join(found)}: a screener file is "
                          "one exchange's rows or all of them")
    return (ctx.mapper.exchange(found[0]) or "") if found else ""


# --- the API's JSON --------------------------------------------------------------------------------------------------


def _json_rows(path: Path, ctx: Context) -> Iterator[tuple[str, dict[str, str]]]:
    """The rows of a download answer as CSV rows; a document that is not one fails naming the file and why."""
    document = jsondoc.read(path)
    if not isinstance(document, dict) or "data" not in document:
        raise SourceError(path, 0, "not a screener answer: expected an object with data")
    data = document["data"]
    if data is None:
        raise SourceError(path, 0, "no screener rows in the answer: data is null")
    if not isinstance(data, dict) or "rows" not in data:
        table = " (this is the screener's table view: ask with download=true for every row and column)" \
            if isinstance(data, dict) and "table" in data else ""
        raise SourceError(path, 0, f"data: expected an object with rows{table}")
    rows = data["rows"] or []
    if not isinstance(rows, list):
        raise SourceError(path, 0, f"data.rows: expected a list (found {type(rows).__name__})")
    for index, row in enumerate(rows):
        place = f"{path}: data.rows[{index}]"
        if not isinstance(row, dict):
            raise SourceError(path, 0, f"data.rows[{index}]: expected an object (found {type(row).__name__})")
        cells, odd = _json_cells(row)
        missing = [key for key in KEYS if key not in cells]
        if missing:
            raise SourceError(path, 0, f"data.rows[{index}]: missing {', '.join(missing)} (a row has "
                              f"{', '.join(KEYS)})")
        if odd:
            ctx.skip(f"nasdaq-screener: odd rows ({odd})", where=place)
            continue
        yield place, {KEYS[key]: value for key, value in cells.items()}


def _json_cells(row: Any) -> tuple[dict[str, str], str]:
    """A row's values as text (null is empty), and what is odd about it ('' if nothing)."""
    cells: dict[str, str] = {}
    odd = ""
    for key, value in jsondoc.items(row):
        if key not in KEYS:
            continue
        number = jsondoc.number(value)
        text = "" if value is None else value if isinstance(value, str) else str(number) if number is not None \
            else None
        if text is None:
            odd = odd or f"{key}: not text or a number"
        elif key in cells and cells[key] != text:
            odd = odd or f"{key} given twice with two values"
        cells[key] = text or ""
    return cells, odd


# --- rows -> companies -----------------------------------------------------------------------------------------------


@dataclass
class Listing:
    """One class of a company's stock as a row gives it."""

    order: int
    where: str
    ticker: str
    issuer: str
    market_cap: int
    volume: int
    country: str
    sector: str
    industry: str

    @property
    def place(self) -> int | str:
        """Its line of the file, or its key in the document (``where`` is the file and either)."""
        found = self.where.rsplit(":", 1)[1].strip()
        return int(found) if found.isdigit() else found


def companies(rows: Iterator[tuple[str, dict[str, str]]], day: str, exchange: str, ctx: Context) -> Iterator[Fact]:
    """One company fact per issuer, in the order the file first names it."""
    issuers: dict[str, list[list[Listing]]] = {}
    for order, (where, row) in enumerate(rows):
        listing = _listing(order, where, row, ctx)
        if listing is None:
            continue
        groups = issuers.setdefault(securities.issuer_key(listing.issuer), [])
        group = next((g for g in groups if any(securities.related(x.ticker, listing.ticker) for x in g)), None)
        if group is None:
            groups.append([listing])
        else:
            group.append(listing)
    ordered = sorted((group for groups in issuers.values() for group in groups), key=lambda g: g[0].order)
    listed = frozenset(x.ticker for group in ordered for x in group)
    for group in ordered:
        for fact in _company(group, day, exchange, ctx):
            if isinstance(fact, CompanyFact):
                fact.others_listed = listed  # a record holding another of these tickers is another company
            yield fact


def _listing(order: int, where: str, row: dict[str, str], ctx: Context) -> Listing | None:
    symbol, name = row["Symbol"].strip().upper(), " ".join(row["Name"].split())
    kind = securities.kind(symbol, name)
    if kind != securities.EQUITY:
        ctx.skip(f"nasdaq-screener: {SKIPPED[kind]}: securities of a company, not a company", where=f"{where} {symbol}")
        return None
    symbol = symbol.replace("/", "-")
    issuer = securities.issuer(name)
    cells = Cells(where, 0, row)
    try:
        market_cap = int(cells.number("Market Cap", blank=NOT_A_NUMBER) or 0)
        volume = int(cells.number("Volume", blank=NOT_A_NUMBER) or 0)
    except SourceError as error:
        ctx.skip("nasdaq-screener: odd rows (a market cap or volume that is no number)", where=str(error))
        return None
    if not _SYMBOL.match(symbol) or not issuer:
        what = "a symbol that is no ticker" if not _SYMBOL.match(symbol) else "a name that is only a security's"
        ctx.skip(f"nasdaq-screener: odd rows ({what})", where=f"{where} {symbol or '(no symbol)'}")
        return None
    return Listing(order, where, ticker(symbol, ctx), issuer, market_cap, volume, cells.text("Country"),
                   cells.text("Sector"), cells.text("Industry"))


def _company(group: list[Listing], day: str, exchange: str, ctx: Context) -> Iterator[CompanyFact]:
    """The issuer's company: named and ticked by its first class (the symbol that sorts first: the plain or class A
    one, as the SEC's list mostly names a company), valued at the class traded most (a thin class's last sale can
    be stale). Each further class comes first as a fact that only finds a company and gives nothing, so that a
    company another list holds under that class's ticker is the one the issuer joins."""
    first = min(group, key=lambda x: x.ticker)
    valued = [x for x in group if x.market_cap > 0]
    priced = max(valued, key=lambda x: (x.volume, -x.order)) if valued else None
    for other in sorted(group, key=lambda x: x.order):
        if other is not first:
            ctx.skip("nasdaq-screener: further share classes of a company (joined to its first class)",
                     where=f"{other.where} {other.ticker} (with {first.ticker})")
            ctx.at(other.place)
            yield CompanyFact(first.issuer, ticker=other.ticker, create=False)
    fields = {"status": "public"}
    if exchange:
        fields["exchange"] = exchange
    if priced is not None:
        fields.update({"valuation_usd": str(priced.market_cap), "valuation_date": day,
                       "valuation_basis": SOURCE.basis})
    else:
        ctx.skip("nasdaq-screener: companies with a market cap of 0 or none (no valuation)", where=first.where)
    described = next((x for x in (first, priced, *group) if x is not None and (x.sector or x.industry)), first)
    defaults = {}
    if (country := next((x.country for x in group if x.country), "")) and (code := ctx.mapper.country(country)):
        defaults["country"] = code
    if (described.sector or described.industry) and (
            sector := ctx.mapper.nasdaq(described.sector, described.industry)):
        defaults["sector"] = sector
    ctx.at((priced or first).place)
    yield CompanyFact(first.issuer, ticker=first.ticker, fields=fields, defaults=defaults, listed_on=day)
