"""The import report: rows per table, what was created, how companies were matched, what did not map."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.importers.identity import DECISIONS, REVIEW

if TYPE_CHECKING:
    from generator.importers import ImportResult

UNMATCHED_SHOWN = 20


@dataclass
class Report:
    created: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    """How existing companies were found: cik, ticker, slug, name."""
    conflicts: Counter[str] = field(default_factory=Counter)
    kept_apart: Counter[str] = field(default_factory=Counter)
    """Facts not matched to a record that has their name, per rule (a new record was made for them)."""
    renamed: Counter[str] = field(default_factory=Counter)
    """Records a newer source renamed (another ticker and name), per rule."""
    repeated: Counter[str] = field(default_factory=Counter)
    """Rows a source repeated (same company, date and amount), merged into the first, per table."""
    news: Counter[str] = field(default_factory=Counter)
    """News items by the evidence that found their company (a dated alias, a listing, the current holder)."""
    unmatched: Counter[str] = field(default_factory=Counter)
    """News items whose ticker no company held on their date, by reason (not imported)."""
    unmatched_rows: list[str] = field(default_factory=list)
    """The first ``UNMATCHED_SHOWN`` of them, as file:line, ticker, date and reason."""
    folded: list[str] = field(default_factory=list)
    """Records of the folder folded into another because identities.csv says they are one ('a into b')."""


def render(result: ImportResult, into: Path) -> str:
    lines = [f"imported {len(result.plan)} file(s) into {into}: "
             + ", ".join(f"{name} {count}" for name, count in result.rows.items())]
    report = result.report
    lines.append("  created: " + (", ".join(f"{t} {n}" for t, n in sorted(report.created.items())) or "nothing"))
    lines.append("  updated: " + (", ".join(f"{t} {n}" for t, n in sorted(report.updated.items())) or "nothing"))
    lines.append("  companies found again by: "
                 + (", ".join(f"{k} {n}" for k, n in sorted(report.matched.items())) or "nothing"))
    lines.append("  companies kept apart: " + (", ".join(f"{k} {n}" for k, n in sorted(report.kept_apart.items()))
                                             or "none"))
    if report.renamed:
        lines.append("  companies renamed by a newer listing: "
                     + ", ".join(f"{k} {n}" for k, n in sorted(report.renamed.items())))
    lines.append(f"  pairs listed for review in {REVIEW} (decide them in {DECISIONS}): {result.review}")
    if report.folded:
        lines.append(f"  records folded into one as {DECISIONS} decides: {len(report.folded)}: "
                     + ", ".join(report.folded))
    lines.append("  rows a source repeated, merged into one: "
                 + (", ".join(f"{t} {n}" for t, n in sorted(report.repeated.items())) or "none"))
    if report.news or report.unmatched:
        lines.append("  news items on the company that held their ticker on their date, by evidence: "
                     + (", ".join(f"{k} {n}" for k, n in sorted(report.news.items())) or "none"))
        lines.append(f"  news items not imported, no company known to hold their ticker on their date: "
                     f"{sum(report.unmatched.values())}"
                     + "".join(f"; {reason} {n}" for reason, n in sorted(report.unmatched.items())))
        lines += [f"    {row}" for row in report.unmatched_rows]
        if sum(report.unmatched.values()) > len(report.unmatched_rows):
            lines.append(f"    ... and {sum(report.unmatched.values()) - len(report.unmatched_rows)} more")
    lines.append(f"  companies described by two sources or more: {result.merged_companies}")
    for sources, n in sorted(result.source_sets.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"    {sources}: {n}")
    for title, counts in (("conflicts", report.conflicts), ("filled in", result.fixes),
                          ("not imported", result.context.skipped)):
        for reason, n in sorted(counts.items()):
            where = result.context.where.get(reason, []) if counts is result.context.skipped else []
            lines.append(f"  {title}: {reason}: {n}" + (f" ({', '.join(where)}{', ...' if n > len(where) else ''})"
                                                          if where else ""))
    for vocabulary, values in sorted(result.context.mapper.unmapped.items()):
        top = sorted(values.items(), key=lambda item: (-item[1], item[0]))
        shown = ", ".join(f"{value!r} {n}" for value, n in top[:12])
        more = f" (+{len(top) - 12} more values)" if len(top) > 12 else ""
        lines.append(f"  not mapped ({vocabulary}): {sum(values.values())} rows: {shown}{more}")
    from generator.importers import skip_reason

    for path in result.not_imported:
        lines.append(f"  file not imported: {path}: {skip_reason(path)}")
    lines.append("  files changed: " + (", ".join(result.changed) or "none"))
    return "\n".join(lines)
