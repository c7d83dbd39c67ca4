"""Read the canonical dataset: validate every CSV row and every reference (``database`` loads the result into
DuckDB).

Validation happens entirely before anything is loaded or written, and reports every problem it finds (not only
the first; reading a file stops after ``PROBLEMS_PER_TABLE``), each with file, line, column and reason.

Files are read as RFC 4180 CSV by the ``csv`` module (a cell may hold line breaks of any kind; only CR, LF and
CRLF end a record), in UTF-8 with or without a byte-order mark. A problem is located at the first line of its
record. Problems are ranked by cause: a file that cannot be read whole (missing, not UTF-8, a bad header, a
malformed record) comes first, then problems of single rows, and last, one summary per column of the references
into such a file, which would otherwise each be reported as missing.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import functools
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from pydantic import ValidationError

from generator.dataset.cells import leaf_types
from generator.dataset.database import Staging, check_references, check_unique, compress
from generator.dataset.issues import DataError, Issue
from generator.dataset.lines import Lines, bad_utf8
from generator.dataset.schema import RESERVED_SLUGS, TABLES, DatasetInfo, Table

DATASET_INFO_FILE = "dataset.json"


@dataclass
class ParsedTable:
    table: Table
    rows: list[dict[str, object]]
    lines: list[int]
    """Line of the file where each row starts (the header is line 1)."""
    invalid: list[dict[str, str | None]] = field(default_factory=list)
    """Raw values of rows that failed validation: their keys still count as targets of references, so one bad
    row is reported once instead of again by every row that points at it."""
    broken: bool = False
    """Some of the file could not be read into rows: references into it are summarised, not listed."""
    unreadable: bool = False
    """The file could not be read at all (missing, not UTF-8): reported as one problem, none of its rows kept."""


def read_dataset_info(data_dir: Path) -> DatasetInfo:
    path = data_dir / DATASET_INFO_FILE
    try:
        return DatasetInfo.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise DataError([Issue(DATASET_INFO_FILE, 0, "", "file is missing")]) from None
    except OSError as error:  # a folder, no permission
        raise DataError([Issue(DATASET_INFO_FILE, 0, "", _unreadable(error))]) from None
    except json.JSONDecodeError as error:
        raise DataError([Issue(DATASET_INFO_FILE, error.lineno, "", f"malformed JSON: {error.msg}")]) from None
    except ValidationError as error:
        raise DataError(
            [Issue(DATASET_INFO_FILE, 0, _location(e["loc"]), e["msg"]) for e in error.errors()]
        ) from None


def _unreadable(error: OSError) -> str:
    return f"cannot be read: {error.strerror or error}"


def _location(loc: tuple[object, ...]) -> str:
    return ".".join(str(part) for part in loc)


PROBLEMS_PER_TABLE = 100
"""Reading a table's file stops after this many problems (and the rest of the row that reaches it), and one more
says how many lines were left unread: millions of bad rows are reported at once, in memory that does not grow with
them. The rows read are still checked (unique keys, references); references into the file are summarised."""


BLOCK_ROWS = 10_000
"""Rows parsed, checked and appended to DuckDB at a time (where a call gives no ``block``): a table's rows are
never all in Python at once."""


def read_rows(path: Path, table: Table, issues: list[Issue], limit: int = PROBLEMS_PER_TABLE) -> ParsedTable:
    """Parse and validate one CSV file row by row into Python (``read_blocks``, every block kept)."""
    parsed = ParsedTable(table, [], [])
    for block in read_blocks(path, parsed, issues, limit):
        parsed.rows += block.rows
        parsed.lines += block.lines
    if parsed.unreadable:
        parsed.rows, parsed.lines = [], []
    return parsed


def read_blocks(
    path: Path, state: ParsedTable, issues: list[Issue], limit: int = PROBLEMS_PER_TABLE, block: int | None = None
) -> Iterator[ParsedTable]:
    """Parse and validate one CSV file row by row, handing out its valid rows ``block`` at a time; problems go
    to ``issues`` (at most ``limit``, then one that says where reading stopped). ``state`` (its table, no rows)
    gets the invalid rows and whether the file is broken; where it is ``unreadable``, the blocks handed out are
    void: the whole file is reported as one problem."""
    table = state.table
    name = table.file_name
    found: list[Issue] = []
    try:
        with open(path, "rb") as handle:
            yield from _parse(Lines(handle), state, found, limit, block or BLOCK_ROWS)
            return
    except FileNotFoundError:
        if table.optional:  # a folder from before the table: none of its rows
            return
        found = [Issue(name, 0, "", "file is missing", rank=0)]
    except UnicodeDecodeError:  # the whole file is reported as this one problem
        line, column, byte = bad_utf8(path) or (0, 0, 0)
        found = [Issue(name, line, "", f"not valid UTF-8 (byte {byte:#04x} at byte {column} of the line): save "
                                       "the file as UTF-8", rank=0)]
    except OSError as error:  # a folder, no permission
        found = [Issue(name, 0, "", _unreadable(error), rank=0)]
    finally:
        issues.extend(found)
    state.invalid, state.broken, state.unreadable = [], True, True


def _parse(
    lines: Lines, parsed: ParsedTable, issues: list[Issue], limit: int, size: int
) -> Iterator[ParsedTable]:
    table = parsed.table
    parsed.broken, name = True, table.file_name  # broken until the header is read
    fields = list(table.model.model_fields)
    reader = csv.reader(lines, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as error:
        issues.append(Issue(name, 1, "", f"malformed CSV: {error}", rank=0))
        return
    # Columns added to the format later sit at the end and are optional: a file written before them still loads.
    absent = fields[len(header):] if header is not None and header == fields[: len(header)] else None
    if absent is not None and all(not table.model.model_fields[f].is_required() for f in absent):
        fields = list(header or [])
    if header != fields:
        fields = list(table.model.model_fields)
        missing = [f for f in fields if f not in (header or [])]
        unknown = [h if h.isprintable() else ascii(h) for h in (header or []) if h not in fields]
        twice = [h if h.isprintable() else ascii(h) for i, h in enumerate(header or []) if h in (header or [])[:i]]
        detail = [f"{', '.join(dict.fromkeys(twice))} twice"] if twice else []
        if missing:
            detail.append(f"missing {', '.join(missing)}")
        if unknown:
            detail.append(f"unknown {', '.join(unknown)}")
        if not detail:
            detail.append("columns out of order")
        issues.append(Issue(name, 1, "", f"header must be {','.join(fields)} ({'; '.join(detail)})", rank=0))
        return
    parsed.broken = False
    model = table.model
    validate_row = model.__pydantic_validator__.validate_python  # model_validate without its wrapper's cost
    block = ParsedTable(table, [], [])
    line = 1
    while len(issues) < limit:
        if len(block.rows) >= size:
            yield block
            block = ParsedTable(table, [], [])
        start = line + 1  # the record's first line
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            line = reader.line_num
            issues.append(Issue(name, start, "", _csv_error(error, start, line), rank=0))
            parsed.broken = True
            continue  # the reader goes on after the bad record
        line = reader.line_num
        if not values:
            continue
        if len(values) != len(fields):
            issues.append(Issue(name, start, "", f"expected {len(fields)} fields, found {len(values)}", rank=0))
            parsed.broken = True
            continue
        record = {f: (v if v != "" else None) for f, v in zip(fields, values, strict=True)}
        try:
            row = validate_row(record)
        except ValidationError as error:
            for detail in error.errors(include_url=False):
                column = _location(detail["loc"][:1])
                value = record.get(column) if column else None
                shown = f" (got {value!r})" if value is not None else ""
                reason = detail["msg"].removeprefix("Value error, ")
                issues.append(Issue(name, start, column, f"{reason}{shown}"))
            parsed.invalid.append(record)
            continue
        block.rows.append(row.__dict__)  # the field values, as model_dump() gives them for these flat models
        block.lines.append(start)
    else:
        left = lines.rest()
        if left:
            issues.append(Issue(name, line + 1, "", f"stopped after {len(issues)} problems: {left:,} line(s) from "
                                                    "here on were not read", rank=1))
            parsed.broken = True  # references into the rows not read are summarised
    if block.rows:
        yield block


def _csv_error(error: csv.Error, start: int, end: int) -> str:
    reason = f"malformed CSV: {error}"
    if "unexpected end of data" in str(error):
        reason += " (a quoted cell that starts in this record is never closed)"
    elif end != start:
        reason += f" (noticed on line {end})"
    return reason


def read_into(
    staging: Staging, data_dir: Path, as_of: dt.date | None, issues: list[Issue], block: int | None = None
) -> ParsedTable:
    """Parse and validate one table's file into ``staging`` a block at a time and check what concerns it alone:
    its key and unique columns, its slugs and (with the dataset's ``as_of``) its dates. Returns its state (no
    rows: they are staged). References across tables are checked apart (``check_references``)."""
    state, found = ParsedTable(staging.table, [], []), []
    for rows in read_blocks(data_dir / staging.table.file_name, state, issues, block=block):
        check_slugs({staging.table.name: rows}, found)
        if as_of is not None:
            check_dates({staging.table.name: rows}, as_of, found)
        staging.append(rows.rows, rows.lines)
    staging.checked = state
    if state.unreadable:
        staging.clear()
        return state
    issues.extend(found)
    check_unique(staging, issues)
    return state


def check_slugs(tables: dict[str, ParsedTable], issues: list[Issue]) -> None:
    """Slugs share URL space with the words of listing paths; those words are reserved."""
    reserved = RESERVED_SLUGS
    for parsed in tables.values():
        if "slug" not in parsed.table.model.model_fields:
            continue
        for row, line in zip(parsed.rows, parsed.lines, strict=True):
            if row["slug"] in reserved:
                issues.append(Issue(parsed.table.file_name, line, "slug", f"{row['slug']!r} is a reserved word"))


def check_dates(tables: dict[str, ParsedTable], as_of: dt.date, issues: list[Issue]) -> None:
    """Reported dates cannot lie after the dataset's as-of date (expected dates may)."""
    future_ok = {"expected_date", "close_date"}
    for parsed in tables.values():
        date_columns = [
            name for name, info in parsed.table.model.model_fields.items()
            if dt.date in leaf_types(info.annotation) and name not in future_ok
        ]
        for row, line in zip(parsed.rows, parsed.lines, strict=True):
            for column in date_columns:
                value = row[column]
                if isinstance(value, dt.date) and value > as_of:
                    issues.append(Issue(
                        parsed.table.file_name, line, column,
                        f"{value.isoformat()} is after the dataset's as_of date {as_of.isoformat()}",
                    ))


def check_tables(
    con: duckdb.DuckDBPyConnection, data_dir: Path, tables: list[Table], as_of: dt.date | None,
    scratch: Callable[[str], str], issues: list[Issue], block: int | None = None,
) -> dict[str, Staging]:
    """Stage and check ``tables`` in ``con`` (references included: into the others, their loaded tables)."""
    staged = {table.name: Staging(con, table, scratch) for table in tables}
    for staging in staged.values():
        read_into(staging, data_dir, as_of, issues, block)
    check_references(con, staged, issues)
    return staged


def validate_into(
    con: duckdb.DuckDBPyConnection, data_dir: Path, scratch: Callable[[str], str], block: int | None = None
) -> DatasetInfo:
    """Validate ``data_dir`` and load it into ``con`` (an empty database) a block of rows at a time; raise
    ``DataError`` listing every problem (and leave no table)."""
    info, staged = _check_all(con, data_dir, scratch, block)
    for staging in staged.values():
        staging.finish()
        compress(con)
    return info


def _check_all(
    con: duckdb.DuckDBPyConnection, data_dir: Path, scratch: Callable[[str], str], block: int | None
) -> tuple[DatasetInfo, dict[str, Staging]]:
    issues: list[Issue] = []
    try:
        info: DatasetInfo | None = read_dataset_info(data_dir)
    except DataError as error:
        issues.extend(error.issues)
        info = None
    staged = check_tables(con, data_dir, list(TABLES), info.as_of if info else None, scratch, issues, block)
    if issues or info is None:
        for staging in staged.values():
            staging.drop()
        raise DataError(issues)
    return info, staged


@contextlib.contextmanager
def _scratch_database() -> Iterator[tuple[duckdb.DuckDBPyConnection, Callable[[str], str]]]:
    """A DuckDB database of its own that spills into a temporary folder, and that folder for scratch files."""
    with tempfile.TemporaryDirectory(prefix="validate-") as folder:
        con = duckdb.connect(":memory:", config={"temp_directory": os.path.join(folder, "spill")})
        try:
            yield con, functools.partial(os.path.join, folder)
        finally:
            con.close()


def _parsed(staging: Staging, state: ParsedTable | None = None) -> ParsedTable:
    parsed = ParsedTable(staging.table, [], [], *((state.invalid, state.broken) if state else ()))
    for line, row in staging.rows():
        parsed.rows.append(row)
        parsed.lines.append(line)
    return parsed


def read_table(data_dir: Path, table: Table, as_of: dt.date | None, issues: list[Issue]) -> ParsedTable:
    """``read_into`` into Python: one table's valid rows, in the file's order."""
    with _scratch_database() as (con, scratch):
        staging = Staging(con, table, scratch)
        return _parsed(staging, read_into(staging, data_dir, as_of, issues))


def validate(data_dir: Path, block: int | None = None) -> tuple[DatasetInfo, dict[str, ParsedTable]]:
    """Read and check the whole dataset into Python (``validate_into`` loads it into DuckDB instead); raise
    ``DataError`` listing every problem."""
    with _scratch_database() as (con, scratch):
        info, staged = _check_all(con, data_dir, scratch, block)
        return info, {name: _parsed(staging) for name, staging in staged.items()}


def load(data_dir: Path, con: duckdb.DuckDBPyConnection) -> DatasetInfo:
    """Validate ``data_dir`` and load it into ``con``; raise ``DataError`` if anything is wrong."""
    with tempfile.TemporaryDirectory(prefix="validate-") as folder:
        return validate_into(con, data_dir, functools.partial(os.path.join, folder))


__all__ = ["DataError", "Issue", "validate", "validate_into", "read_dataset_info"]
