"""The fiscal years of the folder (``financials``), found or made for each ``FinancialFact``.

A fact is one fiscal year of a company as one source file saw it. The year on record for the same period (its
``period_end`` within ``SAME_PERIOD_DAYS``: the SEC's data sets round period ends to the month end) or, failing
that, with the same label takes it; else a new row is made. Facts of one fiscal year from several imports (a
companyfacts document and a data-sets quarter covering the same filing, or a later file) merge so that:

- ``accession_number`` / ``filed_date`` stay the earliest original report either names;
- the figures are those of the later filing (the one that gave each side's figures: its restating filing, else
  its original); values the later side lacks are kept from the other; gross margin follows the figures;
- ``restated_accession_number`` / ``restated_date`` are the latest restating filing either names, or the later
  filing when the two sides' figures differ.

A company no list made (``create=False`` facts whose CIK is unknown) is counted in the report, not created. Values
go in through ``Merger.assign`` with the source's basis, so provenance names who gave each; a value already in the
folder without provenance (hand-curated) is never overwritten.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from generator.importers.base import CompanyFact, FinancialFact, Source
from generator.importers.report import Report
from generator.importers.sec_financials import FIGURE_COLUMNS, margin
from generator.importers.store import PLACEHOLDER_SOURCE, Store

SAME_PERIOD_DAYS = 20
UNKNOWN_COMPANY = "financial years of a CIK no imported company list knows (skipped)"
LABEL_CONFLICT = "financial years whose label the company has on record for another period (skipped)"
RELABELLED = "financial years on record for the same period under another label (merged into it)"
FIGURES = (*FIGURE_COLUMNS, "gross_margin", "period_end", "currency_converted_from")
"""Columns that follow the later filing."""
FILING = ("accession_number", "filed_date", "restated_accession_number", "restated_date")


class Merging(Protocol):
    """What of ``merge.Merger`` this module uses."""

    store: Store
    report: Report

    def _new(self, table: str, values: dict[str, str]) -> str: ...

    def company(self, fact: CompanyFact, source: Source) -> str | None: ...

    def assign(self, table: str, key: str, values: dict[str, str], source: Source, basis: str,
               only_empty: bool = False) -> None: ...


def _apart(a: str, b: str) -> int:
    return abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days)


def _figures_from(row: dict[str, str]) -> tuple[str, str]:
    """(date, accession) of the filing whose figures ``row`` gives: its restating filing, else its original."""
    if row.get("restated_accession_number"):
        return row.get("restated_date", ""), row["restated_accession_number"]
    return row.get("filed_date", ""), row.get("accession_number", "")


class FinancialBook:
    def __init__(self, merger: Merging) -> None:
        self.merger = merger
        self.years: dict[str, dict[str, str]] = {}
        """company id -> fiscal year -> record key."""
        for key, row in merger.store.rows["financials"].items():
            self.years.setdefault(row["company_id"], {})[row["fiscal_year"]] = key

    def _find(self, company: str, fields: dict[str, str]) -> str | None:
        rows, years = self.merger.store.rows["financials"], self.years.get(company, {})
        end = fields.get("period_end", "")
        if end:
            for key in sorted(years.values(), key=lambda k: rows[k]["fiscal_year"]):
                if rows[key]["period_end"] and _apart(rows[key]["period_end"], end) <= SAME_PERIOD_DAYS:
                    if rows[key]["fiscal_year"] != fields["fiscal_year"]:
                        self.merger.report.conflicts[RELABELLED] += 1
                    return key
        key = years.get(fields["fiscal_year"])
        if key is not None and end and rows[key]["period_end"]:  # the label is another period's
            self.merger.report.conflicts[LABEL_CONFLICT] += 1
            return ""
        return key

    def merge(self, fact: FinancialFact, source: Source) -> None:
        merger, store = self.merger, self.merger.store
        company = merger.company(fact.company, source)
        if company is None:
            merger.report.conflicts[UNKNOWN_COMPANY] += 1
            return
        key = self._find(company, fact.fields)
        if key == "":
            return
        if key is None:
            key = merger._new("financials", {"company_id": company, "fiscal_year": fact.fields["fiscal_year"],
                                             "basis": source.basis})
            self.years.setdefault(company, {})[fact.fields["fiscal_year"]] = key
            values = dict(fact.fields)
        else:
            row = store.rows["financials"][key]
            values = self._combine(row, fact.fields)
            for column, value in values.items():
                owner = store.owner("financials", key, column)
                if value == row[column] or owner is None:  # unchanged, or hand-curated: it stays
                    continue
                if value == "":  # the later filing's figures are not converted
                    row[column] = ""
                    store.release("financials", key, column)
                elif owner[0] != source.name:
                    store.claim("financials", key, column, PLACEHOLDER_SOURCE, "estimate")  # the later filing's
        values.pop("fiscal_year", None)
        store.mention("financials", key, source.name, source.basis)
        merger.assign("financials", key, {**values, "basis": source.basis}, source, source.basis)

    @staticmethod
    def _combine(row: dict[str, str], fields: dict[str, str]) -> dict[str, str]:
        """The values of the year once ``fields`` is merged into ``row`` (see the module)."""
        mine, theirs = _figures_from(row), _figures_from(fields)
        later, earlier = (fields, row) if theirs > mine else (row, fields)
        values = {c: later.get(c) or earlier.get(c, "") for c in FIGURES}
        if later.get("revenue_usd"):  # converted or not, as the later filing's revenue is
            values["currency_converted_from"] = later.get("currency_converted_from", "")
        values["gross_margin"] = margin(values["gross_profit_usd"], values["revenue_usd"]) or values["gross_margin"]
        originals = [(r["filed_date"], r["accession_number"]) for r in (row, fields) if r.get("accession_number")]
        if originals:
            values["filed_date"], values["accession_number"] = min(originals)
        differ = any(row.get(c) and fields.get(c) and row[c] != fields[c] for c in FIGURE_COLUMNS)
        restatings = [(r["restated_date"], r["restated_accession_number"])
                      for r in (row, fields) if r.get("restated_accession_number")]
        if differ and max(mine, theirs)[1]:
            restatings.append(max(mine, theirs))
        restatings = [r for r in restatings if originals and r > min(originals)]
        if restatings:
            values["restated_date"], values["restated_accession_number"] = max(restatings)
        return {c: v for c, v in values.items() if v or c == "currency_converted_from"}
