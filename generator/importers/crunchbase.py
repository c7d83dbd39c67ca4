"""Crunchbase CSV exports (October 2013): ``crunchbase-companies.csv``, ``crunchbase-rounds.csv``,
``crunchbase-acquisitions.csv``. Mac Roman with CR line ends; UTF-8 exports are read as well.

Companies: permalink (the slug hint), name, category (-> sector), status, country, city, founding year.
Rounds: company, round type (-> stage, ``ROUND_STAGES``), date, amount. Acquisitions: company, acquirer, date,
price (US dollars only). Names that are UTF-8 read as Mac Roman (mojibake) are repaired; Excel's ``#NAME?``
gives way to the permalink.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import (
    Cells,
    CompanyFact,
    Context,
    Fact,
    RoundFact,
    Source,
    SourceError,
    clean,
    csv_rows,
)

SOURCE = Source("crunchbase", "press-report", "Crunchbase CSV export, October 2013 (crunchbase.com, CC-BY)")
COMPANY = ["permalink", "name", "category_code", "funding_total_usd", "status", "country_code", "state_code",
           "region", "city", "funding_rounds", "founded_at", "founded_month", "founded_quarter", "founded_year",
           "first_funding_at", "last_funding_at", "last_milestone_at"]
_PLACE = ["company_permalink", "company_name", "company_category_code", "company_country_code",
          "company_state_code", "company_region", "company_city"]
ROUNDS = [*_PLACE, "funding_round_type", "funded_at", "funded_month", "funded_quarter", "funded_year",
          "raised_amount_usd"]
ACQUISITIONS = [*_PLACE, "acquirer_permalink", "acquirer_name", "acquirer_category_code", "acquirer_country_code",
                "acquirer_state_code", "acquirer_region", "acquirer_city", "acquired_at", "acquired_month",
                "acquired_quarter", "acquired_year", "price_amount", "price_currency_code"]
STATUSES = {"operating": "private", "acquired": "acquired", "closed": "closed", "ipo": "public"}
ROUND_STAGES = {
    "angel": "seed", "seed": "seed", "series-a": "series-a", "series-b": "series-b", "series-c+": "series-c",
    "private-equity": "private-equity", "venture": "undisclosed", "other": "undisclosed",
    "post-ipo": "undisclosed", "crowdfunding": "undisclosed", "debt_financing": "debt", "grant": "grant",
    "convertible_note": "convertible-note",
}
"""Crunchbase round type -> stage; ``series-c+`` means C or later and is written as series-c."""
DATES = ("%Y-%m-%d",)


def detect(path: Path) -> int | None:
    return {"crunchbase-companies": 50, "crunchbase-acquisitions": 51, "crunchbase-rounds": 52}.get(path.stem)


def repair(text: str) -> str:
    """Undo UTF-8 read as Mac Roman (up to twice: some names went through it twice)."""
    for _ in range(2):
        try:
            fixed = text.encode("mac_roman").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            break
        if fixed == text:
            break
        text = fixed
    return clean(text)


def _encoding(path: Path) -> str:
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return "mac_roman"
    return "utf-8"


def _company(ctx: Context, row: dict[str, str], prefix: str) -> CompanyFact:
    permalink = row[f"{prefix}permalink"].strip().removeprefix("/company/")
    name = repair(row[f"{prefix}name"])
    if not name or name == "#NAME?":
        name = permalink.replace("-", " ").title()
    fields = {}
    category = row[f"{prefix}category_code"].strip()
    if category and category != "other":
        sector = ctx.mapper.sector("crunchbase-category", category)
        if sector:
            fields["sector"] = sector
    else:
        ctx.mapper.miss("crunchbase-category", category or "(blank)")
    country = ctx.mapper.country(row[f"{prefix}country_code"]) if row[f"{prefix}country_code"].strip() else None
    city = repair(row[f"{prefix}city"])
    if city:
        fields["headquarters_city"] = city
    return CompanyFact(name, slug=permalink, country=country or "", fields=fields)


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    encoding = _encoding(path)
    if path.stem == "crunchbase-companies":
        yield from _companies(path, ctx, encoding)
    elif path.stem == "crunchbase-rounds":
        yield from _rounds(path, ctx, encoding)
    elif path.stem == "crunchbase-acquisitions":
        yield from _acquisitions(path, ctx, encoding)
    else:
        raise SourceError(path, 0, "expected crunchbase-companies.csv, -rounds.csv or -acquisitions.csv")


def _companies(path: Path, ctx: Context, encoding: str) -> Iterator[Fact]:
    for line, row in csv_rows(path, COMPANY, encoding, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            fact = _company(ctx, row, "")
            status = STATUSES.get(row["status"].strip())
            if status is None:
                raise cells.fail("status", f"expected one of {', '.join(STATUSES)}")
            fact.fields["status"] = status
            year = cells.number("founded_year")
            if year and 1800 <= int(year) <= 2100:
                fact.fields["founded_year"] = year
            yield fact


def _rounds(path: Path, ctx: Context, encoding: str) -> Iterator[Fact]:
    for line, row in csv_rows(path, ROUNDS, encoding, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            stage = ROUND_STAGES.get(row["funding_round_type"].strip())
            if stage is None:
                raise cells.fail("funding_round_type", f"expected one of {', '.join(ROUND_STAGES)}")
            date = cells.date("funded_at", DATES)
            if not date:
                ctx.skip("crunchbase: rounds without a date")
                continue
            fact = _company(ctx, row, "company_")
            fact.defaults["status"] = "private"
            yield RoundFact(fact, {"stage": stage, "announced_date": date,
                                   "amount_usd": cells.number("raised_amount_usd")})


def _acquisitions(path: Path, ctx: Context, encoding: str) -> Iterator[Fact]:
    for line, row in csv_rows(path, ACQUISITIONS, encoding, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            acquirer = repair(row["acquirer_name"]) or row["acquirer_permalink"].removeprefix("/company/")
            date = cells.date("acquired_at", DATES)
            if not acquirer or not date:
                ctx.skip("crunchbase: acquisitions without acquirer or date")
                continue
            fact = _company(ctx, row, "company_")
            fact.fields.update({"status": "acquired", "acquirer": acquirer, "acquired_date": date})
            price = cells.number("price_amount")
            if price and row["price_currency_code"].strip() == "USD":
                fact.fields["acquisition_price_usd"] = price
            elif price:
                ctx.skip("crunchbase: acquisition prices not in USD")
            yield fact
