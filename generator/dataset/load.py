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

import csv
import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from generator.dataset.cells import leaf_types
from generator.dataset.lines import Lines, bad_utf8
from generator.dataset.schema import RESERVED_SLUGS, TABLES, DatasetInfo, ForeignKey, Table

DATASET_INFO_FILE = "dataset.json"


@dataclass(frozen=True, order=True)
class Issue:
    """One problem in the input data."""

    file: str
    line: int
    column: str
    reason: str
    rank: int = field(default=1, compare=False)
    """0: the file cannot be read whole; 1: a problem of one row; 2: a consequence of a rank-0 problem."""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: column {self.column}: {self.reason}" if self.column else f"{where}: {self.reason}"


class DataError(Exception):
    """The input dataset is invalid; ``issues`` lists every problem found."""

    def __init__(self, issues: list[Issue]) -> None:
        self.issues = sorted(issues, key=lambda issue: (issue.rank, issue))
        shown = "\n".join(f"  {issue}" for issue in self.issues[:200])
        more = f"\n  ... and {len(self.issues) - 200} more" if len(self.issues) > 200 else ""
        super().__init__(f"{len(self.issues)} problem(s) in the dataset:\n{shown}{more}")


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


def read_rows(path: Path, table: Table, issues: list[Issue], limit: int = PROBLEMS_PER_TABLE) -> ParsedTable:
    """Parse and validate one CSV file row by row, a block at a time; problems go to ``issues`` (at most
    ``limit``, then one that says where reading stopped)."""
    name = table.file_name
    found: list[Issue] = []
    try:
        with open(path, "rb") as handle:
            return _parse(Lines(handle), table, found, limit)
    except FileNotFoundError:
        if table.optional:  # a folder from before the table: none of its rows
            return ParsedTable(table, [], [])
        found = [Issue(name, 0, "", "file is missing", rank=0)]
    except UnicodeDecodeError:  # the whole file is reported as this one problem
        line, column, byte = bad_utf8(path) or (0, 0, 0)
        found = [Issue(name, line, "", f"not valid UTF-8 (byte {byte:#04x} at byte {column} of the line): save "
                                       "the file as UTF-8", rank=0)]
    except OSError as error:  # a folder, no permission
        found = [Issue(name, 0, "", _unreadable(error), rank=0)]
    finally:
        issues.extend(found)
    return ParsedTable(table, [], [], broken=True)


def _parse(lines: Lines, table: Table, issues: list[Issue], limit: int) -> ParsedTable:
    parsed, name = ParsedTable(table, [], [], broken=True), table.file_name  # broken until the header is read
    fields = list(table.model.model_fields)
    reader = csv.reader(lines, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as error:
        issues.append(Issue(name, 1, "", f"malformed CSV: {error}", rank=0))
        return parsed
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
        return parsed
    parsed.broken = False
    model = table.model
    validate_row = model.__pydantic_validator__.validate_python  # model_validate without its wrapper's cost
    line = 1
    while len(issues) < limit:
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
        parsed.rows.append(row.__dict__)  # the field values, as model_dump() gives them for these flat models
        parsed.lines.append(start)
    else:
        left = lines.rest()
        if left:
            issues.append(Issue(name, line + 1, "", f"stopped after {len(issues)} problems: {left:,} line(s) from "
                                                    "here on were not read", rank=1))
            parsed.broken = True  # references into the rows not read are summarised
    return parsed


def _csv_error(error: csv.Error, start: int, end: int) -> str:
    reason = f"malformed CSV: {error}"
    if "unexpected end of data" in str(error):
        reason += " (a quoted cell that starts in this record is never closed)"
    elif end != start:
        reason += f" (noticed on line {end})"
    return reason


def _key_of(row: dict[str, object], columns: tuple[str, ...]) -> object:
    return row[columns[0]] if len(columns) == 1 else tuple(row[c] for c in columns)


def read_table(data_dir: Path, table: Table, as_of: dt.date | None, issues: list[Issue]) -> ParsedTable:
    """Parse and validate one table's file and check what concerns it alone: its key and unique columns, its
    slugs and (with the dataset's ``as_of``) its dates. References across tables are checked apart."""
    parsed = read_rows(data_dir / table.file_name, table, issues)
    check_unique(parsed, issues)
    check_slugs({table.name: parsed}, issues)
    if as_of is not None:
        check_dates({table.name: parsed}, as_of, issues)
    return parsed


def _check_references(tables: dict[str, ParsedTable], issues: list[Issue]) -> None:
    """Every foreign key points at an existing row."""
    targets: dict[tuple[str, str], set[str]] = {}
    for parsed in tables.values():
        for fk in parsed.table.foreign_keys:
            target_key = (fk.table, fk.target)
            if target_key not in targets:
                targets[target_key] = key_values(tables[fk.table], fk.target)
            check_references(parsed, fk, targets[target_key], tables[fk.table].broken, issues)


def check_unique(parsed: ParsedTable, issues: list[Issue]) -> None:
    """The primary key and unique columns of one table hold no value twice."""
    table = parsed.table
    for columns in (table.key, *((c,) for c in table.unique)):
        seen: dict[object, int] = {}
        for row, line in zip(parsed.rows, parsed.lines, strict=True):
            value = _key_of(row, columns)
            if value is None or (isinstance(value, tuple) and None in value):
                continue
            if value in seen:
                issues.append(Issue(
                    table.file_name, line, ",".join(columns),
                    f"duplicate value {value!r} (first on line {seen[value]})",
                ))
            else:
                seen[value] = line


def key_values(parsed: ParsedTable, column: str) -> set[str]:
    """The values of a column a foreign key points at, as text, invalid rows included (their keys exist)."""
    return {str(row[column]) for row in (*parsed.rows, *parsed.invalid)}


def check_references(
    parsed: ParsedTable, fk: ForeignKey, known: set[str], target_broken: bool, issues: list[Issue]
) -> None:
    """Every value of one foreign key column is one of ``known`` (the target column's values, as text)."""
    missing = [(line, row[fk.column]) for row, line in zip(parsed.rows, parsed.lines, strict=True)
               if row[fk.column] is not None and str(row[fk.column]) not in known]
    if missing and target_broken:
        issues.append(_consequence(parsed.table.file_name, fk.column, fk.table, missing))
        return
    for line, value in missing:
        issues.append(Issue(
            parsed.table.file_name, line, fk.column,
            f"{value!r} does not exist in {fk.table}.csv column {fk.target}",
        ))


def _consequence(file: str, column: str, target: str, missing: list[tuple[int, object]]) -> Issue:
    """One issue for every reference into a file that could not be read whole."""
    lines = ", ".join(str(line) for line, _ in missing[:5]) + (", ..." if len(missing) > 5 else "")
    return Issue(
        file, missing[0][0], column,
        f"{len(missing)} value(s) not found in {target}.csv (lines {lines}; first {missing[0][1]!r}), "
        f"which has errors listed above: fix those first",
        rank=2,
    )


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


def validate(data_dir: Path) -> tuple[DatasetInfo, dict[str, ParsedTable]]:
    """Read and check the whole dataset; raise ``DataError`` listing every problem."""
    issues: list[Issue] = []
    try:
        info: DatasetInfo | None = read_dataset_info(data_dir)
    except DataError as error:
        issues.extend(error.issues)
        info = None
    as_of = info.as_of if info is not None else None
    tables = {table.name: read_table(data_dir, table, as_of, issues) for table in TABLES}
    _check_references(tables, issues)
    if issues or info is None:
        raise DataError(issues)
    return info, tables


__all__ = ["DataError", "Issue", "validate", "read_dataset_info"]
