"""Strict reading of CSV cells, before pydantic's lax mode sees them.

pydantic would read ``1234567.0`` or ``1_234_567`` as an integer and ``1672531200`` or ``0`` as a date. Here an
integer cell is digits only (a leading ``-`` allowed) and lies within +-(2^53 - 1), which DuckDB's BIGINT and
every JSON client (JavaScript's numbers) hold exactly; a date cell is exactly ``YYYY-MM-DD``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import types
import typing

from pydantic import BaseModel

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


@functools.cache
def _kinds(model: type[BaseModel], name: str) -> frozenset[object]:
    return frozenset(leaf_types(model.model_fields[name].annotation))


def check_cell(model: type[BaseModel], name: str, value: str) -> None:
    """Raise ``ValueError`` if the text of an integer or date cell is not written strictly."""
    kinds = _kinds(model, name)
    if int in kinds:
        if not _INTEGER_CELL.fullmatch(value):
            raise ValueError("must be a whole number written in digits only")
        if len(value) > 15 and abs(int(value)) > MAX_SAFE_INTEGER:
            raise ValueError(f"must be between -{MAX_SAFE_INTEGER} and {MAX_SAFE_INTEGER} (2^53 - 1)")
    elif dt.date in kinds and not _DATE_CELL.fullmatch(value):
        raise ValueError("must be a date written YYYY-MM-DD")
