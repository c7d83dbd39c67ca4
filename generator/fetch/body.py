"""Reading one answer's body within limits: its size on the wire and once decompressed, and a deadline.

Why not ``answer.read()`` and ``gzip.decompress``: a server (or anything between it and us) decides how much that
holds in memory. A 1 MB gzip body of zeros decompresses to 1 GB; a body that announces no length, or a wrong one,
can run on without end; and a server that sends a byte every few seconds never trips the socket's per-read timeout
while holding the run for hours. Here the body is read in pieces and decompressed incrementally with a bound on
each step's output, so a body over ``limit`` is refused after at most ``limit`` bytes (plus one piece) were held;
``Deadline`` closes the connection under a read that runs past the request's time, which no per-read timeout does.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import socket
import threading
import zlib
from collections.abc import Callable

PIECE = 1 << 16
"""Bytes asked of the connection at a time."""
STEP = 1 << 20
"""The most output one decompression step makes (the rest of its input waits for the next step)."""
MIB = 1 << 20


class TooLarge(Exception):
    """The body is over the limit (the message says which size and the limit, without the URL)."""


class CutShort(http.client.HTTPException):
    """The connection closed before the body's announced end (retried like any broken connection)."""

    def __init__(self, received: int, missing: int | None) -> None:
        more = f", {missing:,} more expected" if missing else ""
        super().__init__(f"body cut short ({received:,} bytes received{more})")


class Deadline:
    """While entered, shuts the connection's socket down once ``seconds`` have passed: a read blocked on a server
    that drips bytes returns at once (end of stream) instead of waiting for the next byte. ``expired`` says whether
    it fired; the connection is then unusable and must be dropped."""

    def __init__(self, seconds: float, connection: http.client.HTTPConnection) -> None:
        self.seconds, self.connection, self.expired = seconds, connection, False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.expired = True
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # the plain socket's: an SSL socket's own drops state under the reader
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._timer.cancel()
        self._timer.join()


def read(answer: http.client.HTTPResponse, limit: int,
         expired: Callable[[], bool] = lambda: False) -> tuple[bytes, int]:
    """The decoded body of ``answer`` (gzip or deflate undone) and the bytes it took on the wire. Raises
    ``TooLarge`` past ``limit`` bytes (announced, received or decompressed), ``CutShort`` when the body ends early,
    ``EOFError`` or ``zlib.error`` for a broken compressed body; stops reading once ``expired()``."""
    encoding = (answer.getheader("Content-Encoding") or "").strip().lower()
    announced = answer.getheader("Content-Length") or ""
    if announced.isdigit() and int(announced) > limit:
        raise TooLarge(f"of {int(announced):,} bytes announced (Content-Length): over {_size(limit)}")
    inflater = _Inflater(encoding, limit) if encoding in ("gzip", "x-gzip", "deflate") else None
    out = io.BytesIO()
    wire = 0
    while not expired():
        try:
            piece = answer.read1(PIECE)
        except http.client.IncompleteRead as error:  # a chunked body closed before its last chunk
            raise CutShort(wire + len(error.partial), error.expected) from None
        if not piece:
            if answer.length:  # http.client returns what came when the connection closes early; the rest is missing
                raise CutShort(wire, answer.length)
            answer.close()  # complete: the connection may carry the next request (read1 leaves the answer open)
            break
        wire += len(piece)
        if wire > limit:
            raise TooLarge(f"over {_size(limit)} on the wire")
        if inflater is None:
            out.write(piece)
        else:
            inflater.feed(piece, out)
    if inflater is not None:
        inflater.finish()
    return out.getvalue(), wire


class _Inflater:
    """Incremental gzip (several members allowed, as ``gzip.decompress`` allows) or deflate (zlib-wrapped, as HTTP
    says) with the output bounded by ``limit``."""

    def __init__(self, encoding: str, limit: int) -> None:
        self.gzip, self.limit, self.size, self.started = encoding != "deflate", limit, 0, False
        self.engine = self._new()

    def _new(self) -> zlib._Decompress:
        return zlib.decompressobj(16 + zlib.MAX_WBITS if self.gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes, out: io.BytesIO) -> None:
        self.started = True
        while data:
            if self.engine.eof:  # what follows the end of a stream: padding, or (gzip) another member
                if not data.strip(b"\0"):
                    return
                if not self.gzip:
                    raise EOFError("bytes after the end of the compressed body")
                self.engine = self._new()
            made = self.engine.decompress(data, min(STEP, self.limit - self.size + 1))
            self.size += len(made)
            if self.size > self.limit:
                raise TooLarge(f"over {_size(self.limit)} once decompressed")
            out.write(made)
            data = self.engine.unused_data if self.engine.eof else self.engine.unconsumed_tail

    def finish(self) -> None:
        if self.started and not self.engine.eof:
            raise EOFError("compressed body ends before its end")


def _size(limit: int) -> str:
    return f"{limit:,} bytes ({limit / MIB:g} MiB)" if limit >= MIB else f"{limit:,} bytes"
