"""Nasdaq IPO calendar (scraped from its API): ``nasdaq_ipos_pricings.csv``, ``nasdaq_ipos_filings.csv`` and
their join ``nasdaq_ipos_merged.csv``.

A priced deal is a listed IPO (``pricedDate`` is both the pricing and the first trading day on the calendar),
with offer price, shares and proceeds; a filed deal is a filed IPO with its filing date. The company is found
by ticker (with the deal's date) or name; a new one is private until listed. ``nasdaq_ipos_cleaned.csv`` is
not read: its author filled filed-only rows with a made-up date and price.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import Cells, CompanyFact, Context, Fact, IpoFact, Source, csv_rows, display_name, ticker

SOURCE = Source("nasdaq", "exchange-data", "Nasdaq IPO calendar: pricings and filings (nasdaq.com)")
PRICINGS = ["dealID", "proposedTickerSymbol", "companyName", "proposedExchange", "proposedSharePrice",
            "sharesOffered", "pricedDate", "dollarValueOfSharesOffered", "dealStatus"]
FILINGS = ["dealID", "proposedTickerSymbol", "companyName", "filedDate", "dollarValueOfSharesOffered"]
MERGED = ["dealID", "proposedTickerSymbol_x", "companyName_x", "proposedExchange", "proposedSharePrice",
          "sharesOffered", "pricedDate", "dollarValueOfSharesOffered_x", "dealStatus", "proposedTickerSymbol_y",
          "companyName_y", "filedDate", "dollarValueOfSharesOffered_y"]
DATES = ("%m/%d/%Y",)


def detect(path: Path) -> int | None:
    if path.name.startswith("nasdaq_ipos_") and path.suffix == ".csv" and "cleaned" not in path.name:
        return 20
    return None


def _layout(path: Path) -> list[str]:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    return {"proposedTickerSymbol_x": MERGED, "proposedExchange": PRICINGS}.get(
        next((c for c in ("proposedTickerSymbol_x", "proposedExchange") if c in first), ""), FILINGS)


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    columns = _layout(path)
    suffix = "_x" if columns is MERGED else ""
    for line, row in csv_rows(path, columns):
        cells = Cells(path, line, row)
        priced = row["dealStatus"].strip() == "Priced" if "dealStatus" in row else False
        ticker_col = f"proposedTickerSymbol{suffix}" if priced or not suffix else "proposedTickerSymbol_y"
        name_col = f"companyName{suffix}" if priced or not suffix else "companyName_y"
        symbol, name = ticker(cells.text(ticker_col), ctx), display_name(row[name_col])
        if not name:
            raise cells.fail(name_col, "expected a company name")
        fields: dict[str, str] = {"listing_kind": "ipo"}
        if symbol:
            fields["ticker"] = symbol
        if "filedDate" in row:
            fields["filed_date"] = cells.date("filedDate", DATES)
        company = CompanyFact(name, defaults={"status": "private"})
        if priced:
            company.ticker = symbol
            date = cells.date("pricedDate", DATES)
            exchange = ctx.mapper.exchange(row["proposedExchange"]) if row["proposedExchange"].strip() else None
            fields.update({
                "status": "listed", "priced_date": date, "listing_date": date,
                **_price(cells), "shares_offered": cells.number("sharesOffered"),
                "proceeds_usd": cells.number(f"dollarValueOfSharesOffered{suffix}"), "exchange": exchange or "",
            })
            company.date = date
            company.defaults = {"status": "public", "listing_date": date, "listing_kind": "ipo",
                                "exchange": exchange or ""}
        elif "dealStatus" in row and row["dealStatus"].strip():
            raise cells.fail("dealStatus", "expected Priced or nothing")
        elif columns is PRICINGS:
            raise cells.fail("dealStatus", "expected Priced")
        else:
            if not fields.get("filed_date"):
                raise cells.fail("filedDate", "expected the filing date of a filed deal")
            fields["status"] = "filed"
        yield IpoFact(company, fields)


def _price(cells: Cells) -> dict[str, str]:
    """The offer price; a range ('4.00-6.00', seen on a few priced deals) is kept as the price range."""
    raw = cells.row["proposedSharePrice"]
    if "-" not in raw:
        return {"offer_price_cents": cells.cents("proposedSharePrice")}
    low, _, high = raw.partition("-")
    parts = Cells(cells.path, cells.line, {"proposedSharePrice": low}), Cells(cells.path, cells.line,
                                                                              {"proposedSharePrice": high})
    return {"price_range_low_cents": parts[0].cents("proposedSharePrice"),
            "price_range_high_cents": parts[1].cents("proposedSharePrice")}
