"""Importers of public data formats into a canonical folder: ``python -m generator import SOURCE FILES --into DIR``.

One module per format reads its files into facts (``base``); ``merge`` resolves them against the folder's
records (with ``identity``, ``aliases``, ``investor_book``, ``news`` and ``fold``); ``finalize`` fills what no
source said and adds reference rows; ``store`` writes the folder back, byte-identical when nothing changed. The
result is validated like any dataset before a file is replaced.

May import ``generator.dataset`` only.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from generator.dataset.schema import RESERVED_SLUGS
from generator.importers import (
    crunchbase,
    edgar,
    edgar_sectors,
    investors,
    iposcoop,
    nasdaq,
    nasdaq_calendar,
    nasdaq_screener,
    newsfeed,
    sec_companyfacts,
    sec_datasets,
    unicorns,
)
from generator.importers.base import Context, Fact, Source, SourceError
from generator.importers.finalize import finalize
from generator.importers.identity import REVIEW, Decisions, render_review, review_pairs
from generator.importers.merge import Merger, Report
from generator.importers.store import Store


@dataclass(frozen=True)
class Format:
    source: Source
    detect: Callable[[Path], int | None]
    read: Callable[[Path, Context], Iterator[Fact]]


FORMATS: dict[str, Format] = {f.source.name: f for f in (
    Format(edgar.SOURCE, edgar.detect, edgar.read),
    Format(edgar_sectors.SOURCE, edgar_sectors.detect, edgar_sectors.read),
    Format(nasdaq.SOURCE, nasdaq.detect, nasdaq.read),
    Format(nasdaq_calendar.SOURCE, nasdaq_calendar.detect, nasdaq_calendar.read),
    Format(nasdaq_screener.SOURCE, nasdaq_screener.detect, nasdaq_screener.read),
    Format(iposcoop.SOURCE, iposcoop.detect, iposcoop.read),
    Format(unicorns.CBINSIGHTS, unicorns.detect_cbinsights, unicorns.read_cbinsights),
    Format(unicorns.MAVEN, unicorns.detect_maven, unicorns.read_maven),
    Format(crunchbase.SOURCE, crunchbase.detect, crunchbase.read),
    Format(investors.SOURCE, investors.detect, investors.read),
    Format(newsfeed.SOURCE, newsfeed.detect, newsfeed.read),
    Format(sec_companyfacts.SOURCE, sec_companyfacts.detect, sec_companyfacts.read),
    Format(sec_datasets.SOURCE, sec_datasets.detect, sec_datasets.read),
)}
AUTO = "auto"
"""Source name that finds the format of each file (folders are walked) and imports in a fixed order: company
lists first, then IPO calendars, unicorn lists, Crunchbase, investments, filing indexes, and news feeds last."""
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{6}Z)?$")
"""A dated folder (``2025-09-18``, or a fetch run's ``2025-09-18T031702Z``)."""


NOT_IMPORTED = {
    "nasdaq_ipos_cleaned": "its author gave filed-only deals a made-up date and price; the raw calendar is read",
    "cbinsights_unicorns_2025-01-07_raw": "web-page export; its tidy version is read",
    "raw_partner_headlines_sample": "news-feed sample whose headlines' digits are corrupted at the source: the "
                                    "shape of a feed, not news to publish (import news-feed FILE reads it)",
    "sic": "SIC code titles: the mapping table maps SIC codes by range (generator/importers/mapping.py)",
    "fetch-manifest": "the record of a fetch run (URL, time, status, bytes, sha256 of each request)",
}
"""Files ``auto`` leaves out on purpose, by the start of their name, with the reason (whether or not it knows their
format: naming the source imports them)."""


UNKNOWN = "not a known format"


def skip_reason(path: Path) -> str:
    if path.suffix == ".gz" and path.with_suffix("").is_file():
        return f"a gzip copy of {path.with_suffix('').name} beside it, which is read"
    return next((why for start, why in NOT_IMPORTED.items() if path.name.startswith(start)), UNKNOWN)


@dataclass
class ImportResult:
    plan: list[tuple[str, Path]]
    report: Report
    context: Context
    fixes: dict[str, int]
    changed: list[str]
    rows: dict[str, int]
    merged_companies: int
    """Companies that two sources or more describe."""
    review: int = 0
    """Pairs of records kept apart and listed in ``identity-review.csv`` for a person to decide."""
    source_sets: dict[str, int] = field(default_factory=dict)
    """'edgar+nasdaq' -> number of companies described by exactly those sources."""
    not_imported: list[Path] = field(default_factory=list)


def walk(folder: Path) -> list[Path]:
    """The files under ``folder``, sorted: none under a hidden name (dotfiles, a fetch's staging folder) and, of
    files whose paths differ only in dated folders (the runs of ``fetch``), only the newest."""
    newest: dict[tuple[str, ...], tuple[tuple[str, ...], Path]] = {}
    for path in folder.rglob("*"):
        parts = path.relative_to(folder).parts
        if any(part.startswith(".") for part in parts) or not path.is_file():
            continue
        dated = {i for i, part in enumerate(parts[:-1]) if _DATED.match(part)}
        key = tuple("" if i in dated else part for i, part in enumerate(parts))
        stamp = tuple(parts[i] for i in sorted(dated))
        if key not in newest or stamp > newest[key][0]:
            newest[key] = (stamp, path)
    return sorted(path for _, path in newest.values())


def _undated(path: Path) -> str:
    """The path with its dated folders left out: files of different fetch runs import in the order of their
    names, the same as the files themselves in one folder would."""
    return "/".join("" if _DATED.match(part) else part for part in path.parts[:-1]) + "/" + path.name


def label(path: Path, given: list[Path]) -> str:
    """How provenance names a file: its path under the folder given to ``import`` that holds it (the same on every
    machine), without the dated folders of fetch runs (``data.sec.gov/submissions/CIK0000320193.json``: a fetch
    keeps the source's URL layout, and a file is the same source whichever night fetched it), or its name when
    the file itself was given."""
    for root in given:
        if root.is_dir() and path.is_relative_to(root):
            parts = [part for part in path.relative_to(root).parts[:-1] if not _DATED.match(part)]
            return "/".join([*parts, path.name]).replace(";", ",")
    return path.name.replace(";", ",")


def plan(source: str, paths: list[Path]) -> tuple[list[tuple[str, Path]], list[Path]]:
    """(format, file) pairs in import order, and the files ``auto`` recognised as no format."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(walk(path))
        elif path.is_file():
            files.append(path)
        else:
            raise SourceError(path, 0, "no such file or folder")
    if source != AUTO:
        if source not in FORMATS:
            raise SourceError(source, 0, f"unknown source; expected one of {', '.join([AUTO, *FORMATS])}")
        return [(source, p) for p in files], []
    ordered, unknown = [], []
    for path in files:
        found = [(rank, name) for name, f in FORMATS.items() if (rank := f.detect(path)) is not None
                 and skip_reason(path) == UNKNOWN]
        if found:
            rank, name = min(found)
            ordered.append((rank, _undated(path), str(path), name, path))
        elif path.name != "SOURCES.md":
            unknown.append(path)
    return [(name, path) for *_, name, path in sorted(ordered)], unknown


def import_files(source: str, paths: list[Path], into: Path, progress: Callable[[str], None] = print) -> ImportResult:
    """Import ``paths`` into the canonical folder ``into`` (created if missing); validate before replacing files."""
    existed = into.exists()
    try:
        return _import(source, paths, into, progress)
    except Exception:
        if not existed:  # a failed import into a new folder leaves nothing behind
            shutil.rmtree(into, ignore_errors=True)
        raise


def _import(source: str, paths: list[Path], into: Path, progress: Callable[[str], None]) -> ImportResult:
    from generator.dataset.load import validate

    steps, unknown = plan(source, paths)
    if not steps:
        listed = "; ".join(f"{path}: {skip_reason(path)}" for path in unknown[:10]) or "no files"
        raise SourceError(", ".join(str(p) for p in paths), 0, f"no file of a known format to import ({listed})")
    store = Store.load(into)
    ticker_lists = frozenset(f.source.name for f in FORMATS.values() if f.source.current_tickers)
    decisions = Decisions.load(into)
    merger = Merger(store, RESERVED_SLUGS, ticker_lists, decisions)
    context = Context()
    for name, path in steps:
        fmt = FORMATS[name]
        progress(f"{name}: {path}")
        context.errors = []
        context.file = context.place = label(path, paths)
        read = 0
        for fact in fmt.read(path, context):
            store.place = context.place
            merger.apply(fact, fmt.source)
            read += 1
        if context.errors and not read:  # not one record could be read: the file is wrong as a whole
            raise context.errors[0]
    store.place = ""
    fixes = finalize(store, sorted({FORMATS[name].source.description for name, _ in steps}), ticker_lists)
    pairs = review_pairs(store.rows["companies"], decisions, store.rows["aliases"])
    store.extra[REVIEW] = render_review(pairs)
    staging = into / ".import-staging"
    shutil.rmtree(staging, ignore_errors=True)
    files = store.render()
    try:
        store.write(staging, files)
        validate(staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    changed = store.write(into, files)
    source_sets = Counter("+".join(sorted(store.sources_of("companies", key))) for key in store.rows["companies"])
    merged = sum(n for sources, n in source_sets.items() if "+" in sources)
    rows = {name: len(table) for name, table in store.rows.items()}
    return ImportResult(steps, merger.report, context, dict(fixes), changed, rows, merged, len(pairs),
                        dict(source_sets), unknown)
