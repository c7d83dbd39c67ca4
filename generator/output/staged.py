"""Files written into a staging folder by one process of the build (the build process or a listing worker).

A file (bytes: ``write``, a stream: ``create``, a file DuckDB made: ``place``) equal to the previous output's is
hard-linked from it; a unit or filter combination whose inputs did not change is carried over whole (``render``,
``reuse``). The staging folder is either new or a recycled earlier output (``recycled``): then a path may already
hold a file; it is kept when it is already the previous output's file (the same inode), else replaced (unlinked
first: a recycled file shares its inode with older outputs and is never written into). A second write to the same
path is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from typing import IO

from generator.output.files import (
    clear_path,
    listed_file,
    listed_status,
    real_folder,
    same_file_content,
    same_inode,
)
from generator.output.manifest import Previous, digest, digest_text, merge_runs, unit_run, write_run
from generator.output.stats import BOOKKEEPING, LISTING_UNIT, WriteStats, endpoint_of, kind_of
from generator.output.streams import StreamedFile, Written, measured

__all__ = ["BOOKKEEPING", "LISTING_UNIT", "OutputError", "StagedFiles", "WriteStats", "endpoint_of", "kind_of",
           "listed_file", "merge_runs"]

SCRATCH_DIR = ".scratch"
"""Temporary files inside the staging folder (removed before the swap)."""
RUN_FILES = 50_000
"""Files a writer records before it moves their manifest lines to a sorted run file on disk (``StagedFiles.spill``)."""
KNOWN_FOLDERS = 20_000
"""Folders a writer remembers having made in a new staging folder (it writes folder by folder; one it forgot is
made again: ``mkdir`` says it exists). In a recycled folder it remembers every one (``folders``)."""
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
"""Flags of ``open(path, "xb")``."""


class OutputError(Exception):
    """The build tried to write something it must not."""


class StagedFiles:
    """Writes files into an existing staging folder, hard-linking those equal to the previous output's.

    Several processes may each hold one for the same staging folder (``OutputWriter`` owns the folder itself).
    """

    def __init__(
        self, staging: str, previous: str | None, previous_manifest: Previous | None = None, recycled: bool = False,
    ) -> None:
        self._staging = staging
        self._recycled = recycled
        self._previous = previous
        self._new_prefix = staging.rstrip("/") + "/"
        self._old_prefix = previous.rstrip("/") + "/" if previous is not None else ""
        self._old = previous_manifest
        self._dirs: set[str] = {staging.rstrip("/")}
        """Folders made or checked (the staging folder itself: made by ``OutputWriter``)."""
        self.stats = WriteStats()
        self._kinds: dict[str, str] = {}
        """Unit -> the kind of its files (one per unit)."""
        self.digests: dict[str, tuple[str, int]] = {}
        """What this writer wrote: path -> (digest, size)."""
        self.rewritten: set[str] = set()
        """Paths written afresh (new or changed content); the others were hard-linked from the previous output."""
        self.file_units: dict[str, str] = {}
        """Path -> the unit that wrote it (files of no unit are left out)."""
        self.unit_keys: dict[str, str] = {}
        self.file_inputs: dict[str, str] = {}
        """Listing page -> key of its filter combination."""
        self.runs: list[str] = []
        """Sorted run files of the manifest lines of what was recorded before the dicts above (``spill``)."""
        self.unit_runs: list[str] = []
        """Sorted run files of the unit keys of the writers merged in (``detach``, ``manifest.unit_run``)."""

    @property
    def old_folder(self) -> str | None:
        """The previous output's folder, if there is one."""
        return self._previous

    @staticmethod
    def relative(path: str) -> str:
        """Check an output path (``/api/x.json`` or ``api/x.json``) and return it relative to the output."""
        relative = path.lstrip("/")
        probe = f"/{relative}/"  # an empty, "." or ".." part shows as "//", "/./" or "/../"
        if not relative or "\\" in relative or "\x00" in relative or "//" in probe or "/./" in probe or "/../" in probe:
            raise OutputError(f"refusing to write outside the output folder: {path!r}")
        return relative

    def _parent(self, target: str) -> None:
        parent = target[: target.rindex("/")]
        if parent not in self._dirs:
            if not self._recycled and len(self._dirs) >= KNOWN_FOLDERS:
                self._dirs = {self._staging.rstrip("/")}
            self._mkdir(parent)

    def _mkdir(self, folder: str) -> None:
        """Make ``folder`` and its missing parents: one call for a folder whose parent is known to exist.

        In a recycled folder, each folder is checked once, parents first, to be a real folder (not a link, which a
        write could follow out of the staging folder, nor a file): anything else there is replaced by one. Most
        folders are there already, so it looks before it makes (one call where it is)."""
        parent = folder[: folder.rindex("/")]
        if self._recycled:
            if parent not in self._dirs:
                self._mkdir(parent)
            if real_folder(folder):
                self._dirs.add(folder)
                return
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not real_folder(folder):
                if not self._recycled:
                    raise
                clear_path(folder)  # a link, or a file of an older output where a folder goes now
                os.mkdir(folder)
        except FileNotFoundError:
            self._mkdir(parent)
            os.mkdir(folder)
        self._dirs.add(folder)

    def _claim(self, key: str) -> str:
        """The staging path for ``key``, refused if this writer already wrote it."""
        if key in self.digests:
            raise OutputError(f"two writes to the same file: {key}")
        target = self._new_prefix + key
        self._parent(target)
        return target

    def _place_link(self, key: str, target: str, source_status: os.stat_result | None = None) -> None:
        """Make ``target`` a hard link to the previous output's file at ``key`` (``source_status``: its ``lstat``,
        if known). In a recycled folder, a target that already is that file stays; anything else there goes."""
        source = self._old_prefix + key
        if self._recycled:
            try:
                found = os.lstat(target)
            except FileNotFoundError:
                found = None
            if found is not None:
                status = source_status or os.lstat(source)
                if (found.st_ino, found.st_dev) == (status.st_ino, status.st_dev) and stat.S_ISREG(found.st_mode):
                    return  # the recycled folder already holds the previous output's file
                clear_path(target)
        try:
            os.link(source, target)
        except FileExistsError:
            raise OutputError(f"two writes to the same file: {key}") from None

    def _place_bytes(self, key: str, target: str, data: bytes) -> None:
        if self._recycled and os.path.lexists(target):
            clear_path(target)  # never written into: the recycled file's inode is shared with older outputs
        try:
            handle = os.open(target, _NEW_FILE, 0o666)
        except FileExistsError:
            raise OutputError(f"two writes to the same file: {key}") from None
        try:  # os calls, not a file object: about 5 µs less per file (16 against 10 on tmpfs)
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view):]
        finally:
            os.close(handle)

    @contextlib.contextmanager
    def create(self, path: str, unit: str = "") -> Iterator[StreamedFile]:
        """Write the file at ``path`` of ``unit`` a piece at a time into the scratch space, made the file as ``write``
        makes one when the block ends (then ``out.written``: sha256 and size); a block that fails leaves nothing."""
        key = self.relative(path)
        with StreamedFile(os.path.join(self._staging, SCRATCH_DIR, "streams")) as out:
            yield out
        out.written = self._place_file(key, out.path, out.hasher, out.size, unit)

    def place(self, path: str, source: str, unit: str = "") -> Written:
        """Make ``source``, a finished file in the scratch space (DuckDB's COPY made it), the file at ``path`` of
        ``unit``, as ``write`` makes one from bytes; read once, a block at a time, for its digest."""
        key = self.relative(path)  # and the source stays inside the staging folder:
        if not os.path.abspath(source).startswith(self._new_prefix + SCRATCH_DIR + "/"):
            raise OutputError(f"not a file of the staging folder's scratch space: {source!r}")
        return self._place_file(key, source, *measured(source), unit)

    def _place_file(self, key: str, source: str, hasher: hashlib._Hash, size: int, unit: str) -> Written:
        """``source`` (scratch) made the file at ``key``: the previous output's linked if the same bytes, else moved."""
        if len(self.digests) >= RUN_FILES:
            self.spill()
        target, hexdigest = self._claim(key), digest_text(hasher)
        unchanged = self._previous is not None and self._unchanged(key, hexdigest, size, source)
        if unchanged:
            self._place_link(key, target)
            os.remove(source)
        else:
            if self._recycled and os.path.lexists(target):
                clear_path(target)  # replaced, never written into: its inode is shared with older outputs
            os.rename(source, target)
        self._record(key, hexdigest, size, unit, written=not unchanged)
        return Written(hasher.hexdigest(), size)

    def open(self, path: str) -> IO[bytes]:
        """A file already in the staging folder (written or carried over), open for reading."""
        return open(os.path.join(self._staging, self.relative(path)), "rb")

    def write(self, path: str, data: bytes, unit: str = "", inputs: str = "") -> None:
        """Write one file of ``unit`` (or of none: a document rendered every build); ``inputs``: the key of the
        listing combination the page belongs to."""
        key = self.relative(path)
        if len(self.digests) >= RUN_FILES:  # here, not in ``_record``: an ``alias`` follows its file's write
            self.spill()
        target = self._claim(key)
        if inputs:
            self.file_inputs[key] = inputs
        hexdigest = digest(data)
        if self._previous is not None and self._unchanged(key, hexdigest, len(data), data):
            self._place_link(key, target)
            self._record(key, hexdigest, len(data), unit, written=False)
            return
        self._place_bytes(key, target, data)
        self._record(key, hexdigest, len(data), unit, written=True)

    def alias(self, path: str, of: str, unit: str = "") -> None:
        """Write ``path`` as another name (a hard link) of the file this writer wrote at ``of``."""
        key, source = self.relative(path), self.relative(of)
        target = self._claim(key)
        hexdigest, size = self.digests[source]
        first = self._new_prefix + source
        if self._recycled and os.path.lexists(target):
            if same_inode(first, target):
                self._record(key, hexdigest, size, unit, written=source in self.rewritten)
                return
            clear_path(target)
        os.link(first, target)
        self._record(key, hexdigest, size, unit, written=source in self.rewritten)

    def render(self, unit: str, key: str) -> bool:
        """Whether ``unit`` must be rendered: False when its files were carried over instead, hard-linked from the
        previous output because the previous build rendered them from the same inputs (same ``key``, same code)
        and each is still the file its manifest lists. Records the key either way."""
        self.unit_keys[unit] = key
        old = self._old
        if old is None or self._previous is None or old.keys.get(unit) != key or unit not in old.by_unit:
            return True
        return not self._carry(old.by_unit[unit], unit, unit.startswith(LISTING_UNIT))

    def reuse(self, unit: str, folder: str, inputs: str) -> bool:
        """Carry over every listing page of ``folder`` (one filter combination of ``unit``) from the previous
        output if each was rendered from the same ``inputs`` key and is still the file its manifest lists;
        else do nothing and return False."""
        old = self._old
        folder = self.relative(folder)
        paths = old.by_folder.get(folder) if old is not None and self._previous is not None else None
        if not paths:
            return False
        if any(old.inputs[path] != inputs for path in paths):  # type: ignore[union-attr]
            return False
        return self._carry(paths, unit, True)

    def _carry(self, paths: list[str], unit: str, pages: bool) -> bool:
        """Hard-link files listed in the previous manifest into the staging folder, as files of ``unit`` (listing
        ``pages``: with their combination keys), if each is still the file the manifest lists; else link none,
        return False."""
        old = self._old
        assert old is not None
        if len(self.digests) >= RUN_FILES:
            self.spill()
        found = []
        for path in paths:
            status = listed_status(self._old_prefix + path, old.files[path][1])
            if status is None or status.st_mtime_ns > old.listed_at:
                return False  # not the file the manifest lists (see ``listed_file``)
            found.append(status)
        for path, status in zip(paths, found, strict=True):
            self._place_link(path, self._claim(path), status)
        self._record_carried(paths, unit)
        if pages:
            inputs = old.inputs
            self.file_inputs.update((path, inputs[path]) for path in paths if path in inputs)
        return True

    def _record_carried(self, paths: list[str], unit: str) -> None:
        """``_record`` for files carried over, all of ``unit``, at once."""
        old = self._old
        assert old is not None
        files, digests, file_units, count = old.files, self.digests, self.file_units, self.stats.count
        kind = self._kind(paths[0], unit) if paths else ""  # a unit's files are all of one kind
        for path in paths:
            entry = digests[path] = files[path]
            file_units[path] = unit
            count(kind, path, entry[1])

    def scratch(self, name: str) -> str:
        """A temporary file path inside the staging folder (removed before the swap)."""
        folder = os.path.join(self._staging, SCRATCH_DIR)
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, os.path.basename(name))

    def read(self, path: str) -> bytes:
        """The bytes of a file already in the staging folder (written or carried over)."""
        with open(os.path.join(self._staging, self.relative(path)), "rb") as handle:
            return handle.read()

    def carried(self, unit: str) -> list[str]:
        """The files ``unit`` carried over from the previous output (all of them, or none)."""
        old = self._old
        return old.by_unit.get(unit, []) if old is not None and self.unit_keys.get(unit) == old.keys.get(unit) else []

    def _unchanged(self, key: str, hexdigest: str, size: int, data: bytes | str) -> bool:
        """Whether the previous output holds ``data`` (bytes, or the file at that path) at ``key``: by its digest
        manifest where it lists the path (and the file there has the listed size), else by reading the file back."""
        old = self._old_prefix + key
        listed = self._old.files.get(key) if self._old is not None else None
        if listed is not None:
            if listed != (hexdigest, size):
                return False
            untouched = listed_file(old, size, self._old.listed_at)  # type: ignore[union-attr]
            if untouched is not None:
                return untouched
        return same_file_content(old, data)

    def _kind(self, key: str, unit: str) -> str:
        kind = self._kinds.get(unit) if unit else None  # a unit's files are all of one kind
        if kind is None:
            kind = kind_of(key, unit)
            if unit:
                self._kinds[unit] = kind
        return kind

    def _record(self, key: str, hexdigest: str, size: int, unit: str, *, written: bool) -> None:
        self.stats.count(self._kind(key, unit), key, size)
        self.stats.written += written
        self.digests[key] = (hexdigest, size)
        if unit:
            self.file_units[key] = unit
        if written:
            self.rewritten.add(key)

    def folders(self) -> set[str]:
        """The folders this writer wrote into, relative (in a recycled folder, with every parent: each is checked
        once, parents first)."""
        start = len(self._new_prefix)
        return {folder[start:] for folder in self._dirs if len(folder) > start}

    def spill(self) -> None:
        """Move the manifest lines of the files recorded so far (with whether each was written afresh) into a sorted
        run file in the scratch space, and forget them: a writer holds at most ``RUN_FILES`` files' digests."""
        if not self.digests:
            return
        units, inputs, fresh = self.file_units, self.file_inputs, self.rewritten
        lines = [f"{path}\t{hexdigest}\t{size}\t{units.get(path, '')}\t{inputs.get(path, '')}\t"
                 f"{'1' if path in fresh else ''}\n" for path, (hexdigest, size) in self.digests.items()]
        self.runs.append(write_run(lines, os.path.join(self._staging, SCRATCH_DIR, "manifest")))
        self.digests, self.file_units, self.file_inputs, self.rewritten = {}, {}, {}, set()

    def detach(self) -> None:
        """Drop the previous manifest and spill what was recorded (before this object travels back from a worker
        process: it carries its counts and run files, its unit keys in a run file too, not its files' digests, nor
        its units' kinds, nor the folders it made in a new staging folder, which ``merge`` does not need: up to
        ``KNOWN_FOLDERS`` paths)."""
        self._old = None
        self._kinds = {}
        if not self._recycled:
            self._dirs = set()
        self.spill()
        if self.unit_keys:
            self.unit_runs.append(unit_run(self.unit_keys, os.path.join(self._staging, SCRATCH_DIR, "manifest")))
            self.unit_keys = {}

    def discard(self) -> None:
        """Remove every file this writer wrote or carried into the staging folder (those recorded, and those in its
        run files) with its run files, and forget them: a task that failed is rendered again from the start by a new
        writer (``render.render_task``). The folders it made stay: the new try writes the same paths."""
        for run in self.runs:
            with open(run, encoding="utf-8", newline="") as handle:
                for line in handle:
                    self._remove(line[: line.index("\t")])
        for key in self.digests:
            self._remove(key)
        for run in self.runs + self.unit_runs:
            os.remove(run)
        self.stats, self._kinds, self.digests, self.rewritten = WriteStats(), {}, {}, set()
        self.file_units, self.unit_keys, self.file_inputs, self.runs, self.unit_runs = {}, {}, {}, [], []

    def _remove(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.remove(self._new_prefix + key)

    def merge(self, other: StagedFiles) -> None:
        """Count in what another ``StagedFiles`` (a worker's, detached) wrote into the same staging folder; a path
        both wrote is found when the runs are merged (``merge_runs``)."""
        self.runs.extend(other.runs)
        self.unit_runs.extend(other.unit_runs)
        self.unit_keys.update(other.unit_keys)
        if self._recycled:
            self._dirs |= other._dirs  # the same staging folder: the same prefix
        self.stats.add(other.stats)
