"""Atomic, incremental output: build into a staging folder beside the output, then swap it in.

- A file whose bytes equal the previous build's file is hard-linked from it, so a no-op rebuild rewrites no
  file and every mtime stays as it was.
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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

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
    """Undo what a dead build left beside ``out``: restore an output moved aside, drop staging and retired."""
    staging, retired = _sibling(out, STAGING_SUFFIX), _sibling(out, RETIRED_SUFFIX)
    if retired.is_dir() and not retired.is_symlink() and not out.exists() and not out.is_symlink():
        os.rename(retired, out)  # killed between the fallback's two renames: the previous output comes back
    for leftover in (staging, retired):
        _remove(leftover)


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


class StagedFiles:
    """Writes files into an existing staging folder, hard-linking those equal to the previous output's.

    Several processes may each hold one for the same staging folder (``OutputWriter`` owns the folder itself).
    """

    def __init__(self, staging: str, previous: str | None) -> None:
        self._staging = staging
        self._previous = previous
        self._dirs: set[str] = set()
        self.stats = WriteStats()

    @staticmethod
    def relative(path: str) -> PurePosixPath:
        """Check an output path (``/api/x.json`` or ``api/x.json``) and return it relative to the output."""
        relative = PurePosixPath(path.lstrip("/"))
        if not relative.parts or any(p in ("", ".", "..") or "\\" in p or "\x00" in p for p in relative.parts):
            raise OutputError(f"refusing to write outside the output folder: {path!r}")
        return relative

    def write(self, path: str, data: bytes) -> None:
        key = self.relative(path).as_posix()
        target = os.path.join(self._staging, key)
        parent = os.path.dirname(target)
        if parent not in self._dirs:
            os.makedirs(parent, exist_ok=True)
            self._dirs.add(parent)
        try:  # exclusive creation: the staging folder itself refuses a second write to a path
            if self._previous is not None:
                old = os.path.join(self._previous, key)
                if _same_file_content(old, data):
                    os.link(old, target)
                    self._count(data, written=False)
                    return
            with open(target, "xb") as handle:
                handle.write(data)
        except FileExistsError:
            raise OutputError(f"two writes to the same file: {key}") from None
        self._count(data, written=True)

    def _count(self, data: bytes, *, written: bool) -> None:
        self.stats.files += 1
        self.stats.bytes += len(data)
        self.stats.written += written


class OutputWriter(StagedFiles):
    """Collects the files of one build; ``commit`` makes them the output, ``abort`` drops them."""

    def __init__(self, out_dir: Path) -> None:
        self.out = real_output(out_dir)
        self.staging = _sibling(self.out, STAGING_SUFFIX)
        self.retired = _sibling(self.out, RETIRED_SUFFIX)
        self.previous = self.out if self.out.is_dir() else None
        super().__init__(str(self.staging), str(self.previous) if self.previous is not None else None)
        for leftover in (self.staging, self.retired):
            _remove(leftover)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.staging.mkdir()

    def scratch(self, name: str) -> str:
        """A temporary file path inside the staging folder (removed before the swap)."""
        folder = os.path.join(self._staging, SCRATCH_DIR)
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, os.path.basename(name))

    def commit(self) -> None:
        """Make the staged files the output, atomically where the system allows."""
        shutil.rmtree(os.path.join(self._staging, SCRATCH_DIR), ignore_errors=True)
        if self.out.exists():
            if not _exchange(self.staging, self.out):
                # Killed between these two renames, there is no output until ``recover`` moves it back.
                _rename(self.out, self.retired)
                _rename(self.staging, self.out)
                shutil.rmtree(self.retired, ignore_errors=True)  # what is left, the next build's recover removes
                return
            shutil.rmtree(self.staging, ignore_errors=True)  # now holds the previous output
        else:
            os.rename(self.staging, self.out)

    def abort(self) -> None:
        """Drop the staged files (the output is untouched)."""
        shutil.rmtree(self.staging, ignore_errors=True)
