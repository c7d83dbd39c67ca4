"""The build's bookkeeping inside its output, which the next build reads instead of the files themselves.

- ``.company-ipo-api.digests``: every file of the output but itself, one line each,
  ``path<TAB>blake2b<TAB>size<TAB>unit``, sorted by path. ``unit`` names the part of the build that wrote the
  file: one listing route (``listing:companies``), one profile (``companies/42``), the exports (``export``);
  empty for the documents rendered every time.
- ``.company-ipo-api.units``: JSON: the fingerprint of the generator's code and, per unit, its key (a digest of
  everything its files are rendered from: the rows of the listing's query, a profile's input records, the
  tables an export holds, the dataset's metadata) and what the build needs from a unit it does not render (a
  listing's filter domains).

A rebuild renders a unit only when its key changed or the code did; otherwise it hard-links the unit's files from
the previous output, after checking that each is still the file the manifest lists (same size, not modified
since the manifest was written). A file edited by hand makes its unit render again.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field

from generator import serialize

DIGESTS_FILE = ".company-ipo-api.digests"
"""Every file of the output but itself: ``path<TAB>digest<TAB>size<TAB>unit`` per line, sorted by path."""
UNITS_FILE = ".company-ipo-api.units"
"""Each unit's key and carried data, and the code fingerprint they are valid for (JSON)."""


def digest(data: bytes) -> str:
    """Digest of a file's bytes, as the manifest lists it."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def unit_key(*parts: str | bytes) -> str:
    """Digest of a unit's inputs, given as its parts (each length-prefixed, so parts cannot run together)."""
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little") + data)
    return hasher.hexdigest()


def _mtime_ns(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


@dataclass
class Previous:
    """What the previous build left in its output."""

    files: dict[str, tuple[str, int]]
    """Every file: path -> (digest, size)."""
    listed_at: int
    """When the digest manifest was written (ns): a file modified later is not what the manifest says."""
    by_unit: dict[str, list[str]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    """Unit -> key; empty when the code changed since (every unit renders again)."""
    extras: dict[str, object] = field(default_factory=dict)


def read_previous(folder: str | None, code: str | None = None) -> Previous | None:
    """The bookkeeping of an output folder; None where it has no (readable) digest manifest. Unit keys are kept
    only if they were made by the same ``code``."""
    if folder is None:
        return None
    path = os.path.join(folder, DIGESTS_FILE)
    listed_at = _mtime_ns(path)
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    previous = Previous({}, listed_at)
    for line in lines:
        fields = line.split("\t")
        if len(fields) not in (3, 4) or not fields[2].isdigit():
            return None  # damaged: compare byte by byte instead
        previous.files[fields[0]] = (fields[1], int(fields[2]))
        if len(fields) == 4 and fields[3]:
            previous.by_unit.setdefault(fields[3], []).append(fields[0])
    try:
        with open(os.path.join(folder, UNITS_FILE), encoding="utf-8") as handle:
            units = json.load(handle)
    except (OSError, ValueError):
        return previous
    if isinstance(units, dict) and code is not None and units.get("code") == code:
        previous.keys = dict(units.get("keys") or {})
        previous.extras = dict(units.get("extras") or {})
    return previous


def digests_body(digests: dict[str, tuple[str, int]], units: dict[str, str]) -> bytes:
    """The digest manifest of ``digests`` (path -> (digest, size)) with each file's unit."""
    return "".join(
        f"{path}\t{hexdigest}\t{size}\t{units.get(path, '')}\n" for path, (hexdigest, size) in sorted(digests.items())
    ).encode("utf-8")


def units_body(code: str, keys: dict[str, str], extras: dict[str, object]) -> bytes:
    """The units file: ``code`` and every unit's key and carried data, sorted by unit."""
    return serialize.document(
        {"code": code, "keys": dict(sorted(keys.items())), "extras": dict(sorted(extras.items()))}
    )
