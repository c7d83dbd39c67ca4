"""Strict reading of the JSON documents importers take in (EDGAR's submissions, companyfacts and ticker lists, the
Nasdaq calendar and screener), and a cheap look at a file's first bytes to tell which of them it is.

What ``json.loads`` does quietly, a source file must not get away with:

- **A key repeated in one object** keeps the last value and drops the others: a ticker list with entry ``"0"``
  twice loses a company. Objects are read as ``JsonObject``, a dict that also keeps every pair in order
  (``pairs``) and the keys that came more than once (``repeated``): a reader of records iterates the pairs (both
  records are read), a reader of one record's fields refuses a field given twice with two values.
- **NaN and Infinity** are no JSON (RFC 8259) but Python reads them as floats: they are read as ``NOT_A_NUMBER``,
  which no value parser takes, so the record holding one is skipped and reported, not the file.
- **Nesting deeper than ``MAX_DEPTH``** fails the file with a message (``json`` itself would raise
  ``RecursionError`` at about a thousand levels, a traceback).
- **A document larger than ``MAX_BYTES``** fails before it is read: no body is held in memory beyond that.
- **Bytes that are not UTF-8, and malformed JSON**, fail with the file, line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generator.importers.base import SourceError

MAX_BYTES = 1 << 30
"""The largest JSON document read (1 GiB; the SEC's largest companyfacts bodies are about 60 MB)."""
MAX_DEPTH = 64
"""Deepest nesting read; the formats read need 6."""
HEAD = 4096


class _NotANumber:
    """The value of a NaN, Infinity or -Infinity in a source document (no JSON value)."""

    def __repr__(self) -> str:
        return "NaN"


NOT_A_NUMBER = _NotANumber()


class JsonObject(dict):  # type: ignore[type-arg]
    """A JSON object: a dict of the last value of each key, with every ``pairs`` in order and the ``repeated`` keys."""

    pairs: list[tuple[str, Any]]
    repeated: frozenset[str]


def _object(pairs: list[tuple[str, Any]]) -> JsonObject:
    result = JsonObject(pairs)
    result.pairs = pairs
    result.repeated = frozenset(k for k in result if sum(1 for key, _ in pairs if key == k) > 1) \
        if len(result) != len(pairs) else frozenset()
    return result


def _depth_exceeded(text: str) -> bool:
    """Whether brackets outside strings nest deeper than ``MAX_DEPTH`` (checked only when a document is deep)."""
    depth = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def position(data: bytes | str, offset: int) -> tuple[int, int]:
    """Line and column (both from 1) of a character or byte offset."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    line = data.count(newline, 0, offset) + 1  # type: ignore[arg-type]
    return line, offset - (data.rfind(newline, 0, offset) + 1) + 1  # type: ignore[arg-type]


def loads(data: bytes, path: Path | str) -> Any:
    """Parse one JSON document strictly (see the module); fails with ``SourceError`` naming file, line, column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = position(data, error.start)
        raise SourceError(path, line, f"column {column}: not valid UTF-8 (byte 0x{data[error.start]:02x})") from None
    text = text.removeprefix("\ufeff")
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth_exceeded(text):
        raise SourceError(path, 0, f"JSON nested more than {MAX_DEPTH} levels deep: not a document this "
                          "importer reads")
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=lambda _: NOT_A_NUMBER)
    except json.JSONDecodeError as error:
        raise SourceError(path, error.lineno, f"column {error.colno}: malformed JSON: {error.msg}") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise SourceError(path, 0, "JSON nested too deep") from None


def read(path: Path, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON document in ``path``, read strictly; a file over ``max_bytes`` fails before it is read."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise SourceError(path, 0, f"{size:,} bytes: larger than the {max_bytes:,} bytes a JSON document "
                              "may have here")
        start = head(path, 64)
        if size and start[:1] not in (b"{", b"["):  # junk fails before a byte more is read
            raise SourceError(path, 1, f"not a JSON document: it starts {start[:16]!r}, not with {{ or [")
        data = path.read_bytes()
    except OSError as error:
        raise SourceError(path, 0, f"cannot read: {error.strerror}") from None
    return loads(data, path)


def head(path: Path, size: int = HEAD) -> bytes:
    """The first ``size`` bytes of a file, without a byte-order mark or leading white space (b'' if unreadable)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(size).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return b""


def top_keys(path: Path) -> list[str]:
    """The keys of a JSON object's first level as far as the file's first bytes show them, for telling formats
    apart by what a document holds rather than by its name (EDGAR names submissions and companyfacts alike)."""
    start = head(path)
    if not start.startswith(b"{"):
        return []
    keys, depth = [], 0
    text = start.decode("utf-8", "replace")
    for token in re.finditer(r'"((?:[^"\\]|\\.)*)"(\s*:)?|[\[\]{}]', text):
        char = token.group()
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif depth == 1 and token.group(2):
            keys.append(token.group(1))
    return keys


def items(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of a JSON object, a repeated key's values included, in the order written."""
    return iter(value.pairs if isinstance(value, JsonObject) else value.items())


def number(value: Any) -> float | int | None:
    """A JSON number as Python has it; None for anything else (a string, null, NaN, a bool)."""
    if isinstance(value, bool) or value is NOT_A_NUMBER or not isinstance(value, int | float):
        return None
    return value
