"""What a path of an output holds, compared without writing: the same file (inode), a real folder, a regular file of
a listed size untouched since its manifest, the same bytes; and clearing a recycled folder's path."""

from __future__ import annotations

import os
import shutil
import stat


def same_inode(a: str, b: str) -> bool:
    try:
        first, second = os.lstat(a), os.lstat(b)
    except OSError:
        return False
    return (first.st_ino, first.st_dev) == (second.st_ino, second.st_dev) and stat.S_ISREG(second.st_mode)


def real_folder(path: str) -> bool:
    """Whether ``path`` is a folder itself, not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def clear_path(path: str) -> None:
    """Remove what a recycled folder holds at ``path`` (a file, or a folder where a file goes now)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def listed_status(path: str, size: int) -> os.stat_result | None:
    """The ``lstat`` of a regular file (not a link to elsewhere) of ``size`` bytes at ``path``; None if there is
    none."""
    try:
        status = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return status if stat.S_ISREG(status.st_mode) and status.st_size == size else None


def listed_file(path: str, size: int, listed_at: int) -> bool | None:
    """Whether a regular file (not a link to elsewhere) of ``size`` bytes, untouched since its output's digest
    manifest was written (``listed_at``, ns), is at ``path``; None: modified since, so compare its bytes."""
    status = listed_status(path, size)
    if status is None:
        return False
    return True if status.st_mtime_ns <= listed_at else None


def same_file_content(path: str, data: bytes | str) -> bool:
    """Whether a regular file (not a link to elsewhere) holds exactly ``data``: bytes, or the content of the file at
    that path (compared a block at a time)."""
    try:
        status = os.lstat(path)
        size = len(data) if isinstance(data, bytes) else os.stat(data).st_size
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(status.st_mode) or status.st_size != size:
        return False
    with open(path, "rb") as handle:
        if isinstance(data, bytes):
            return handle.read() == data
        with open(data, "rb") as other:
            while block := handle.read(1 << 20):
                if block != other.read(1 << 20):
                    return False
    return True
