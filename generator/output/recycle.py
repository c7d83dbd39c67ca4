"""The output two builds back as the next build's staging folder, instead of deleting it and making a new one.

A rebuild's staging folder needs every folder of the output (85k at 10k companies) and a hard link per file; the
retired output (``.<name>.retired``, the output before the current one) already has that shape. When the same
code made it, the build renames it to its staging folder and updates it: a file that is already the current
output's file (same inode: unchanged across the last two builds) stays, any other is replaced, and at the end
everything the build did not write is removed (``drop_stale``), so the staged tree holds exactly the build's
files. What the folder holds is listed once, by ``find`` in a separate process while the build runs, and
used at the end. No write follows a symbolic link out of the folder: each process checks every folder it writes
into once, parents first, and replaces a link or a file there by a real folder; a file is replaced, never
written into (``staged.py``). Links and other odd entries where the build writes nothing go with the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Collection, Iterable
from pathlib import Path

from generator.output.manifest import UNITS_FILE


def made_by(folder: Path, code: str | None) -> bool:
    """Whether ``folder`` is an output made by ``code`` (its units file says so)."""
    if code is None or folder.is_symlink() or not folder.is_dir():
        return False
    try:
        with open(folder / UNITS_FILE, encoding="utf-8") as handle:
            return json.load(handle).get("code") == code
    except (OSError, ValueError, AttributeError):
        return False


class Listing:
    """Every entry of a folder as (kind, relative path), kind ``d`` folder, ``f`` regular file, other letters
    anything else; read by ``find`` in a separate process (a Python walk where ``find`` is missing)."""

    def __init__(self, folder: str) -> None:
        self._folder = folder
        self._raw: bytes | None = None
        self._entries: list[tuple[str, str]] | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        """Only waits for ``find`` (at a low priority, beside the build's validation); parsing is left to
        ``entries``, so that this thread does not compete for the interpreter meanwhile."""
        command = ["find", ".", "-mindepth", "1", "-printf", "%y %P\\0"]
        if shutil.which("nice"):
            command = ["nice", "-n", "10", *command]
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            self._raw = subprocess.run(command, cwd=self._folder, capture_output=True, check=True).stdout

    def entries(self) -> list[tuple[str, str]]:
        """The entries (parsed once: a build asks while it waits for its workers, and again at the commit)."""
        if self._entries is None:
            self._thread.join()
            if self._raw is None:
                self._entries = list(walk(self._folder))
            else:
                text, self._raw = self._raw.decode("utf-8", "surrogateescape"), None
                self._entries = [(item[0], item[2:]) for item in text.split("\0") if item]
        return self._entries


def walk(root: str) -> Iterable[tuple[str, str]]:
    """Every entry below ``root`` as (kind, relative path): ``d`` a folder, ``f`` a regular file, ``l`` anything
    else; links are listed, never followed."""
    prefix = len(root) + 1
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as found:
            for entry in found:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    yield "d", entry.path[prefix:]
                else:
                    yield ("f" if entry.is_file(follow_symlinks=False) else "l"), entry.path[prefix:]


def drop_stale(folder: str, entries: list[tuple[str, str]], written: Collection[str], used: set[str]) -> int:
    """Remove the listed entries (listed before the build wrote anything) that the build did not write, files,
    links and anything else, and the folders it did not use (``used``: the folders it wrote into and their
    parents, relative); return how many. (An entry the build wrote over, a link where a file or a folder goes now,
    was replaced by the build: ``StagedFiles``.)"""
    listed = {path for kind, path in entries if kind != "d"}
    removed = 0
    for path in sorted(listed.difference(written, used)):  # a file or link where a folder goes now stays: replaced
        try:
            os.unlink(os.path.join(folder, path))  # a link is removed, never followed
            removed += 1
        except FileNotFoundError:
            pass
    folders = {path for kind, path in entries if kind == "d"} - used
    for path in sorted(folders, key=lambda p: -p.count("/")):
        if os.path.isdir(os.path.join(folder, path)):
            shutil.rmtree(os.path.join(folder, path), ignore_errors=True)
            removed += 1
    return removed
