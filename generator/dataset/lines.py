"""A table file's lines as text, read a block at a time: memory bounded by the block and the longest line, not by
the file, so reading can stop early (``load.read_rows`` stops after ``PROBLEMS_PER_TABLE`` problems).

Lines end at CR, LF or CRLF, exactly where ``open(path, newline="")`` ends them (what the ``csv`` module expects;
a cell may hold other line-break characters); one byte-order mark at the start is skipped. ``Lines.rest`` counts
the lines not read without keeping them (and checks they are UTF-8); ``bad_utf8`` locates the first byte that is
not UTF-8, counting lines by LF.
"""

from __future__ import annotations

import codecs
import io
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

BLOCK = 1 << 16
"""Bytes read at a time."""


class Lines:
    """The lines of an open binary file, decoded as UTF-8 (``UnicodeDecodeError`` where they are not)."""

    def __init__(self, handle: BinaryIO, block: int = BLOCK) -> None:
        self._handle = handle
        self._block = block
        self._pending = b""
        """Bytes read after the last whole line handed out."""
        self._current = io.StringIO()
        """The lines of the block being handed out."""
        self._first = True

    def __iter__(self) -> Iterator[str]:
        return itertools.chain.from_iterable(self._blocks())  # the lines of each block, one C call per line

    def _blocks(self) -> Iterator[io.StringIO]:
        while True:
            chunk = self._handle.read(self._block)
            data = self._pending + chunk
            if self._first:  # once its first three bytes are read
                if chunk and len(data) < len(codecs.BOM_UTF8):
                    self._pending = data
                    continue
                data, self._first = data.removeprefix(codecs.BOM_UTF8), False
            cut = len(data)
            if chunk:  # up to the last line break that is surely whole (a CR may be followed by a LF)
                cut = data.rfind(b"\n") + 1 or data.rfind(b"\r", 0, len(data) - 1) + 1
                if not cut:
                    self._pending = data
                    continue
            self._pending = data[cut:]
            self._current = io.StringIO(data[:cut].decode("utf-8"), newline="")
            yield self._current
            if not chunk:
                return

    def rest(self) -> int:
        """Read the lines not handed out yet and return how many they are; ``UnicodeDecodeError`` where they
        are not UTF-8."""
        count = sum(1 for _ in self._current)
        decoder = codecs.getincrementaldecoder("utf-8")()
        data, last = self._pending, b""
        while True:
            data += self._handle.read(self._block)
            if not data:
                break
            decoder.decode(data)
            count += data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
            if last == b"\r" and data.startswith(b"\n"):
                count -= 1  # a CRLF across two blocks
            data, last = b"", data[-1:]
        decoder.decode(b"", final=True)
        return count + (last not in (b"", b"\r", b"\n"))  # a last line without a line break


def bad_utf8(path: Path) -> tuple[int, int, int] | None:
    """The line (counting LFs), the byte of that line (from 1) and the value of the first byte of ``path`` that is
    not UTF-8; None if there is none. A byte-order mark at the start is skipped."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if number == 1:
                line = line.removeprefix(codecs.BOM_UTF8)
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as error:
                return number, error.start + 1, line[error.start]
    return None
