"""Atomic, incremental output: build into a staging folder beside the output, then swap it in.

- A unit whose inputs did not change (a listing route, a filter combination, a profile, a table's exports:
  ``manifest.py``) is not rendered; its files are hard-linked from the previous output (``staged.py``).
- A file comes as bytes (``write``), a piece at a time (``create``) or as a file another writer made in the
  scratch space (``place``: DuckDB's COPY); then it is moved into place, never read into memory whole.
- A file whose bytes equal the previous build's file is hard-linked from it, so a no-op rebuild rewrites no
  file and every mtime stays as it was. Equality is decided by the digest manifest the previous build left
  (``DIGESTS_FILE``: path, 96-bit sha256 digest and size of every file) plus a size check, not by reading the old
  file back; a file modified after the manifest (by hand), or an output without a manifest, is compared byte by
  byte.
- ``changes()`` lists the files added, changed and removed against the previous output (a deploy uploads just
  those); top-level dotfiles are the generator's own bookkeeping and are not listed.
- The previous output is kept as ``.<name>.retired`` until the next build, which recycles it as its staging
  folder (``recycle.py``) or, when other code made it, removes it in the background.
- A build that fails before its swap moves its staging folder aside as ``.<name>.retired`` in one rename
  (``discard``), marked as no output, for the next build to recycle or remove: removing millions of files takes
  minutes.
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

import contextlib
import ctypes
import errno
import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from generator.output import recycle
from generator.output.manifest import (
    DIGESTS_FILE,
    UNITS_FILE,
    Previous,
    read_previous,
    units_pieces,
)
from generator.output.staged import SCRATCH_DIR, OutputError, StagedFiles, merge_runs

STAGING_SUFFIX = ".staging"
RETIRED_SUFFIX = ".retired"
LOCK_SUFFIX = ".lock"
DISCARDED_FILE = ".company-ipo-api.discarded"
"""Marks a failed build's staging folder moved aside as the retired folder (``discard``): never put back as the
output; the next build recycles it or removes it in the background, like any retired folder."""


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
    if (retired.is_dir() and not retired.is_symlink() and not out.exists() and not out.is_symlink()
            and not (retired / DISCARDED_FILE).exists()):  # a failed build's staging folder is no output
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


class Changes:
    """What a build changed in its output: relative paths, sorted when first read (the summary only counts). A
    build's are spooled to a temporary file as the digest manifest is merged (``spooled``), not held."""

    def __init__(self, added: Iterable[str], changed: Iterable[str], removed: Iterable[str]) -> None:
        self._paths = (set(added), set(changed), set(removed))
        self._counts = tuple(map(len, self._paths))
        self._spool: IO[str] | None = None

    @classmethod
    def spooled(cls, spool: IO[str], counts: tuple[int, int, int]) -> Changes:
        """From a file of lines ``<a|c|r> <path>`` and the count of each."""
        made = cls((), (), ())
        made._spool, made._counts = spool, counts
        return made

    def _read(self, kind: int) -> list[str]:
        if self._spool is None:
            return sorted(self._paths[kind])
        self._spool.seek(0)
        return sorted({line[2:-1] for line in self._spool if line[0] == "acr"[kind]})

    @functools.cached_property
    def added(self) -> list[str]:
        return self._read(0)

    @functools.cached_property
    def changed(self) -> list[str]:
        return self._read(1)

    @functools.cached_property
    def removed(self) -> list[str]:
        return self._read(2)

    def summary(self) -> str:
        added, changed, removed = self._counts
        return f"{added:,} added, {changed:,} changed, {removed:,} removed"

    def as_json(self) -> dict[str, object]:
        counts = dict(zip(("added", "changed", "removed"), self._counts, strict=True))
        return {"counts": counts, "added": self.added, "changed": self.changed, "removed": self.removed}


def _log(spool: IO[str], kind: str, path: str) -> int:
    """Spool one change (``Changes.spooled``), unless the path is the generator's (a top-level dotfile); 1 if
    spooled."""
    if path.startswith("."):
        return 0
    spool.write(f"{kind} {path}\n")
    return 1


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
        _remove(self.staging)  # left by a killed build (``recover`` has usually removed it already)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        # The output the previous build replaced: recycled as this build's staging folder when the same code
        # made it (recycle.py), else removed in a separate process while this build validates and renders, and
        # waited for before the swap.
        self._retiring: subprocess.Popen[bytes] | None = None
        self._listing: recycle.Listing | None = None
        self._changes: Changes | None = None
        recycled = False
        if self.retired.is_symlink():
            self.retired.unlink()
        elif recycle.made_by(self.retired, code):
            os.rename(self.retired, self.staging)
            recycled = True
        elif self.retired.exists():
            self._retiring = subprocess.Popen(["rm", "-rf", "--", str(self.retired)], stdin=subprocess.DEVNULL)
        if not recycled:
            self.staging.mkdir()
        _remove(self.staging / SCRATCH_DIR)  # never reused; a link there is removed, not followed
        super().__init__(str(self.staging), previous, read_previous(previous, code), recycled)

    def list_recycled(self) -> None:
        """Start listing a recycled staging folder (``find`` in another process, waited for by a thread), for the
        commit to drop what the build did not write; call it after starting worker processes, which can then be
        forked from a process running no other thread. The commit lists the folder itself if this was not
        called."""
        if self._recycled and self._listing is None:
            self._listing = recycle.Listing(self._staging)

    def read_listing(self) -> None:
        """Read the recycled folder's listing now (the build calls it while it waits for its workers), not at the
        commit."""
        if self._listing is not None:
            self._listing.entries()

    @property
    def recycled(self) -> bool:
        return self._recycled

    def ready(self, folders: Iterable[str] = ()) -> None:
        """Prepare the staging folder for writes from several processes; call it before the first write (worker
        processes included) with the folders that more than one process writes into (``/api/companies``: its
        listing pages and its profiles). In a recycled folder they are checked (or made) here, once: each
        process checks the folders below them it writes into (``StagedFiles._mkdir``)."""
        for folder in sorted(folders):
            self._mkdir(self._new_prefix + self.relative(folder))

    @property
    def previous_manifest(self) -> Previous | None:
        return self._old

    def write_units(self) -> None:
        """Write the units file: every unit's key (this writer's and those of the writers merged in), for the next
        build (before ``write_digests``)."""
        with self.create(UNITS_FILE) as units:
            units.writelines(units_pieces(self.code or "", self.unit_keys, self.unit_runs))

    def write_digests(self) -> None:
        """Write the digest manifest of everything written so far (call it last, before ``commit``): the sorted runs
        of every writer merged into a scratch file (a path two writers wrote fails the build), the changes against
        the previous output found on the way (``changes``)."""
        self.spill()
        manifest = self.scratch(DIGESTS_FILE)
        spool = tempfile.TemporaryFile("w+", encoding="utf-8", dir=self.out.parent)  # noqa: SIM115 - Changes reads it
        old = iter(self._old_paths())
        counts, hasher, size, last = [0, 0, 0], hashlib.sha256(), 0, None
        before = next(old, None)
        with open(manifest, "wb") as handle:
            for fields in merge_runs(self.runs):
                path = fields[0]
                if path == last:
                    raise OutputError(f"two writes to the same file: {path}")
                last = path
                line = ("\t".join(fields[:5]) + "\n").encode()
                handle.write(line)
                hasher.update(line)
                size += len(line)
                while before is not None and before < path:
                    counts[2] += _log(spool, "r", before)
                    before = next(old, None)
                existed = before == path
                before = next(old, None) if existed else before
                if not existed or fields[5]:
                    counts[existed] += _log(spool, "c" if existed else "a", path)
        while before is not None:
            counts[2] += _log(spool, "r", before)
            before = next(old, None)
        self._changes = Changes.spooled(spool, (counts[0], counts[1], counts[2]))
        self._place_file(DIGESTS_FILE, manifest, hasher, size, "")

    def _old_paths(self) -> list[str]:
        """The previous output's files, sorted."""
        if self._old is not None:
            return sorted(self._old.files)
        if self.previous is not None:
            return sorted(path for kind, path in recycle.walk(str(self.previous)) if kind != "d")
        return []

    def changes(self) -> Changes:
        """Files added, changed and removed against the previous output (top-level dotfiles left out), as
        ``write_digests`` found them."""
        return self._changes if self._changes is not None else Changes((), (), ())

    def commit(self) -> None:
        """Make the staged files the output, atomically where the system allows.

        The previous output is kept whole beside it as ``.<name>.retired`` (hard links: it costs directory
        entries and the files that changed), for the next build to recycle as its staging folder."""
        _remove(Path(self._staging) / SCRATCH_DIR)
        if self._recycled:  # what the build did not write goes
            listing = self._listing or recycle.Listing(self._staging)
            with open(os.path.join(self._staging, DIGESTS_FILE), encoding="utf-8") as handle:
                written = {line[: line.index("\t")] for line in handle} | self.digests.keys()
            recycle.drop_stale(self._staging, listing.entries(), written, self.folders())
            self._listing = None
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

    def discard(self, progress: Callable[[str], None] = lambda _: None) -> None:
        """Drop the staged files of a failed build without removing them (millions of files take many minutes):
        move the staging folder aside in one rename as the retired folder, marked (``DISCARDED_FILE``), for the
        next build to recycle or remove in the background; ``abort`` where that slot is taken (a build that failed
        in its commit). The output is untouched; ``progress`` says what happens to the folder."""
        if self._retiring is not None and self._retiring.poll() is None:  # started with the build: mostly done
            progress(f"waiting for the removal of an older output, {self.retired}")
        self._wait_retired()
        _remove(self.staging / SCRATCH_DIR)  # the spilled and handed-over tables: few files, most of the bytes
        if self.staging.is_dir() and not self.staging.is_symlink() and not os.path.lexists(self.retired):
            with contextlib.suppress(OSError):
                (self.staging / DISCARDED_FILE).touch()  # empty: writable on a full disk too
                os.rename(self.staging, self.retired)
                progress(f"moved the staging folder aside to {self.retired} in one rename (the next build reuses or "
                         "removes it; delete it to free the space now)")
                return
        progress(f"removing the staging folder {self.staging}")
        self.abort()
