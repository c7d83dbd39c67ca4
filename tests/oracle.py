"""An independent reading of the dataset (plain csv, no DuckDB) to check the API's answers against."""

from __future__ import annotations

import csv
import unicodedata
from pathlib import Path
from typing import Any


def read(data: Path, table: str) -> list[dict[str, str]]:
    with open(data / f"{table}.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def companies_with_aliases(data: Path) -> list[dict[str, str | list[str]]]:
    """The companies, each with ``also_known_as``: its rows of aliases.csv (if the folder has one) and the tickers of
    its listed IPOs other than its current one."""
    companies = read(data, "companies")
    known: dict[str, set[str]] = {c["id"]: set() for c in companies}
    if (data / "aliases.csv").exists():
        for alias in read(data, "aliases"):
            known[alias["company_id"]].add(alias["alias"])
    current = {c["id"]: c["ticker"] for c in companies}
    for ipo in read(data, "ipos"):
        if ipo["status"] == "listed" and ipo["ticker"] and ipo["ticker"] != current[ipo["company_id"]]:
            known[ipo["company_id"]].add(ipo["ticker"])
    return [{**c, "also_known_as": sorted(known[c["id"]])} for c in companies]


def words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    out, current = [], ""
    for char in folded:
        if char.isascii() and char.isalnum():
            current += char
        else:
            out.append(current)
            current = ""
    out.append(current)
    return [w for w in out if w]


def current_valuation(c: dict[str, str]) -> int | None:
    """The valuation rankings use: public or private, not flagged stale (data/README.md, "Current valuation")."""
    if c["valuation_usd"] == "" or c["status"] not in ("public", "private") or c["valuation_is_current"] == "false":
        return None
    return int(c["valuation_usd"])


def company_order(companies: list[dict[str, str]], sort: str) -> list[int]:
    """Company ids in the order of a sort value; nulls last in both directions, id breaks ties."""
    field = sort.lstrip("-")
    descending = sort.startswith("-")

    def key(c: dict[str, str]) -> tuple:
        value = current_valuation(c) if field == "valuation" else c["name"].lower()
        if value is None:
            return (1, 0, int(c["id"]))
        if descending:
            return (0, _negate(value), int(c["id"]))
        return (0, value, int(c["id"]))

    return [int(c["id"]) for c in sorted(companies, key=key)]


def _negate(value: int | str) -> object:
    if isinstance(value, int):
        return -value
    return tuple(-ord(ch) for ch in value) + (1,)  # longer string sorts after its prefix when descending


def company_matches(c: dict[str, str], filters: dict[str, str]) -> bool:
    if "sector" in filters and c["sector"] != filters["sector"]:
        return False
    if "country" in filters and c["country"] != filters["country"]:
        return False
    if "minValuation" in filters and (
        current_valuation(c) is None or current_valuation(c) < int(filters["minValuation"])
    ):
        return False
    if "status" in filters and c["status"] != filters["status"]:
        return False
    text = " ".join([c["name"], c["ticker"], *c.get("also_known_as", [])])
    return "q" not in filters or filters["q"] in words(text)  # a whole word


def filter_values(flt: Any, row: dict) -> set[str]:
    """The values of a registry filter (``routes.Filter``) that a listing row matches, as they appear in URLs: the
    documented meaning of each kind, read here apart from ``generator/api/kinds.py`` (whose SQL the files come from),
    by its label. Text: the words (or prefixes of ``prefixes`` characters) of the name, ticker and other names;
    ladder: the rungs at or below the row's number; year: the row's year; a category: its value (or values)."""
    kind = flt.kind.name
    if kind == "text":
        found = words(" ".join([row["name"], row.get("ticker") or "", *row["also_known_as"]]))
        if flt.prefixes:
            shortest, longest = flt.prefixes
            return {w[:n] for w in found for n in range(min(len(w), shortest), min(len(w), longest) + 1)}
        return set(found)
    if kind == "ladder":
        amount = row[flt.column]
        return {str(t) for t in flt.domain if amount is not None and amount >= int(t)}
    if kind == "year":
        date = row.get("year") or (row[flt.column] or "")[:4]
        return {str(date)} if date else set()
    value: Any = row
    for part in flt.column.strip('"').split("."):
        value = value[part]
    if flt.multi:
        return {str(v) for v in value}
    return set() if value is None else {str(value)}


def typed(flt: Any, value: str) -> str | int:
    """A filter value from a URL as ``meta.filters`` and the facets carry it: numbers for ladders and years."""
    return int(value) if flt.kind.name in ("ladder", "year") else value
