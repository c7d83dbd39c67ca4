"""The one serializer: every JSON byte the build writes comes from here.

Keys keep the order they were built in (model field order for rows), separators are fixed, NaN and Infinity
are refused, dates are ISO 8601. Listing pages put one row per line so snapshot diffs stay small.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from json.encoder import encode_basestring as _encode_string  # type: ignore[attr-defined]

from pydantic import BaseModel

_ROWS_SENTINEL = "\x00rows\x00"
_ROWS_SENTINEL_JSON = json.dumps(_ROWS_SENTINEL).encode()


def _default(value: object) -> object:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"cannot serialize {type(value).__name__}")


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_default)
"""What ``json.dumps`` with these options makes on every call, made once."""


def dumps(value: object) -> bytes:
    """Compact, deterministic JSON bytes."""
    return _ENCODER.encode(value).encode()


def string(value: str) -> bytes:
    """A JSON string, exactly as ``dumps`` writes it (without the encoder's set-up per call)."""
    return _encode_string(value).encode()


def members(value: dict[str, object]) -> bytes:
    """The members of a JSON object without its braces, to join into a larger object."""
    return dumps(value)[1:-1]


def document(value: object) -> bytes:
    """A whole JSON file: the value and a final newline."""
    return dumps(value) + b"\n"


def row(model: BaseModel) -> bytes:
    """One listing row: pydantic's own JSON writer, three times faster than ``dumps`` and byte-identical to it for
    these models (compact separators, UTF-8, field order; checked over every row of a 10k-company build), which
    refuse NaN and Infinity when they validate."""
    return model.model_dump_json().encode()


SPLICE = _ROWS_SENTINEL
"""Placeholder for the value ``spliced`` puts in."""


def spliced(value: dict[str, object], json_bytes: bytes) -> bytes:
    """A whole JSON file: ``value`` with its one ``SPLICE`` placeholder replaced by already serialized JSON."""
    head, tail = dumps(value).split(_ROWS_SENTINEL_JSON)
    return head + json_bytes + tail + b"\n"


def resource(model: BaseModel, body: dict[str, object]) -> bytes:
    """A JSON file whose ``data`` is ``model`` (written by pydantic, as ``row``) and ``body`` the rest."""
    return spliced({"data": SPLICE, **body}, row(model))


def envelope(body: dict[str, object], rows: Sequence[bytes]) -> bytes:
    """A JSON file whose ``data`` is the already serialized ``rows``, one per line; ``body`` is the rest."""
    data = b"[\n" + b",\n".join(rows) + b"\n]" if rows else b"[]"
    return spliced({"data": SPLICE, **body}, data)
