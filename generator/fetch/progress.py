"""Progress of a fetch: a bar with counts, bytes and time left on a terminal; one line per source otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

WIDTH = 24


@dataclass
class Tally:
    """What a source's requests gave."""

    requests: int = 0
    downloaded: int = 0
    not_modified: int = 0
    absent: int = 0
    failed: int = 0
    bytes: int = 0
    """Bytes received on the wire."""
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        for name in ("requests", "downloaded", "not_modified", "absent", "failed", "bytes", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        return (f"{self.requests} requests: {self.downloaded} downloaded, {self.not_modified} not modified, "
                f"{self.absent} absent, {self.failed} failed; {self.bytes:,} bytes in {self.seconds:.1f} s")


@dataclass
class Progress:
    """Call ``start`` for each source with the number of documents it asks for, ``step`` after each one and
    ``finish`` at its end."""

    stream: TextIO | None
    """Where to report (standard error); None: report nothing."""
    clock: Callable[[], float] = time.monotonic
    source: str = ""
    total: int = 0
    done: int = 0
    tally: Tally = field(default_factory=Tally)
    started: float = 0.0
    elapsed: float = 0.0

    @property
    def bar(self) -> bool:
        return self.stream is not None and self.stream.isatty()

    def start(self, source: str, total: int) -> None:
        self.source, self.total, self.done, self.tally, self.started = source, total, 0, Tally(), self.clock()
        self._draw()

    def step(self, tally: Tally) -> None:
        self.done, self.tally, self.elapsed = self.done + 1, tally, self.clock() - self.started
        self._draw()

    def finish(self) -> Tally:
        self.tally.seconds = self.clock() - self.started
        if self.stream is not None:
            self.stream.write(("\r\x1b[K" if self.bar else "") + f"{self.source}: {self.tally.summary()}\n")
            self.stream.flush()
        return self.tally

    def _draw(self) -> None:
        if not self.bar or self.stream is None:
            return
        share = self.done / self.total if self.total else 1.0
        left = f"{self.elapsed / self.done * (self.total - self.done):.0f} s left" if self.done else "..."
        filled = int(share * WIDTH)
        self.stream.write(f"\r\x1b[K{self.source} [{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total}"
                          f" {self.tally.bytes / 1e6:.1f} MB, {left}")
        self.stream.flush()
