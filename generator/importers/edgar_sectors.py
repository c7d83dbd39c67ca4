"""EDGAR-derived sector table ``stock_sector_info.csv``: CIK, ticker, exchange, Yahoo-style industry and sector,
country of each listed company. The industry is mapped first (it tells biotech from pharma, chips from
software); the sector is the fallback; both go through ``mapping``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import Cells, CompanyFact, Context, Fact, Source, csv_rows, display_name, ticker

SOURCE = Source("edgar-sectors", "exchange-data",
                "EDGAR-derived sector, industry and country table (stock_sector_info.csv, edgar-crawler)",
                current_tickers=True)
COLUMNS = ["cik", "name", "ticker", "exchange", "industry", "sector", "country"]


def detect(path: Path) -> int | None:
    return 10 if path.name.startswith("stock_sector_info") and path.suffix == ".csv" else None


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    seen: set[str] = set()
    for line, row in csv_rows(path, COLUMNS, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            cik = cells.number("cik")
            if not cik or cik in seen:
                ctx.skip("edgar-sectors: rows without CIK or repeating one")
                continue
            seen.add(cik)
            fields = {"status": "public"}
            sector = ctx.mapper.yahoo(row["sector"], row["industry"])
            if sector:
                fields["sector"] = sector
            exchange = ctx.mapper.exchange(row["exchange"]) if row["exchange"].strip() else None
            if exchange:
                fields["exchange"] = exchange
            country = ctx.mapper.country(row["country"]) if row["country"].strip() else ""
            symbol = ticker(cells.text("ticker"), ctx)
            yield CompanyFact(display_name(row["name"]), cik=cik, ticker=symbol, country=country or "", fields=fields)
