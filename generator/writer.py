"""Atomic, incremental output: build into a staging folder beside the output, then swap it in.

- A file whose bytes equal the previous build's file is hard-linked from it, so a no-op rebuild rewrites no
  file and every mtime stays as it was. Equality is decided by the digest manifest the previous build left
  (``DIGESTS_FILE``: path, blake2b digest and size of every file) plus a size check, not by reading the old
  file back; a file modified after the manifest (by hand), or an output without a manifest, is compared byte by
  byte.
- ``changes()`` lists the files added, changed and removed against the previous output (a deploy uploads just
  those); top-level dotfiles are the generator's own bookkeeping and are not listed.
- The previous output is kept as ``.<name>.retired`` until the next build, which removes it in the background.
- The swap exchanges the two folders in one ``renameat2(RENAME_EXCHANGE)`` call where the kernel has it, so a
  build killed at any moment leaves the previous output whole (at worst a stale staging folder, removed by the
  next build).
- Every path is checked to stay inside the staging folder; a second write to the same path is refused.
- One build at a time per output: ``OutputLock`` holds an advisory lock on a file beside the output for the
  whole build (the kernel releases it when the process dies), so a second build fails at once instead of
  writing into the first one's staging folder.
- An output that is a symbolic link (``dist -> releases/current``) is followed: the folder it points at is
  replaced, the link stays. ``recover`` runs at the start of every build: it puts back an output a build
  killed between the two renames of the fallback swap had moved aside, and removes staging and retired
  folders left by dead builds.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from generator.manifest import DIGESTS_FILE, UNITS_FILE, Previous, digest, digests_body, read_previous, units_body

STAGING_SUFFIX = ".staging"
RETIRED_SUFFIX = ".retired"
LOCK_SUFFIX = ".lock"
SCRATCH_DIR = ".scratch"


class OutputError(Exception):
    """The build tried to write something it must not."""


@dataclass
class WriteStats:
    files: int = 0
    bytes: int = 0
    written: int = 0
    """Files whose content changed or that are new (the rest were carried over by hard link)."""

    def add(self, other: WriteStats) -> None:
        self.files += other.files
        self.bytes += other.bytes
        self.written += other.written


def _sibling(out: Path, suffix: str) -> Path:
    return out.parent / f".{out.name}{suffix}"


def real_output(out_dir: Path) -> Path:
    """The folder a build replaces: ``out_dir`` itself, or where it points if it is a symbolic link."""
    out = out_dir.absolute()
    if out.is_symlink():
        out = Path(os.path.realpath(out))
    if out == out.parent:
        raise OutputError("the output folder cannot be a filesystem root")
    return out


def _remove(path: Path) -> None:
    """Remove a leftover (folder, file or link; a link is removed, never followed)."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def recover(out: Path) -> None:
    """Undo what a dead build left beside ``out``: restore an output moved aside, drop a staging folder.

    A retired folder beside an existing output is the previous output, kept on purpose: the writer removes it
    in the background while the next build renders (a link there is removed, never followed)."""
    staging, retired = _sibling(out, STAGING_SUFFIX), _sibling(out, RETIRED_SUFFIX)
    if retired.is_dir() and not retired.is_symlink() and not out.exists() and not out.is_symlink():
        os.rename(retired, out)  # killed between the fallback's two renames: the previous output comes back
    _remove(staging)
    if retired.is_symlink():
        retired.unlink()


class OutputLock:
    """An exclusive advisory lock on ``.<out>.lock`` beside the output, held for a whole build."""

    def __init__(self, out: Path) -> None:
        self.path = _sibling(out, LOCK_SUFFIX)
        self._fd: int | None = None

    def __enter__(self) -> OutputLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise OutputError(
                f"another build is writing {self.path.parent / self.path.name[1:-len(LOCK_SUFFIX)]} "
                f"(process {holder} holds {self.path}); wait for it to finish, then build again"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *_: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock; the file stays (removing it would race)
            self._fd = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths; False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if result == 0:
        return True
    if ctypes.get_errno() in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(a))


def _rename(source: Path, target: Path) -> None:
    os.rename(source, target)


def _listed_file(path: str, size: int, listed_at: int) -> bool | None:
    """Whether a regular file (not a link to elsewhere) of ``size`` bytes, untouched since its output's digest
    manifest was written (``listed_at``, ns), is at ``path``; None: modified since, so compare its bytes."""
    try:
        status = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(status.st_mode) or status.st_size != size:
        return False
    return True if status.st_mtime_ns <= listed_at else None


def _same_file_content(path: str, data: bytes) -> bool:
    """Whether a regular file (not a link to elsewhere) holds exactly ``data``."""
    try:
        status = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(status.st_mode) or status.st_size != len(data):
        return False
    with open(path, "rb") as handle:
        return handle.read() == data


@dataclass
class Changes:
    """What a build changed in its output: relative paths, sorted."""

    added: list[str]
    changed: list[str]
    removed: list[str]

    def summary(self) -> str:
        return f"{len(self.added):,} added, {len(self.changed):,} changed, {len(self.removed):,} removed"

    def as_json(self) -> dict[str, object]:
        counts = {"added": len(self.added), "changed": len(self.changed), "removed": len(self.removed)}
        return {"counts": counts, "added": self.added, "changed": self.changed, "removed": self.removed}


def _files_under(root: str) -> set[str]:
    found: set[str] = set()
    prefix = len(root) + 1
    for folder, _, files in os.walk(root):
        found.update(os.path.join(folder, name)[prefix:] for name in files)
    return found


class StagedFiles:
    """Writes files into an existing staging folder, hard-linking those equal to the previous output's.

    Several processes may each hold one for the same staging folder (``OutputWriter`` owns the folder itself).
    """

    def __init__(self, staging: str, previous: str | None, previous_manifest: Previous | None = None) -> None:
        self._staging = staging
        self._previous = previous
        self._new_prefix = staging.rstrip("/") + "/"
        self._old_prefix = previous.rstrip("/") + "/" if previous is not None else ""
        self._old = previous_manifest
        self._dirs: set[str] = set()
        self.stats = WriteStats()
        self.digests: dict[str, tuple[str, int]] = {}
        """What this writer wrote: path -> (digest, size)."""
        self.rewritten: set[str] = set()
        """Paths written afresh (new or changed content); the others were hard-linked from the previous output."""
        self.file_units: dict[str, str] = {}
        """Path -> the unit that wrote it (files of no unit are left out)."""
        self.unit_keys: dict[str, str] = {}
        self.file_inputs: dict[str, str] = {}
        """Listing page -> key of its filter combination."""

    @staticmethod
    def relative(path: str) -> str:
        """Check an output path (``/api/x.json`` or ``api/x.json``) and return it relative to the output."""
        relative = path.lstrip("/")
        parts = relative.split("/")
        if not relative or "\\" in relative or "\x00" in relative or any(p in ("", ".", "..") for p in parts):
            raise OutputError(f"refusing to write outside the output folder: {path!r}")
        return relative

    def _parent(self, target: str) -> None:
        parent = target[: target.rindex("/")]
        if parent not in self._dirs:
            os.makedirs(parent, exist_ok=True)
            self._dirs.add(parent)

    def write(self, path: str, data: bytes, unit: str = "", inputs: str = "") -> None:
        """Write one file of ``unit`` (or of none: a document rendered every build); ``inputs``: the key of the
        listing combination the page belongs to."""
        key = self.relative(path)
        if inputs:
            self.file_inputs[key] = inputs
        target = self._new_prefix + key
        self._parent(target)
        hexdigest = digest(data)
        try:  # exclusive creation: the staging folder itself refuses a second write to a path
            if self._previous is not None and self._unchanged(key, hexdigest, data):
                os.link(self._old_prefix + key, target)
                self._record(key, hexdigest, len(data), unit, written=False)
                return
            with open(target, "xb") as handle:
                handle.write(data)
        except FileExistsError:
            raise OutputError(f"two writes to the same file: {key}") from None
        self._record(key, hexdigest, len(data), unit, written=True)

    def render(self, unit: str, key: str) -> bool:
        """Whether ``unit`` must be rendered: False when its files were carried over instead, hard-linked from the
        previous output because the previous build rendered them from the same inputs (same ``key``, same code)
        and each is still the file its manifest lists. Records the key either way."""
        self.unit_keys[unit] = key
        old = self._old
        if old is None or self._previous is None or old.keys.get(unit) != key or unit not in old.by_unit:
            return True
        paths = old.by_unit[unit]
        for path in paths:
            if _listed_file(self._old_prefix + path, old.files[path][1], old.listed_at) is not True:
                return True
        self._link(paths, unit)
        self.file_inputs.update((path, old.inputs[path]) for path in paths if path in old.inputs)
        return False

    def reuse(self, unit: str, folder: str, inputs: str) -> bool:
        """Carry over every listing page of ``folder`` (one filter combination of ``unit``) from the previous
        output if each was rendered from the same ``inputs`` key and is still the file its manifest lists;
        else do nothing and return False."""
        old = self._old
        folder = self.relative(folder)
        paths = old.by_folder.get(folder) if old is not None and self._previous is not None else None
        if not paths:
            return False
        for path in paths:
            if old.inputs[path] != inputs or (  # type: ignore[union-attr]
                _listed_file(self._old_prefix + path, old.files[path][1], old.listed_at) is not True  # type: ignore[union-attr]
            ):
                return False
        self._link(paths, unit)
        self.file_inputs.update((path, inputs) for path in paths)
        return True

    def _link(self, paths: list[str], unit: str) -> None:
        """Hard-link files listed in the previous manifest into the staging folder, as files of ``unit``."""
        old = self._old
        for path in paths:
            target = self._new_prefix + path
            self._parent(target)
            try:
                os.link(self._old_prefix + path, target)
            except FileExistsError:
                raise OutputError(f"two writes to the same file: {path}") from None
            hexdigest, size = old.files[path]  # type: ignore[union-attr]
            self._record(path, hexdigest, size, unit, written=False)

    def read(self, path: str) -> bytes:
        """The bytes of a file already in the staging folder (written or carried over)."""
        with open(os.path.join(self._staging, self.relative(path)), "rb") as handle:
            return handle.read()

    def carried(self, unit: str) -> list[str]:
        """The files ``unit`` carried over from the previous output (all of them, or none)."""
        old = self._old
        return old.by_unit.get(unit, []) if old is not None and self.unit_keys.get(unit) == old.keys.get(unit) else []

    def _unchanged(self, key: str, hexdigest: str, data: bytes) -> bool:
        """Whether the previous output holds ``data`` at ``key``: by its digest manifest where it lists the path
        (and the file there has the listed size), else by reading the file back."""
        old = self._old_prefix + key
        listed = self._old.files.get(key) if self._old is not None else None
        if listed is not None:
            if listed != (hexdigest, len(data)):
                return False
            untouched = _listed_file(old, len(data), self._old.listed_at)  # type: ignore[union-attr]
            if untouched is not None:
                return untouched
        return _same_file_content(old, data)

    def _record(self, key: str, hexdigest: str, size: int, unit: str, *, written: bool) -> None:
        self.stats.files += 1
        self.stats.bytes += size
        self.stats.written += written
        self.digests[key] = (hexdigest, size)
        if unit:
            self.file_units[key] = unit
        if written:
            self.rewritten.add(key)

    def detach(self) -> None:
        """Drop the previous manifest (before this object travels back from a worker process)."""
        self._old = None

    def merge(self, other: StagedFiles) -> None:
        """Count in what another ``StagedFiles`` (a worker's) wrote into the same staging folder."""
        self.digests.update(other.digests)
        self.rewritten |= other.rewritten
        self.file_units.update(other.file_units)
        self.unit_keys.update(other.unit_keys)
        self.file_inputs.update(other.file_inputs)
        self.stats.add(other.stats)


class OutputWriter(StagedFiles):
    """Collects the files of one build; ``commit`` makes them the output, ``abort`` drops them."""

    def __init__(self, out_dir: Path, code: str | None = None) -> None:
        """``code``: fingerprint of the generator's code; the previous build's units are reused only if equal."""
        self.out = real_output(out_dir)
        self.code = code
        self.staging = _sibling(self.out, STAGING_SUFFIX)
        self.retired = _sibling(self.out, RETIRED_SUFFIX)
        self.previous = self.out if self.out.is_dir() else None
        previous = str(self.previous) if self.previous is not None else None
        super().__init__(str(self.staging), previous, read_previous(previous, code))
        _remove(self.staging)  # left by a killed build (``recover`` has usually removed it already)
        # The output the previous build replaced: removed while this build validates and renders (the removal of
        # ~150k hard links takes as long as a rebuild's rendering on a busy disk), waited for before the swap. A
        # separate process, so that it does not hold the build's interpreter lock.
        self._retiring: subprocess.Popen[bytes] | None = None
        if self.retired.is_symlink():
            self.retired.unlink()
        elif self.retired.exists():
            self._retiring = subprocess.Popen(["rm", "-rf", "--", str(self.retired)], stdin=subprocess.DEVNULL)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.staging.mkdir()

    def scratch(self, name: str) -> str:
        """A temporary file path inside the staging folder (removed before the swap)."""
        folder = os.path.join(self._staging, SCRATCH_DIR)
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, os.path.basename(name))

    @property
    def previous_manifest(self) -> Previous | None:
        return self._old

    def write_units(self) -> bytes:
        """Write the units file: every unit's key, for the next build (before ``write_digests``)."""
        data = units_body(self.code or "", self.unit_keys)
        self.write(UNITS_FILE, data)
        return data

    def write_digests(self) -> bytes:
        """Write the digest manifest of everything written so far (call it last, before ``commit``)."""
        data = digests_body(self.digests, self.file_units, sorted(self.unit_keys), self.file_inputs)
        self.write(DIGESTS_FILE, data)
        return data

    def changes(self) -> Changes:
        """Files added, changed and removed against the previous output (top-level dotfiles left out)."""
        if self._old is not None:
            old = set(self._old.files)
        elif self.previous is not None:
            old = _files_under(str(self.previous))
        else:
            old = set()
        new = set(self.digests)

        def published(paths: set[str]) -> list[str]:
            return sorted(p for p in paths if not p.startswith("."))

        return Changes(published(new - old), published(new & old & self.rewritten), published(old - new))

    def commit(self) -> None:
        """Make the staged files the output, atomically where the system allows.

        The previous output is kept whole beside it as ``.<name>.retired`` (hard links: it costs directory
        entries and the files that changed) and removed by the next build while that one renders, so a rebuild
        does not wait for the removal of every unchanged file."""
        shutil.rmtree(os.path.join(self._staging, SCRATCH_DIR), ignore_errors=True)
        self._wait_retired()
        if self.retired.exists():  # the removal failed, or an earlier killed build's is still going: finish it
            shutil.rmtree(self.retired, ignore_errors=True)
            if self.retired.exists():
                raise OutputError(f"cannot remove the previous output's copy {self.retired}")
        if self.out.exists():
            if not _exchange(self.staging, self.out):
                # Killed between these two renames, there is no output until ``recover`` moves it back.
                _rename(self.out, self.retired)
                _rename(self.staging, self.out)
                return
            _rename(self.staging, self.retired)  # now holds the previous output
        else:
            os.rename(self.staging, self.out)

    def _wait_retired(self) -> None:
        if self._retiring is not None:
            self._retiring.wait()
            self._retiring = None

    def abort(self) -> None:
        """Drop the staged files (the output is untouched)."""
        self._wait_retired()
        shutil.rmtree(self.staging, ignore_errors=True)
