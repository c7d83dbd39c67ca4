"""Crunchbase investor-company links (``investments.csv``: company, investor, date, round amount).

The company is found by name alone (the file has no permalink or country); a link is attached to the company's
round on that date, or to a new round of stage ``undisclosed`` with the round's amount. The investor type is
not in the file: ``investor_type`` guesses it from the name (recorded as an estimate in provenance).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import (
    Cells,
    CompanyFact,
    Context,
    Fact,
    InvestmentFact,
    InvestorFact,
    Source,
    csv_rows,
    display_name,
)

SOURCE = Source("crunchbase-investments", "press-report", "Crunchbase 2013 investor-company links")
COLUMNS = ["company_name", "investor_name", "funded_when", "amount_usd"]
_FIRM = re.compile(r"\b(capital|ventures?|partners|vc|fund|funds|invest\w*|equity|holdings|group|labs?|"
                   r"associates|management|llc|lp|inc|ltd|gmbh|ag|sa|fondo|network|angels?|accelerator|"
                   r"incubator|bank|corp\w*|co)\b", re.IGNORECASE)
_KEYWORDS = (("accelerator", "accelerator"), ("incubator", "accelerator"), ("y combinator", "accelerator"),
             ("techstars", "accelerator"), ("angel", "angel"), ("bank", "bank"), ("growth", "growth"),
             ("private equity", "private-equity"), ("family office", "family-office"))


def investor_type(name: str) -> str:
    lowered = name.lower()
    for word, kind in _KEYWORDS:
        if word in lowered:
            return kind
    words = name.split()
    if 2 <= len(words) <= 3 and not _FIRM.search(name) and all(w[:1].isupper() for w in words):
        return "angel"
    return "vc"


def detect(path: Path) -> int | None:
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", errors="replace") as handle:
            if handle.readline().strip() == ",".join(COLUMNS):
                return 60
    return None


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    for line, row in csv_rows(path, COLUMNS, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            company, investor = display_name(row["company_name"]), display_name(row["investor_name"])
            date = cells.date("funded_when", ("%Y-%m-%d",))
            if not company or not investor or not date:
                ctx.skip("crunchbase-investments: rows without company, investor or date")
                continue
            yield InvestmentFact(CompanyFact(company, defaults={"status": "private"}),
                                 InvestorFact(investor, {"type": investor_type(investor)}),
                                 date, cells.number("amount_usd"))
