"""Fold two records of a canonical folder into one where ``identities.csv`` says they are one company.

A ``same`` decision says that the company a source calls ``name`` (in ``city``) is the one called ``other_name``
(in ``other_city``). Imported into a fresh folder, the two never become two records (``merge`` looks the name up
through the decision). When the folder already holds both, each import first folds the first into the second,
before any fact is merged: the second keeps its id, slug and values; a value only the first has moves over with
its provenance; the rows about the first (IPOs, rounds, filings, news, financials, marks, aliases) become the
second's, except a fiscal year, month or alias the second has itself; the first's name is kept as a name the
company had (``aliases``). A decision that fits several records on either side, or two records with different
CIKs, folds nothing and is counted in the report's conflicts.
"""

from __future__ import annotations

from generator.dataset.schema import TABLES
from generator.importers.identity import Decisions, city_key, normalise
from generator.importers.report import Report
from generator.importers.store import Store, record_key

DEPENDENT = tuple(t for t in TABLES for fk in t.foreign_keys if fk.table == "companies" and fk.column == "company_id")
"""The tables whose rows are about a company (``company_id``)."""
DECISION_SOURCE = "identities"
"""Provenance source of what a decision made (the folded record's name kept as an alias)."""


def _fits(row: dict[str, str], name: str, city: str) -> bool:
    return normalise(row["name"]) == name and (not city or city_key(row["headquarters_city"]) == city)


def fold_decided(store: Store, decisions: Decisions, report: Report) -> None:
    """Fold every pair of records a ``same`` decision names, in the order of the decisions."""
    companies = store.rows["companies"]
    for (name, city), (other_name, other_city) in sorted(decisions.same.items()):
        target = [k for k, r in companies.items() if _fits(r, normalise(other_name), city_key(other_city))]
        folded = [k for k, r in companies.items() if _fits(r, name, city) and k not in target]
        if not folded or not target:
            continue  # one of the two is not in the folder: nothing to fold
        if len(folded) > 1 or len(target) > 1:
            report.conflicts["identities.csv: a same decision fits several records (not folded)"] += 1
            continue
        one, other = companies[folded[0]], companies[target[0]]
        if one["cik"] and other["cik"] and one["cik"] != other["cik"]:
            report.conflicts["identities.csv: a same decision names two CIKs (not folded)"] += 1
            continue
        report.folded.append(f"{one['slug']} into {other['slug']}")
        _fold(store, folded[0], target[0])


def _fold(store: Store, gone: str, kept: str) -> None:
    companies = store.rows["companies"]
    old, new = companies.pop(gone), companies[kept]
    for column, value in old.items():
        if value and not new[column] and column not in ("id", "slug"):
            new[column] = value
            owner = store.owner("companies", gone, column)
            if owner is not None:
                store.claim("companies", kept, column, *owner)
    store.move("companies", gone, kept, values=False)
    for table in DEPENDENT:
        rows = store.rows[table.name]
        for key in [k for k, r in rows.items() if r["company_id"] == gone]:
            row = rows.pop(key)
            row["company_id"] = kept
            moved = record_key(table, row)
            if moved in rows:
                store.drop(table.name, key)
                continue  # the kept record's own fiscal year, month or alias stays
            rows[moved] = row
            store.move(table.name, key, moved)
    if normalise(old["name"]) != normalise(new["name"]):
        key = f"{kept}|name|{old['name']}"
        if key not in store.rows["aliases"]:
            store.rows["aliases"][key] = {"company_id": kept, "kind": "name", "alias": old["name"], "from_date": "",
                                          "to_date": "", "source": "identities.csv (same company)"}
        store.claim("aliases", key, "source", DECISION_SOURCE, "estimate")
