"""Unicorn lists: CB Insights' Global Unicorn Club (tidy CSV, January 2025) and Maven Analytics' unicorn
dataset (semicolon-separated, March 2022).

Each row is a private company with a valuation (basis press-report, dated the list's as-of date), country,
city and industry; Maven adds the founding year. CB Insights' select investors become investors; the list
does not say in which round they invested, so no round is made for them (the report counts those links).
The date joined (first valued at $1B) is ``unicorn_date``, with the list's name in ``unicorn_date_source``; total
funding has no canonical column.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import (
    Cells,
    CompanyFact,
    Context,
    Fact,
    InvestorFact,
    Source,
    csv_rows,
    display_name,
)
from generator.importers.investors import investor_type

CBINSIGHTS = Source("cbinsights", "press-report", "CB Insights Global Unicorn Club, 7 January 2025 (cbinsights.com)")
MAVEN = Source("maven", "press-report", "Maven Analytics unicorn companies dataset, March 2022")
CB_COLUMNS = ["company", "valuation_usd_b", "date_joined_ddmmyy", "country", "city", "industry", "select_investors"]
MAVEN_COLUMNS = ["Company", "Valuation", "Date Joined", "Industry", "City", "Country", "Continent", "Year Founded",
                 "Funding"]
CB_AS_OF = "2025-01-07"
MAVEN_AS_OF = "2022-03-01"


def detect_cbinsights(path: Path) -> int | None:
    return 40 if path.name.startswith("cbinsights_unicorns") and not path.stem.endswith("_raw") else None


def detect_maven(path: Path) -> int | None:
    return 45 if path.name.startswith("maven_unicorns") else None


def _company(ctx: Context, name: str, country: str, industry: tuple[str, str], fields: dict) -> CompanyFact:
    """A private company of a unicorn list, its industry mapped to a sector where the mapping table knows it."""
    sector = ctx.mapper.sector(*industry)
    if sector:
        fields["sector"] = sector
    return CompanyFact(display_name(name), country=ctx.mapper.country(country) or "", fields=fields,
                       defaults={"status": "private"})


def _joined(cells: Cells, column: str, fmt: str, source: Source) -> dict[str, str]:
    date = cells.date(column, (fmt,))
    return {"unicorn_date": date, "unicorn_date_source": source.description} if date else {}


def read_cbinsights(path: Path, ctx: Context) -> Iterator[Fact]:
    for line, row in csv_rows(path, CB_COLUMNS, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            fields = {"valuation_usd": cells.number("valuation_usd_b", scale=10**9), "valuation_date": CB_AS_OF,
                      "valuation_basis": "press-report", "headquarters_city": cells.text("city"),
                      **_joined(cells, "date_joined_ddmmyy", "%d/%m/%y", CBINSIGHTS)}
            yield _company(ctx, row["company"], row["country"], ("cbinsights-industry", row["industry"]), fields)
            for name in (n.strip() for n in row["select_investors"].split(",")):
                if name:
                    ctx.skip("cbinsights: investor links without a round (investor imported, link not)")
                    yield InvestorFact(name, {"type": investor_type(name)})


def read_maven(path: Path, ctx: Context) -> Iterator[Fact]:
    for line, row in csv_rows(path, MAVEN_COLUMNS, delimiter=";", ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            fields = {"valuation_usd": cells.number("Valuation"), "valuation_date": MAVEN_AS_OF,
                      "valuation_basis": "press-report", "headquarters_city": cells.text("City"),
                      "founded_year": cells.number("Year Founded"), **_joined(cells, "Date Joined", "%d.%m.%Y", MAVEN)}
            yield _company(ctx, row["Company"], row["Country"], ("maven-industry", row["Industry"]), fields)
