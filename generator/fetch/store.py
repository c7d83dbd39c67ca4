"""The raw folder: one dated folder per run, staged beside the others and renamed into place when complete.

Layout::

    RAW/2025-09-18T031702Z/fetch-manifest.json                  what the run asked and got (below)
    RAW/2025-09-18T031702Z/www.sec.gov/files/company_tickers.json
    RAW/2025-09-18T031702Z/www.sec.gov/Archives/edgar/daily-index/2025/QTR3/master.20250917.idx
    RAW/2025-09-18T031702Z/data.sec.gov/submissions/CIK0001234567.json
    RAW/2025-09-18T031702Z/data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json
    RAW/2025-09-18T031702Z/www.sec.gov/files/dera/data/financial-statement-data-sets/2025q2.zip
    RAW/2025-09-18T031702Z/api.nasdaq.com/api/ipo/calendar/2025-09.json       ?date=2025-09
    RAW/2025-09-18T031702Z/api.nasdaq.com/api/screener/stocks/nyse.json       ?...&exchange=nyse

A run downloads into ``RAW/.fetch-staging/STAMP/`` (hidden: ``import`` never reads it), verifies each file, and
only when every URL of the run succeeded writes its manifest there and renames the folder to ``RAW/STAMP`` (one
rename: the run's files and manifest appear together or not at all). A failed run removes its staging folder; a
killed one leaves it, and the next run removes it first. Files are never changed once in place: a newer download
of the same URL lands in a newer run's folder, and ``import`` reads the newest (``generator.importers.plan``).

The manifest lists every request of the run in order: ``url``, ``source``, ``status`` (200, 304 not modified,
403/404 absent), ``time`` (UTC), ``bytes`` and ``sha256`` of the file it refers to, ``path`` (relative to RAW:
the new file, or for a 304 the earlier file that is still current, and for a 200 whose body is that file's
bytes again (a server that sends no validators) that file too, or "" when absent), ``etag`` and
``last_modified`` as the server sent them. Later runs take their conditional requests from it.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

MANIFEST = "fetch-manifest.json"
STAGING = ".fetch-staging"
LOCK = ".fetch.lock"
STAMP = "%Y-%m-%dT%H%M%SZ"


class StoreError(Exception):
    """The raw folder cannot be used (another fetch holds it, a run folder exists already, ...)."""


@dataclass(frozen=True)
class Entry:
    url: str
    source: str
    status: int
    time: str
    bytes: int = 0
    sha256: str = ""
    path: str = ""
    etag: str = ""
    last_modified: str = ""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class RawFolder:
    def __init__(self, root: Path, started: dt.datetime) -> None:
        self.root = root
        stamp = started.astimezone(dt.UTC).replace(microsecond=0)
        while (root / stamp.strftime(STAMP)).exists():  # two runs in one second: the later one is a second on
            stamp += dt.timedelta(seconds=1)
        self.stamp = stamp.strftime(STAMP)
        self.staging = root / STAGING / self.stamp

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One fetch at a time per raw folder; leftovers of a killed run are removed first."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK, "a+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"{self.root}: another fetch is writing this raw folder") from None
            shutil.rmtree(self.root / STAGING, ignore_errors=True)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def runs(self) -> list[Path]:
        """The committed run folders, oldest first."""
        return sorted(p.parent for p in self.root.glob(f"*/{MANIFEST}") if not p.parent.name.startswith("."))

    def history(self) -> list[Entry]:
        """Every request of every committed run, oldest first."""
        entries: list[Entry] = []
        for run in self.runs():
            try:
                document = json.loads((run / MANIFEST).read_bytes())
                entries += [Entry(**entry) for entry in document["entries"]]
            except (OSError, ValueError, KeyError, TypeError) as error:
                raise StoreError(f"{run / MANIFEST}: not a fetch manifest ({error})") from None
        return entries

    def current(self) -> dict[str, Entry]:
        """For each URL, the newest entry whose file is still in place (what a conditional request refers to)."""
        found: dict[str, Entry] = {}
        for entry in self.history():
            if entry.path and self.holds(entry):
                found[entry.url] = entry
        return found

    def holds(self, entry: Entry) -> bool:
        path = self.root / entry.path
        return path.is_file() and path.stat().st_size == entry.bytes

    def stage(self, local: str, body: bytes) -> Path:
        """Write a download into the run's staging folder (not yet visible); its path there."""
        target = self.staging / local
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        return target

    def path_of(self, local: str) -> str:
        """The path, relative to the raw folder, that a staged file will have once the run is committed."""
        return f"{self.stamp}/{local}"

    def commit(self, entries: list[Entry], about: dict[str, object]) -> Path:
        """Write the manifest into the staging folder and rename the folder into place; the run's folder."""
        document = {**about, "run": self.stamp, "entries": [asdict(entry) for entry in entries]}
        self.stage(MANIFEST, (json.dumps(document, indent=1, sort_keys=True) + "\n").encode())
        final = self.root / self.stamp
        if final.exists():
            raise StoreError(f"{final}: a run folder of that name exists already")
        os.rename(self.staging, final)
        _sync_folder(self.root)
        shutil.rmtree(self.root / STAGING, ignore_errors=True)
        return final

    def abort(self) -> None:
        shutil.rmtree(self.root / STAGING, ignore_errors=True)


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
