"""The build's bookkeeping inside its output, which the next build reads instead of the files themselves.

- ``.company-ipo-api.digests``: every file of the output but itself, one line each,
  ``path<TAB>digest<TAB>size<TAB>unit<TAB>inputs``, sorted by path; the digest is sha256 cut to 96 bits, in
  base64url, the unit the name of the unit that wrote the file (one of the units file), empty for the
  documents rendered every time; ``inputs``, on listing pages, the key of the filter combination the page
  belongs to (``listing.render``): a route whose rows changed renders again only the combinations whose key
  changed and carries the others' pages (every file of the combination's folder) over. A unit is one part of
  the build: one listing route (``listing:companies``), one profile (``company/42``), one table's exports
  (``export/news``), the whole-dataset exports (``export/dataset``).
- ``.company-ipo-api.units``: JSON: the fingerprint of the generator's code and every unit as ``[name, key]``
  sorted by name (the key: a digest of everything its files are rendered from: the rows of the listing's query,
  a profile's input records, an export's table, the dataset's metadata).

A rebuild renders a unit only when its key changed or the code did; otherwise it hard-links the unit's files from
the previous output, after checking that each is still the file the manifest lists (same size, not modified
since the manifest was written). A file edited by hand makes its unit render again.
"""

from __future__ import annotations

import binascii
import contextlib
import functools
import gc
import hashlib
import heapq
import itertools
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from generator.dataset import serialize

DIGESTS_FILE = ".company-ipo-api.digests"
"""Every file of the output but itself: ``path<TAB>digest<TAB>size<TAB>unit index<TAB>inputs`` per line."""
UNITS_FILE = ".company-ipo-api.units"
"""Each unit's key, and the code fingerprint they are valid for (JSON)."""
UNITS_AT_A_TIME = 10_000
"""Units of the units file serialized and held at a time (``units_pieces``)."""


_URL_SAFE = bytes.maketrans(b"+/", b"-_")


def _text(raw: bytes) -> str:
    """URL-safe base64 of 12 bytes (16 characters, no padding), without ``base64``'s layers of Python calls."""
    return binascii.b2a_base64(raw, newline=False).translate(_URL_SAFE).rstrip(b"=").decode("ascii")


def digest(data: bytes) -> str:
    """Digest of a file's bytes, as the manifest lists it: sha256 (which the processor computes, at twice the speed of
    blake2b here) cut to 96 bits."""
    return _text(hashlib.sha256(data).digest()[:12])


def digest_text(hasher: hashlib._Hash) -> str:
    """``digest`` of bytes fed to a sha256 ``hasher`` a block at a time."""
    return _text(hasher.digest()[:12])


def unit_key(*parts: str | bytes) -> str:
    """Digest of a unit's inputs, given as its parts (each length-prefixed, so parts cannot run together)."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little") + data)
    return _text(hasher.digest()[:12])


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
    rows: list[list[str]] = field(default_factory=list, repr=False)
    """The manifest's lines as fields, kept for ``inputs`` and ``by_folder`` (empty when the code changed since).
    Those are made when first used: by the worker processes that carry listing pages over, each for itself,
    instead of by the build process before it starts them."""

    @functools.cached_property
    def inputs(self) -> dict[str, str]:
        """Listing page -> key of its filter combination; empty when the code changed since."""
        with _collection_paused():
            return {fields[0]: fields[4] for fields in self.rows if fields[4] and fields[3]}

    @functools.cached_property
    def by_folder(self) -> dict[str, list[str]]:
        """Folder -> the listing pages in it that have an inputs key."""
        folders: dict[str, list[str]] = {}
        with _collection_paused():
            for path in self.inputs:
                folders.setdefault(path[: path.rindex("/")], []).append(path)
        return folders


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """No garbage collection meanwhile: a few hundred thousand new lists and tuples, none of them garbage, would only
    cost collections."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def read_previous(folder: str | None, code: str | None = None) -> Previous | None:
    """The bookkeeping of an output folder; None where it has no (readable) digest manifest. Unit keys are kept
    only if they were made by the same ``code``."""
    with _collection_paused():
        return _read_previous(folder, code)


def _read_previous(folder: str | None, code: str | None) -> Previous | None:
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
    names = _unit_names(folder, code, previous)
    rows = [line.split("\t") for line in lines]
    if any(len(fields) != 5 or not fields[2].isdigit() for fields in rows):
        return None  # damaged or older: compare byte by byte instead
    previous.files = {fields[0]: (fields[1], int(fields[2])) for fields in rows}
    if not names:
        return previous
    by_unit: dict[str, list[str]] = {}
    for fields in rows:
        if fields[3]:
            by_unit.setdefault(fields[3], []).append(fields[0])
    previous.by_unit = {unit: paths for unit, paths in by_unit.items() if unit in previous.keys}
    previous.rows = rows
    return previous


def _unit_names(folder: str, code: str | None, previous: Previous) -> list[str]:
    """The unit names of the units file; their keys go into ``previous`` when ``code`` is the code that made
    them. No names (nothing is carried over) where the file is missing or damaged."""
    try:
        with open(os.path.join(folder, UNITS_FILE), encoding="utf-8") as handle:
            document = json.load(handle)
        units = [(str(name), str(key)) for name, key in document["units"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if code is None or document.get("code") != code:
        return []
    previous.keys = dict(units)
    return [name for name, _ in units]


def unit_run(keys: dict[str, str], folder: str) -> str:
    """``keys`` as a run file (``write_run``) of ``name<TAB>key`` lines, sorted by name (a unit's name has no
    tab, nor any other character below it: the lines sort as the names): ``units_pieces`` merges them."""
    return write_run([f"{name}\t{key}\n" for name, key in keys.items()], folder)


def units_pieces(code: str, keys: dict[str, str], runs: list[str]) -> Iterator[bytes]:
    """The units file, a piece at a time: ``code`` and every unit ``[name, key]`` sorted by name, of ``keys`` and
    of ``runs`` (``unit_run``), merged from disk: never all the keys in memory."""
    yield serialize.dumps({"code": code, "units": []})[:-len(b"[]}")] + b"["
    lines = sorted(f"{name}\t{key}\n" for name, key in keys.items())
    with contextlib.ExitStack() as stack:
        handles = [stack.enter_context(open(path, encoding="utf-8", newline="")) for path in runs]
        pieces: list[bytes] = []
        comma = b""
        for line in heapq.merge(lines, *handles):
            pieces.append(serialize.dumps(line.rstrip("\n").split("\t")))
            if len(pieces) == UNITS_AT_A_TIME:
                yield comma + b",".join(pieces)
                pieces, comma = [], b","
        if pieces:
            yield comma + b",".join(pieces)
    yield b"]}\n"


_runs = itertools.count()


def write_run(lines: list[str], folder: str) -> str:
    """Sort digest manifest lines (path, digest, size, unit, inputs, and a sixth field: ``1`` for a file written
    afresh), or ``unit_run``'s, into a new file in ``folder``; return its path. A writer keeps at most one run's
    lines in memory."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"run-{os.getpid()}-{threading.get_ident()}-{next(_runs)}")
    lines.sort()
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(lines)
    return path


def merge_runs(paths: list[str]) -> Iterator[list[str]]:
    """The lines of every run (``write_run``) as fields, in path order, one run file open at a time per run: the
    digest manifest made without holding it."""
    with contextlib.ExitStack() as stack:
        handles = [stack.enter_context(open(path, encoding="utf-8", newline="")) for path in paths]
        for line in heapq.merge(*handles):
            yield line.rstrip("\n").split("\t")
