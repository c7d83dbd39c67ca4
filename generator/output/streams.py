"""Files written into a staging folder's scratch space before they become output files (``StagedFiles.create``,
``StagedFiles.place``): streamed a piece at a time, or made by another writer (DuckDB's COPY); their sha256 and
size counted on the way, never the whole file in memory."""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
from collections.abc import Iterable
from typing import NamedTuple

_names = itertools.count()


class Written(NamedTuple):
    """A file written from a stream or from a file."""

    sha256: str
    """Its whole sha256, hex (the digest manifest keeps 96 bits of it)."""
    size: int


class StreamedFile:
    """A new file in ``folder`` written a piece at a time, its sha256 and size counted as it goes; a context
    manager that closes it, and removes it when the block fails."""

    def __init__(self, folder: str) -> None:
        os.makedirs(folder, exist_ok=True)  # names unique across the processes writing into one staging folder
        self.path = os.path.join(folder, f"{os.getpid()}-{threading.get_ident()}-{next(_names)}")
        self._handle = open(self.path, "xb")  # noqa: SIM115 - closed by __exit__
        self.hasher = hashlib.sha256()
        self.size = 0
        self.written: Written | None = None
        """Set once the file is in its place (``StagedFiles.create``)."""

    def write(self, data: bytes) -> None:
        self.hasher.update(data)
        self._handle.write(data)
        self.size += len(data)

    def writelines(self, pieces: Iterable[bytes]) -> None:
        for data in pieces:
            self.write(data)

    def __enter__(self) -> StreamedFile:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        self._handle.close()
        if kind is not None:
            os.remove(self.path)


def measured(path: str) -> tuple[hashlib._Hash, int]:
    """The sha256 (a hasher) and size of a finished file, read once, a block at a time."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256"), os.fstat(handle.fileno()).st_size
