"""Strict reading of CSV cells, before pydantic's lax mode sees them.

pydantic would read ``1234567.0`` or ``1_234_567`` as an integer and ``1672531200`` or ``0`` as a date. Here an
integer cell is digits only (a leading ``-`` allowed) and lies within +-(2^53 - 1), which DuckDB's BIGINT and
every JSON client (JavaScript's numbers) hold exactly; a date cell is exactly ``YYYY-MM-DD``.
"""

from __future__ import annotations

import datetime as dt
import re
import types
import typing
from typing import Annotated

from pydantic import BeforeValidator

MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer a JSON client holds exactly (JavaScript's Number.MAX_SAFE_INTEGER); every integer cell is
bounded by it."""
_INTEGER_CELL = re.compile(r"-?[0-9]+")
_DATE_CELL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def leaf_types(annotation: object) -> set[object]:
    """The concrete types inside an annotation: ``Annotated[int, ...] | None`` gives {int, NoneType}."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return leaf_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(leaf_types(arg) for arg in typing.get_args(annotation)))
    return {annotation}


def strict_integer(value: object) -> object:
    """Refuse an integer cell not written in digits only or outside +-(2^53 - 1); other values pass through."""
    if isinstance(value, str):
        if not _INTEGER_CELL.fullmatch(value):
            raise ValueError("must be a whole number written in digits only")
        if len(value) > 15 and abs(int(value)) > MAX_SAFE_INTEGER:
            raise ValueError(f"must be between -{MAX_SAFE_INTEGER} and {MAX_SAFE_INTEGER} (2^53 - 1)")
    return value


def strict_date(value: object) -> object:
    """Refuse a date cell not written exactly YYYY-MM-DD; other values pass through."""
    if isinstance(value, str) and not _DATE_CELL.fullmatch(value):
        raise ValueError("must be a date written YYYY-MM-DD")
    return value


STRICT_INTEGER = BeforeValidator(strict_integer)
STRICT_DATE = BeforeValidator(strict_date)
Integer = Annotated[int, STRICT_INTEGER]
"""An integer column of an input table, read strictly; with constraints:
``Annotated[int, Field(ge=...), STRICT_INTEGER]`` (the constraints first, so that the JSON schema shows them)."""
Date = Annotated[dt.date, STRICT_DATE]
"""A date column of an input table, read strictly."""
