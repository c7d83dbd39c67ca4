"""IPOScoop's completed-IPO history (``ipos.csv``, 2000-2018): trade date, issuer, symbol, lead managers, offer
price, opening price and first-day close.

Each row is a listed IPO (trade date = first trading day) with offer price and first-day close in cents. The
file names no exchange: the company gets ``us-not-reported`` unless another source names it. The lead managers
have no canonical column yet; they are counted in the report as not imported.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import Cells, CompanyFact, Context, Fact, IpoFact, Source, csv_rows, display_name, ticker

SOURCE = Source("iposcoop", "press-report", "IPOScoop completed-IPO history 2000-2018 (iposcoop.com)")
COLUMNS = ["Trade Date", "Issuer", "Symbol", "LeadJointLeadManagers", "Offer Price", "Opening Price",
           "1st Day Close", "1st Day PxChng", "Change Opening", "Change Close", "Star Ratings", "Performed"]
DATES = ("%m-%d-%y", "%m/%d/%Y", "%m/%d/%y")


def detect(path: Path) -> int | None:
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", errors="replace") as handle:
            if handle.readline().startswith("Trade Date,Issuer,Symbol"):
                return 30
    return None


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    for line, row in csv_rows(path, COLUMNS, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            date = cells.date("Trade Date", DATES)
            name, symbol = display_name(row["Issuer"]), ticker(cells.text("Symbol"), ctx)
            if not date or not name:
                raise cells.fail("Trade Date" if not date else "Issuer", "expected a trade date and an issuer")
            if row["LeadJointLeadManagers"].strip():
                ctx.skip("iposcoop: underwriters (no canonical column)")
            fields = {
                "status": "listed", "listing_date": date, "listing_kind": "ipo", "ticker": symbol,
                "offer_price_cents": cells.cents("Offer Price"),
                "first_day_close_cents": cells.cents("1st Day Close"),
            }
            company = CompanyFact(name, ticker=symbol, date=date,
                                  defaults={"status": "public", "listing_date": date, "listing_kind": "ipo"})
            yield IpoFact(company, fields)
