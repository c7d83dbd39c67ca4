"""Nasdaq IPO calendar (scraped from its API): ``nasdaq_ipos_pricings.csv``, ``nasdaq_ipos_filings.csv`` and
their join ``nasdaq_ipos_merged.csv``.

A priced deal is a listed IPO (``pricedDate`` is both the pricing and the first trading day on the calendar),
with offer price, shares and proceeds; a filed deal is a filed IPO with its filing date. The company is found
by ticker (with the deal's date) or name; a new one is private until listed. ``nasdaq_ipos_cleaned.csv`` is
not read: its author filled filed-only rows with a made-up date and price.

``deal`` turns one row of the calendar, under the calendar's own column names, into an IPO fact; the monthly
JSON that ``fetch nasdaq`` downloads (``nasdaq_calendar``) goes through it too, with its upcoming and withdrawn
deals.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import Cells, CompanyFact, Context, Fact, IpoFact, Source, csv_rows, display_name, ticker

SOURCE = Source("nasdaq", "exchange-data", "Nasdaq IPO calendar: pricings and filings (nasdaq.com)")
PRICINGS = ["dealID", "proposedTickerSymbol", "companyName", "proposedExchange", "proposedSharePrice",
            "sharesOffered", "pricedDate", "dollarValueOfSharesOffered", "dealStatus"]
FILINGS = ["dealID", "proposedTickerSymbol", "companyName", "filedDate", "dollarValueOfSharesOffered"]
UPCOMING = ["dealID", "proposedTickerSymbol", "companyName", "proposedExchange", "proposedSharePrice",
            "sharesOffered", "expectedPriceDate", "dollarValueOfSharesOffered"]
WITHDRAWN = ["dealID", "proposedTickerSymbol", "companyName", "proposedExchange", "sharesOffered", "filedDate",
             "dollarValueOfSharesOffered", "withdrawDate"]
MERGED = ["dealID", "proposedTickerSymbol_x", "companyName_x", "proposedExchange", "proposedSharePrice",
          "sharesOffered", "pricedDate", "dollarValueOfSharesOffered_x", "dealStatus", "proposedTickerSymbol_y",
          "companyName_y", "filedDate", "dollarValueOfSharesOffered_y"]
DATES = ("%m/%d/%Y",)
NO_DATE = ("N/A",)
"""What the calendar writes for a date it does not have."""


def detect(path: Path) -> int | None:
    if path.name.startswith("nasdaq_ipos_") and path.suffix == ".csv" and "cleaned" not in path.name:
        return 20
    return None


def _layout(path: Path) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        first = handle.readline()
    return {"proposedTickerSymbol_x": MERGED, "proposedExchange": PRICINGS}.get(
        next((c for c in ("proposedTickerSymbol_x", "proposedExchange") if c in first), ""), FILINGS)


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    columns = _layout(path)
    suffix = "_x" if columns is MERGED else ""
    for line, row in csv_rows(path, columns, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            priced = row["dealStatus"].strip() == "Priced" if "dealStatus" in row else False
            if "dealStatus" in row and row["dealStatus"].strip() and not priced:
                raise cells.fail("dealStatus", "expected Priced or nothing")
            if columns is PRICINGS and not priced:
                raise cells.fail("dealStatus", "expected Priced")
            side = suffix if priced or not suffix else "_y"
            yield deal(cells, ctx, "listed" if priced else "filed", side)


def deal(cells: Cells, ctx: Context, status: str, suffix: str = "") -> IpoFact:
    """One deal of the calendar: ``status`` ``listed`` (a priced deal), ``filed``, ``upcoming`` or ``withdrawn``.
    ``suffix`` picks the side of the merged CSV that the ticker, name and amount come from (``_x``, ``_y``)."""
    row = cells.row
    ticker_col, name_col = f"proposedTickerSymbol{suffix}", f"companyName{suffix}"
    symbol, name = ticker(cells.text(ticker_col), ctx), display_name(row[name_col])
    if not name:
        raise cells.fail(name_col, "expected a company name")
    fields: dict[str, str] = {"listing_kind": "ipo"}
    if symbol:
        fields["ticker"] = symbol
    if "filedDate" in row:
        fields["filed_date"] = cells.date("filedDate", DATES, NO_DATE)
    company = CompanyFact(name, defaults={"status": "private"})
    if status == "listed":
        company.ticker = symbol
        date = _required_date(cells, "pricedDate", "the pricing date of a priced deal")
        exchange = _exchange(cells, ctx)
        fields.update({
            "status": "listed", "priced_date": date, "listing_date": date,
            **_price(cells), "shares_offered": cells.number("sharesOffered"),
            "proceeds_usd": cells.number(f"dollarValueOfSharesOffered{suffix}"), "exchange": exchange,
        })
        company.date = date
        company.defaults = {"status": "public", "listing_date": date, "listing_kind": "ipo", "exchange": exchange}
    elif status == "filed":
        if not fields.get("filed_date"):
            raise cells.fail("filedDate", "expected the filing date of a filed deal")
        fields["status"] = "filed"
    elif status == "upcoming":
        fields.update({
            "status": "upcoming", "expected_date": _required_date(cells, "expectedPriceDate", "the expected date"),
            **_price(cells, proposed=True), "shares_offered": cells.number("sharesOffered"),
            "exchange": _exchange(cells, ctx),
        })
    elif status == "withdrawn":
        fields.update({
            "status": "withdrawn", "withdrawn_date": _required_date(cells, "withdrawDate", "the withdrawal date"),
            "shares_offered": cells.number("sharesOffered"), "exchange": _exchange(cells, ctx),
        })
    else:
        raise ValueError(f"unknown deal status {status!r}")
    return IpoFact(company, fields, deal=cells.text("dealID") if "dealID" in row else "")


def _required_date(cells: Cells, column: str, what: str) -> str:
    date = cells.date(column, DATES, NO_DATE)
    if not date:
        raise cells.fail(column, f"expected {what}")
    return date


def _exchange(cells: Cells, ctx: Context) -> str:
    raw = cells.row.get("proposedExchange", "").strip()
    return (ctx.mapper.exchange(raw) or "") if raw else ""


def _price(cells: Cells, proposed: bool = False) -> dict[str, str]:
    """The offer price; a range ('4.00-6.00', seen on a few priced deals and on upcoming ones) is kept as the
    price range, and so is a deal's ``proposed`` price before it priced (a range from the price to itself)."""
    raw = cells.row["proposedSharePrice"]
    if "-" not in raw and not proposed:
        return {"offer_price_cents": cells.cents("proposedSharePrice")}
    if not raw.strip():
        return {}
    low, _, high = raw.partition("-")
    parts = Cells(cells.path, cells.line, {"proposedSharePrice": low}), Cells(
        cells.path, cells.line, {"proposedSharePrice": high or low})
    return {"price_range_low_cents": parts[0].cents("proposedSharePrice"),
            "price_range_high_cents": parts[1].cents("proposedSharePrice")}
