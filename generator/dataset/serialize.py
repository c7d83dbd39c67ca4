"""The one serializer: every JSON byte the build writes comes from here.

Keys keep the order they were built in (model field order for rows), separators are fixed, NaN and Infinity
are refused, dates are ISO 8601. Listing pages put one row per line so snapshot diffs stay small.

Rows are written by pydantic's JSON writer (``row``, ``row_writer``), or, for a whole table of rows at once, by
DuckDB's where it writes the very same bytes (``duckdb_rows``: types and values checked, else pydantic's); a
table too large to hold comes a batch at a time (``table_row_batches``) into a file written in pieces
(``Envelope``, ``json_lines`` per batch).
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import math
import typing
from collections.abc import Callable, Iterator, Sequence
from json.encoder import encode_basestring as _encode_string  # type: ignore[attr-defined]

import duckdb
from pydantic import BaseModel
from pydantic_core import to_json

from generator.dataset.cells import leaf_types

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


_JSON_OF = {
    int: {"bigint", "integer", "smallint", "tinyint", "hugeint", "ubigint", "uinteger", "usmallint", "utinyint"},
    float: {"double", "float"}, str: {"varchar"}, bool: {"boolean"}, dt.date: {"date"},
}
"""DuckDB column types whose Python values pydantic's JSON writer writes, without a model, exactly as a model field
of the type does (a DECIMAL would come out as a string, an integer as ``5`` where a float field writes ``5.0``)."""


def written_alike(kind: object, annotation: object, top: bool, nested_floats: bool = False) -> bool:
    """Whether values of DuckDB type ``kind`` serialize as a field of type ``annotation`` would: same scalar type
    (a str-valued enum or literal is a string), a list of such values, a struct with the model's fields in its
    order, or a struct of such values for a ``dict[str, ...]``. A float counts only at the top of a row, where
    ``row_writer`` checks that it is finite, or anywhere with ``nested_floats`` (``duckdb_rows`` checks them all)."""
    leaves = leaf_types(annotation) - {type(None)}
    if len(leaves) != 1:
        return False
    (leaf,) = leaves
    kind_id = getattr(kind, "id", None)
    children = getattr(kind, "children", []) if kind_id in ("list", "struct") else []
    if typing.get_origin(leaf) is list:
        return kind_id == "list" and written_alike(children[0][1], typing.get_args(leaf)[0], False, nested_floats)
    if typing.get_origin(leaf) is dict:  # an object of str keys: a struct, its fields the keys in order
        key, item = typing.get_args(leaf)
        return key is str and kind_id == "struct" and all(
            written_alike(child, item, False, nested_floats) for _, child in children)
    if isinstance(leaf, type) and issubclass(leaf, BaseModel):
        fields = leaf.model_fields
        return kind_id == "struct" and [name for name, _ in children] == list(fields) and all(
            written_alike(child, fields[name].annotation, False, nested_floats) for name, child in children)
    if typing.get_origin(leaf) is typing.Literal:
        leaf = str if all(isinstance(v, str) for v in typing.get_args(leaf)) else None
    elif isinstance(leaf, type) and issubclass(leaf, enum.Enum):
        leaf = str if all(isinstance(m.value, str) for m in leaf) else None
    if leaf is float and not (top or nested_floats):
        return False
    return kind_id in _JSON_OF.get(leaf, ())  # type: ignore[call-overload]


def fits(
    model: type[BaseModel], columns: Sequence[tuple[str, object]], added: Sequence[str] = (),
    nested_floats: bool = False,
) -> bool:
    """Whether values of these columns (name, DuckDB type), with the fields ``added`` after them, serialize as the
    model writes them: the columns are its fields, in order, each of a type ``written_alike`` (a float, at the top
    only unless ``nested_floats``, to be checked finite by the caller)."""
    fields = model.model_fields
    return [name for name, _ in columns] + list(added) == list(fields) and all(
        written_alike(kind, fields[name].annotation, True, nested_floats) for name, kind in columns)


def row_writer(model: type[BaseModel], columns: Sequence[Sequence[object]]) -> Callable[[Sequence[object]], bytes]:
    """A function from one result row (a DuckDB cursor's ``description`` gives ``columns``: name and type of each,
    in the model's field order) to its JSON bytes, as ``row(model(**values))`` writes them.

    Where every column's type serializes as its field's (``written_alike``), pydantic's JSON writer writes the
    values straight (three times faster than validating a model per row; a float that is not finite is refused,
    as the model refuses it); else each row goes through the model."""
    fields = list(model.model_fields)
    validate = model.__pydantic_validator__.validate_python

    through_model = lambda values: row(validate(dict(zip(fields, values, strict=True))))  # noqa: E731

    if not fits(model, [(column[0], column[1]) for column in columns]):
        return through_model
    floats = [i for i, name in enumerate(fields) if float in leaf_types(model.model_fields[name].annotation)]

    def write(values: Sequence[object]) -> bytes:
        for i in floats:
            value = values[i]
            if value is not None and not math.isfinite(value):  # type: ignore[arg-type]
                return through_model(values)  # raises: the model refuses it
        return to_json(dict(zip(fields, values, strict=True)))

    return write


SPLICE = _ROWS_SENTINEL
"""Placeholder for the value ``spliced`` puts in."""


def spliced(value: dict[str, object], *parts: bytes | memoryview) -> bytes:
    """A whole JSON file: ``value`` with its one ``SPLICE`` placeholder replaced by already serialized JSON, the
    concatenation of ``parts``; made in one allocation (the dataset export is hundreds of MB at 100k companies)."""
    head, tail = dumps(value).split(_ROWS_SENTINEL_JSON)
    return b"".join((head, *parts, tail, b"\n"))


def resource(data: bytes, body: dict[str, object]) -> bytes:
    """A JSON file whose ``data`` is ``data``, already serialized (a model, as ``row`` writes it), and ``body``
    the rest."""
    return spliced({"data": SPLICE, **body}, data)


def envelope(body: dict[str, object], rows: Sequence[bytes]) -> bytes:
    """A JSON file whose ``data`` is the already serialized ``rows``, one per line; ``body`` is the rest."""
    if not rows:
        return spliced({"data": SPLICE, **body}, b"[]")
    return spliced({"data": SPLICE, **body}, b"[\n", b",\n".join(rows), b"\n]")


def json_lines(rows: Sequence[bytes]) -> bytes:
    """JSON Lines: the already serialized ``rows`` (the same bytes as in an ``envelope``), each ending in a newline."""
    return b"\n".join(rows) + b"\n" if rows else b""


class Envelope:
    """``envelope(body, rows)`` written in pieces, for rows that come a batch at a time: ``head``, then
    ``rows(batch)`` for each batch, then ``end()``; the pieces joined are ``envelope``'s bytes. (``json_lines`` of
    each batch, joined, are ``json_lines`` of all the rows.)"""

    def __init__(self, body: dict[str, object]) -> None:
        head, tail = dumps({"data": SPLICE, **body}).split(_ROWS_SENTINEL_JSON)
        self.head: bytes = head
        self._tail = tail + b"\n"
        self._empty = True

    def rows(self, rows: Sequence[bytes]) -> list[bytes]:
        """The next rows' pieces, to write one after the other."""
        if not rows:
            return []
        opening = b"[\n" if self._empty else b",\n"
        self._empty = False
        return [opening, b",\n".join(rows)]

    def end(self) -> bytes:
        """What follows the last row."""
        return (b"[]" if self._empty else b"\n]") + self._tail


DOUBLES_ALIKE = (1e-5, 1e16)
"""The magnitudes (and zero) of a double that DuckDB's JSON writer writes exactly as pydantic's does: shortest
round-trip digits in positional notation; outside, one of them writes an exponent (``1e+16``, ``9.9e-6``) and the
other does not (checked over a quarter of a million values, ``tests/test_duckdb_rows.py``)."""
_CONTROL_ESCAPE = b"\\u00"
"""How both writers escape a control character; DuckDB writes its hex digits upper-case (``\\u001B``),
pydantic lower-case: a table with one goes through pydantic's writer."""


def _alike(value: str, kind: object, depth: int = 0) -> str | None:
    """SQL true where every double and date in ``value`` (of DuckDB type ``kind``, inside lists and structs too) is
    one DuckDB's JSON writer writes as pydantic's does (``DOUBLES_ALIKE``; years 1-9999); None: nothing to check."""
    kind_id = getattr(kind, "id", None)
    low, high = DOUBLES_ALIKE
    if kind_id == "double":
        return f"coalesce({value} = 0 OR abs({value}) >= {low!r} AND abs({value}) < {high!r}, true)"
    if kind_id == "date":
        return f"coalesce({value} BETWEEN DATE '0001-01-01' AND DATE '9999-12-31', true)"
    if kind_id == "float":  # a 4-byte float: DuckDB writes its double's digits
        return "false"
    children = getattr(kind, "children", []) if kind_id in ("list", "struct") else []
    if kind_id == "struct":
        checks = [c for name, child in children if (c := _alike(f'({value})."{name}"', child, depth)) is not None]
        return " AND ".join(checks) or None
    if kind_id == "list":
        item = f"x{depth}"
        inner = _alike(item, children[0][1], depth + 1)
        if inner is not None:
            return f"coalesce(list_bool_and(list_transform({value}, lambda {item}: {inner})), true)"
    return None


def _duckdb_select(
    con: duckdb.DuckDBPyConnection, model: type[BaseModel], source: str, order: str, escapes: bool = False,
) -> str | None:
    """The query of every row of ``source`` in ``order`` as DuckDB's JSON writer writes it (``duckdb_rows``), or None
    where its bytes could differ from the model's: columns that do not ``fit``, a value outside what ``_alike``
    allows and, with ``escapes``, a row with a control character escaped (``_CONTROL_ESCAPE``, found in one pass
    over the table here, before any row is fetched)."""
    fields = list(model.model_fields)
    columns = ", ".join(f'"{name}"' for name in fields)
    empty = con.execute(f"SELECT {columns} FROM {source} LIMIT 0")
    described = [(column[0], column[1]) for column in empty.description]
    if not fits(model, described, nested_floats=True):
        return None
    packed = "to_json(struct_pack({}))".format(", ".join(f'"{name}" := "{name}"' for name in fields))
    guards = [c for name, kind in described if (c := _alike(f'"{name}"', kind)) is not None]
    if escapes:
        guards.append(f"NOT contains(CAST({packed} AS VARCHAR), $escape)")
    if guards:
        found = con.execute(f"SELECT bool_and({' AND '.join(guards)}) FROM {source}",
                            {"escape": _CONTROL_ESCAPE.decode()} if escapes else None).fetchone()
        if found is None or found[0] is False:
            return None
    # sorted, then written (a subquery's order holds through a SELECT): sorting the written text instead held more
    # than 64 MB of DuckDB's memory for 300k companies' rows
    return f"SELECT encode({packed}) FROM (SELECT * FROM {source} ORDER BY {order})"


def duckdb_rows(con: duckdb.DuckDBPyConnection, model: type[BaseModel], source: str, order: str) -> list[bytes] | None:
    """Every row of ``source`` (a table) in ``order``, as ``row_writer`` writes it (the columns named as the model's
    fields), each written by DuckDB's JSON writer: a fifth of the time of fetching the values into Python. None
    where that could write other bytes: columns that do not ``fit`` the model, a float (4 bytes), a double
    outside ``DOUBLES_ALIKE`` or not finite (the model refuses it), a date outside years 1-9999 (in lists and
    structs too), a control character escaped (``_CONTROL_ESCAPE``); and where DuckDB runs out of memory writing
    them: it writes a row's text in one piece of its memory, and a row can be large (an industry lists every company
    of its sector: 51,578 at 300k companies, 16 MB more than a limit of 64 MB held); the model's writer, which takes
    them then, writes the same bytes."""
    select = _duckdb_select(con, model, source, order)
    if select is None:
        return None
    try:
        rows = [data for (data,) in con.execute(select).fetchall()]
    except duckdb.OutOfMemoryException:
        return None
    return None if any(_CONTROL_ESCAPE in data for data in rows) else rows


def table_rows(con: duckdb.DuckDBPyConnection, model: type[BaseModel], source: str, order: str) -> list[bytes]:
    """Every row of ``source`` (a table whose columns include the model's fields) in ``order``, serialized as its
    model writes it: by DuckDB where that writes the same bytes (``duckdb_rows``), else by ``row_writer``."""
    made = duckdb_rows(con, model, source, order)
    if made is not None:
        return made
    columns = ", ".join(f'"{name}"' for name in model.model_fields)
    result = con.execute(f"SELECT {columns} FROM {source} ORDER BY {order}")
    write = row_writer(model, result.description)
    out: list[bytes] = []
    while batch := result.fetchmany(10_000):
        out.extend(map(write, batch))
    return out


def table_row_batches(
    con: duckdb.DuckDBPyConnection, model: type[BaseModel], source: str, order: str, batch: int,
) -> Iterator[list[bytes]]:
    """The rows ``table_rows`` returns, the same bytes in the same order, fetched and serialized ``batch`` at a time:
    never all of them in Python (DuckDB sorts them within its memory limit, spilling beyond it). Which writer
    serializes them is decided before the first row: the control characters ``duckdb_rows`` looks for in its
    output are looked for in one pass of DuckDB's first. The query stays open on ``con`` until the last batch:
    run nothing else on it meanwhile."""
    select = _duckdb_select(con, model, source, order, escapes=True)
    if select is not None:
        result = con.execute(select)
        while found := result.fetchmany(batch):
            yield [data for (data,) in found]
        return
    columns = ", ".join(f'"{name}"' for name in model.model_fields)
    result = con.execute(f"SELECT {columns} FROM {source} ORDER BY {order}")
    write = row_writer(model, result.description)
    while found := result.fetchmany(batch):
        yield list(map(write, found))
