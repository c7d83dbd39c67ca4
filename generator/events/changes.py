"""Recording what changed between two snapshots of the dataset: ``python -m generator changes record``.

The nightly job keeps its dataset (a folder under git, or the archive a published site serves at
``/api/export?format=csv``); after an import writes tonight's snapshot, this compares it with the previous one and
appends to the new folder's ``changes.csv`` the differences the dated facts do not say by themselves:

- ``company-added`` and ``company-removed`` (a company id that appears or goes);
- ``company-renamed`` (its name, old and new), ``valuation-changed`` (``valuation_usd``, old and new);
- ``company-delisted``, ``company-closed``, and ``company-acquired`` when no ``acquired_date`` dates it;
- ``api-deprecated``: a path of the API the code declares going away (``generator.api.versions.DEPRECATIONS``).

Each is dated with the new snapshot's as-of date. The previous snapshot's recorded events are carried over, and
every event older than the window (``history.WINDOW_DAYS``) is dropped, so the file stays bounded. The same two
snapshots give the same file, ids included (``history.event_id``), and recording again changes nothing.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from generator.api.exports import ARCHIVE_MANIFEST
from generator.api.versions import DEPRECATIONS
from generator.dataset.history import WINDOW_DAYS, Change, event_id
from generator.dataset.load import DATASET_INFO_FILE, DataError, Issue, read_dataset_info, read_table
from generator.dataset.schema import CHANGES, TABLE_BY_NAME

COMPANIES = TABLE_BY_NAME["companies"]
FORMULA_PREFIX = "'"
"""The CSV export (``exports._csv_select``) prefixes a text cell that starts with = + - @ tab or CR with this
(spreadsheets run those); a snapshot read from the archive drops it again."""
STATUS_EVENTS = {"delisted": "company-delisted", "closed": "company-closed", "acquired": "company-acquired"}
"""A company's new status that is an event of its own (``acquired``: only when no ``acquired_date`` dates it, else
the dated fact says it)."""


@dataclass
class Recorded:
    """What ``record`` did: the events it added by type, those it carried over and dropped, the file's rows."""

    added: Counter[str] = field(default_factory=Counter)
    carried: int = 0
    dropped: int = 0
    rows: int = 0
    written: bool = False


@dataclass(frozen=True)
class Snapshot:
    as_of: dt.date
    companies: dict[int, dict[str, object]]
    changes: dict[str, dict[str, object]]


@contextmanager
def _folder(source: Path) -> Iterator[tuple[Path, dt.date]]:
    """A dataset folder, or a CSV dataset archive (``/api/export/csv/dataset.zip``: ``/api/export?format=csv``)
    unpacked into a temporary folder; with its as-of date."""
    if source.is_dir():
        yield source, read_dataset_info(source).as_of
        return
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as error:
        raise DataError([Issue(str(source), 0, "", f"neither a dataset folder nor a zip archive: {error}")]) from None
    with archive, tempfile.TemporaryDirectory(prefix="changes-") as scratch:
        names = set(archive.namelist())
        if ARCHIVE_MANIFEST not in names or COMPANIES.file_name not in names:
            raise DataError([Issue(str(source), 0, "", f"not a CSV dataset archive: it has no {ARCHIVE_MANIFEST} "
                                   f"and {COMPANIES.file_name}")])
        as_of = dt.date.fromisoformat(json.loads(archive.read(ARCHIVE_MANIFEST))["meta"]["as_of"])
        for table in (COMPANIES, CHANGES):
            if table.file_name in names:
                Path(scratch, table.file_name).write_bytes(_unprefixed(archive.read(table.file_name)))
        yield Path(scratch), as_of


def _unprefixed(data: bytes) -> bytes:
    """The export's CSV (CRLF, formula cells prefixed) as the dataset writes it."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([c[1:] if c[:1] == FORMULA_PREFIX and c[1:2] in ("=", "+", "-", "@", "\t", "\r") else c
                         for c in row])
    return out.getvalue().encode("utf-8")


def read_snapshot(source: Path) -> Snapshot:
    """The companies and recorded events of a snapshot (a folder or a CSV dataset archive), validated."""
    with _folder(source) as (folder, as_of):
        issues: list[Issue] = []
        companies = read_table(folder, COMPANIES, None, issues)
        changes = read_table(folder, CHANGES, None, issues) if (folder / CHANGES.file_name).exists() else None
        if issues:
            raise DataError([Issue(f"{source.name}/{i.file}" if not source.is_dir() else i.file, i.line, i.column,
                                   i.reason) for i in issues])
        return Snapshot(as_of, {int(row["id"]): row for row in companies.rows},  # type: ignore[call-overload]
                        {str(row["id"]): row for row in (changes.rows if changes else [])})


def _event(kind: str, day: dt.date, company: dict[str, object], summary: str,
           fields: list[tuple[str, object, object]] = ()) -> dict[str, object]:  # type: ignore[assignment]
    changes = [{"field": name, "old": old, "new": new} for name, old, new in fields]
    parts = [kind, "company", company["id"], day.isoformat()] + [f"{n}:{o}>{w}" for n, o, w in fields]
    return {"id": event_id(*parts), "date": day, "type": kind, "entity_kind": "company",
            "entity_id": str(company["id"]), "company_id": company["id"], "company_slug": company["slug"],
            "company_name": company["name"], "summary": summary,
            "changes": json.dumps(changes, ensure_ascii=False, separators=(",", ":")) if changes else None,
            "snapshot": day}


def differences(before: dict[int, dict[str, object]], after: dict[int, dict[str, object]],
                day: dt.date) -> list[dict[str, object]]:
    """The events between two snapshots' companies, dated ``day``."""
    out = []
    for key in sorted(before.keys() - after.keys()):
        old = before[key]
        out.append(_event("company-removed", day, old, f"{old['name']} was removed from the dataset"))
    for key in sorted(after.keys() - before.keys()):
        new = after[key]
        out.append(_event("company-added", day, new, f"{new['name']} was added to the dataset"))
    for key in sorted(after.keys() & before.keys()):
        old, new = before[key], after[key]
        if old["name"] != new["name"]:
            out.append(_event("company-renamed", day, new, f"{old['name']} is now {new['name']}",
                              [("name", old["name"], new["name"])]))
        if old["valuation_usd"] != new["valuation_usd"]:
            said = (f"{new['name']}'s valuation changed from {_usd(old['valuation_usd'])} to "
                    f"{_usd(new['valuation_usd'])}")
            out.append(_event("valuation-changed", day, new, said,
                              [("valuation_usd", old["valuation_usd"], new["valuation_usd"])]))
        status = STATUS_EVENTS.get(str(new["status"]))
        if status and old["status"] != new["status"] and not (status == "company-acquired" and new["acquired_date"]):
            out.append(_event(status, day, new, f"{new['name']} is now {new['status']} (was {old['status']})",
                              [("status", old["status"], new["status"])]))
    return out


def api_events(start: dt.date, as_of: dt.date) -> list[dict[str, object]]:
    """An ``api-deprecated`` event for each deprecation the code declares (``versions.DEPRECATIONS``) announced
    within the window, dated with its announcement."""
    return [{"id": event_id("api-deprecated", "api", d.path, d.announced.isoformat()), "date": d.announced,
             "type": "api-deprecated", "entity_kind": "api", "entity_id": d.path, "company_id": None,
             "company_slug": None, "company_name": None, "summary": d.summary(), "changes": None, "snapshot": as_of}
            for d in DEPRECATIONS if start < d.announced <= as_of]


def _usd(value: object) -> str:
    return "none" if value is None else f"{value:,} USD"


def record(previous: Path, data: Path) -> Recorded:
    """Append to ``data``'s ``changes.csv`` the differences from ``previous`` (a dataset folder or a CSV dataset
    archive), carrying over both snapshots' recorded events within the window; the file is rewritten only when its
    bytes change, through a temporary file and a rename."""
    old, new = read_snapshot(previous), read_snapshot(data)
    if old.as_of > new.as_of:
        raise DataError([Issue(DATASET_INFO_FILE, 0, "as_of", f"the previous snapshot ({old.as_of}) is newer than "
                               f"this one ({new.as_of}): give the snapshots in order")])
    start = new.as_of - dt.timedelta(days=WINDOW_DAYS)
    report = Recorded()
    kept: dict[str, dict[str, object]] = {}
    dropped = set()
    for source in (old.changes, new.changes):
        for key, row in source.items():
            if start < row["date"] <= new.as_of:  # type: ignore[operator]
                kept[key] = row
            else:
                dropped.add(key)
    report.carried, report.dropped = len(kept), len(dropped)
    for event in [*differences(old.companies, new.companies, new.as_of), *api_events(start, new.as_of)]:
        if event["id"] not in kept:
            report.added[str(event["type"])] += 1
        kept[str(event["id"])] = Change.model_validate(event).__dict__
    report.rows = len(kept)
    report.written = _write(data / CHANGES.file_name, sorted(kept.values(), key=lambda r: (r["date"], r["id"])))
    return report


def _write(path: Path, rows: list[dict[str, object]]) -> bool:
    columns = list(CHANGES.model.model_fields)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row[c] is None else row[c].isoformat() if isinstance(row[c], dt.date) else row[c]
                         for c in columns])
    data = out.getvalue().encode("utf-8")
    if path.exists() and path.read_bytes() == data:
        return False
    temporary = path.with_name(f".{path.name}.recording")
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return True
