"""The dataset in DuckDB: one table per input table, with column types from the models, loaded from rows in Python
(``load_into``), block by block while they are validated (``Staging``: ``load.validate_into``) or from parquet
files that hold them (``load_parquet``); and the checks across rows that run in DuckDB (``duplicates``,
``missing``), so that no table's rows are all in Python at once."""

from __future__ import annotations

import datetime as dt
import os
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol

import duckdb
from pydantic_core import to_json

from generator.dataset.cells import leaf_types
from generator.dataset.issues import Issue
from generator.dataset.schema import TABLE_BY_NAME, Table

LINE = "_line"
"""The column of a staged table that holds the line of the file where each row starts."""


class Checked(Protocol):
    """What reading a table's file found beside its valid rows (``load.ParsedTable``)."""

    table: Table
    invalid: list[dict[str, str | None]]
    broken: bool


class Rows(Protocol):
    """A table's rows in Python (``load.ParsedTable``)."""

    table: Table
    rows: list[dict[str, object]]


def duckdb_type(annotation: object) -> str:
    leaves = leaf_types(annotation) - {type(None)}
    (leaf,) = leaves
    if typing.get_origin(leaf) is list:
        return "VARCHAR[]"
    return {int: "BIGINT", float: "DOUBLE", bool: "BOOLEAN", dt.date: "DATE"}.get(leaf, "VARCHAR")  # type: ignore[call-overload]


def quoted(*names: str) -> str:
    """Column names as SQL identifiers, comma-separated (``provenance`` has a column named ``table``)."""
    return ", ".join(f'"{name}"' for name in names)


def _columns(table: Table) -> Iterator[tuple[str, str]]:
    for name, info in table.model.model_fields.items():
        yield name, duckdb_type(info.annotation)


def create_table(con: duckdb.DuckDBPyConnection, table: Table) -> list[str]:
    """Create one input table (empty) in DuckDB; its column names."""
    columns = list(_columns(table))
    con.execute(f"CREATE TABLE {table.name} ({', '.join(f'{quoted(c)} {t}' for c, t in columns)})")
    return [c for c, _ in columns]


def load_into(
    con: duckdb.DuckDBPyConnection, tables: Mapping[str, Rows], scratch: Callable[[str], str] | None = None
) -> None:
    """Create one DuckDB table per input table from the validated rows, in the order of the table's key (the
    order of its parquet export, which a rebuild may load it from instead: ``reload.py``).

    With ``scratch`` (a temporary file's path for a name), each table's rows go to DuckDB as one JSON file that
    pydantic writes and DuckDB reads (the same values: shortest round-trip floats, ISO dates, escaped text), in
    half the time of handing it Python lists, which is done without it."""
    for name, parsed in tables.items():
        column_names = create_table(con, parsed.table)
        if not parsed.rows:
            continue
        order = quoted(*parsed.table.key)
        if scratch is not None:
            path = scratch(f"rows-{name}.json")
            with open(path, "wb") as handle:
                handle.write(to_json(parsed.rows))
            types = ", ".join(f"'{c}': '{t}'" for c, t in _columns(parsed.table))
            try:
                con.execute(f"INSERT INTO {name} SELECT {quoted(*column_names)} FROM read_json($1, "
                            f"columns={{{types}}}, format='array') ORDER BY {order}", [path])
            finally:
                os.remove(path)
            continue
        data = [[row[c] for row in parsed.rows] for c in column_names]
        unnested = ", ".join(f"unnest(${i + 1}) AS {quoted(c)}" for i, c in enumerate(column_names))
        con.execute(
            f"INSERT INTO {name} SELECT * FROM (SELECT {unnested}) ORDER BY {order}", data
        )


LOAD_ROWS = 245_760
"""Rows of a table loaded from parquet at a time (two of DuckDB's row groups), each slice compressed before the next
is read: a process loading the 300k tables peaks 90 MiB lower than a table at a time (news, 800,000 rows, is the
largest)."""


def load_parquet(con: duckdb.DuckDBPyConnection, files: dict[str, str]) -> None:
    """Create input tables from parquet files that hold them as ``load_into`` loads them (table name -> file; a
    table validated in a worker process, or an earlier build's parquet export of it)."""
    for name, path in files.items():
        create_table(con, TABLE_BY_NAME[name])
        (rows,) = con.execute("SELECT count(*) FROM read_parquet($1)", [path]).fetchone()  # type: ignore[misc]
        for start in range(0, rows, LOAD_ROWS):  # in the file's order, a slice at a time
            con.execute(f"INSERT INTO {name} SELECT * EXCLUDE (file_row_number) FROM read_parquet($1, "
                        f"file_row_number = true) WHERE file_row_number >= {start} "
                        f"AND file_row_number < {start + LOAD_ROWS}", [path])
            compress(con)


def compress(con: duckdb.DuckDBPyConnection) -> None:
    """Compress the tables loaded so far (``CHECKPOINT``: an in-memory database keeps a table as appended, about
    six times its compressed size, until then): each process of a build holds its copy of every table, at 300k
    companies 411 MiB as appended, 72 MiB compressed (``load_parquet`` does it after each slice of a table, so that
    no more than ``LOAD_ROWS`` rows are held uncompressed)."""
    con.execute("CHECKPOINT")


def save_database(files: dict[str, str], path: str, config: dict[str, object]) -> None:
    """Write every input table, from its parquet file (``save_parquet``), into a new DuckDB database file at
    ``path``, in a connection of its own (``config``: its memory limit, its spill folder), for ``attach``."""
    with duckdb.connect(path, config=config) as con:
        con.execute("SET enable_progress_bar = false")
        load_parquet(con, files)


ATTACHED = "dataset"
"""The name a database that ``attach`` opens has in the connection."""


def attach(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Open the input tables of a database file (``save_database``) read-only, under their own names: several
    processes may open it at once, and a table's blocks are read into DuckDB's buffer pool when a query needs them
    and evicted from it under its memory limit, instead of each process holding its copy of every table."""
    quoted_path = path.replace("'", "''")
    con.execute(f"ATTACH '{quoted_path}' AS {ATTACHED} (READ_ONLY)")
    for table in TABLE_BY_NAME:
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM {ATTACHED}.{table}")


PARQUET_ROW_GROUP = 32_768
"""Rows per row group of every parquet file a build writes (the tables handed over, the exports): DuckDB's writer
holds a row group before writing it, and its default (122,880 rows) of the companies table at 300k companies did not
fit in 128 MB of DuckDB's memory. A table of fewer rows is one row group, as with the default."""
PARQUET = f"FORMAT parquet, ROW_GROUP_SIZE {PARQUET_ROW_GROUP}"
"""``COPY``'s options for a parquet file."""


def save_parquet(con: duckdb.DuckDBPyConnection, name: str, path: str) -> None:
    """Write one loaded table to a parquet file in its stored (key) order, for ``load_parquet``."""
    quoted = path.replace("'", "''")
    con.execute(f"COPY {name} TO '{quoted}' ({PARQUET})")


class Staging:
    """One input table being validated, in DuckDB: its valid rows, appended a block at a time with the line each
    starts on (``LINE``), until ``finish`` makes the table itself of them, in key order (as ``load_into``)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, table: Table, scratch: Callable[[str], str]) -> None:
        self.con, self.table, self.name = con, table, staged(table.name)
        self.rows_in = 0
        """Rows appended (a table of none or one needs no query to check)."""
        self.checked: Checked | None = None
        """What reading the table's file found beside its valid rows (``load.read_into``)."""
        self._path = scratch(f"rows-{table.name}.json")
        self._columns = [*_columns(table), (LINE, "BIGINT")]
        con.execute(f"CREATE OR REPLACE TABLE {self.name} "
                    f"({', '.join(f'{quoted(c)} {t}' for c, t in self._columns)})")

    def append(self, rows: list[dict[str, object]], lines: list[int]) -> None:
        """Append valid rows (their dicts get ``LINE``) through a JSON file, as ``load_into`` loads them."""
        for row, line in zip(rows, lines, strict=True):
            row[LINE] = line
        self.rows_in += len(rows)
        with open(self._path, "wb") as handle:
            handle.write(to_json(rows))
        types = ", ".join(f"'{c}': '{t}'" for c, t in self._columns)
        try:
            self.con.execute(f"INSERT INTO {self.name} SELECT {quoted(*(c for c, _ in self._columns))} FROM "
                             f"read_json($1, columns={{{types}}}, format='array')", [self._path])
        finally:
            os.remove(self._path)

    def clear(self) -> None:
        self.con.execute(f"DELETE FROM {self.name}")
        self.rows_in = 0

    def rows(self) -> Iterator[tuple[int, dict[str, object]]]:
        """The staged rows in the file's order: (line, the row's values by column)."""
        names = [c for c, _ in _columns(self.table)]
        cursor = self.con.execute(f"SELECT {LINE}, {quoted(*names)} FROM {self.name} ORDER BY {LINE}")
        while batch := cursor.fetchmany(10_000):
            for line, *values in batch:
                yield line, dict(zip(names, values, strict=True))

    def finish(self) -> None:
        """The table itself, in key order; the staged rows are dropped."""
        names = create_table(self.con, self.table)
        self.con.execute(f"INSERT INTO {self.table.name} {self._ordered(names)}")
        self.drop()

    def save_parquet(self, path: str) -> None:
        """Write the table to a parquet file as ``finish`` and ``save_parquet`` would, without making it."""
        quoted_path = path.replace("'", "''")
        self.con.execute(f"COPY ({self._ordered([c for c, _ in _columns(self.table)])}) TO '{quoted_path}' "
                         f"({PARQUET})")

    def _ordered(self, names: list[str]) -> str:
        return f"SELECT {quoted(*names)} FROM {self.name} ORDER BY {quoted(*self.table.key)}"

    def drop(self) -> None:
        self.con.execute(f"DROP TABLE IF EXISTS {self.name}")


def duplicates(con: duckdb.DuckDBPyConnection, staged: str, columns: tuple[str, ...]) -> Iterator[tuple]:
    """The rows of a staged table whose ``columns`` (none null) hold the values of a row on an earlier line, by
    line: (line, the value or the tuple of values, the first line that holds it)."""
    names, where = quoted(*columns), " AND ".join(f"{quoted(c)} IS NOT NULL" for c in columns)
    on = " AND ".join(f"s.{quoted(c)} = d.{quoted(c)}" for c in columns)
    cursor = con.execute(
        f"WITH d AS (SELECT {names}, min({LINE}) AS first FROM {staged} WHERE {where} GROUP BY ALL "
        f"HAVING count(*) > 1) SELECT s.{LINE}, {', '.join(f's.{quoted(c)}' for c in columns)}, d.first "
        f"FROM {staged} s JOIN d ON {on} WHERE s.{LINE} > d.first ORDER BY s.{LINE}")
    while batch := cursor.fetchmany(10_000):
        for line, *values, first in batch:
            yield line, values[0] if len(values) == 1 else tuple(values), first


def missing(
    con: duckdb.DuckDBPyConnection, child: str, column: str, target: str, target_column: str,
    also: list[str], lines: bool = True,
) -> duckdb.DuckDBPyConnection:
    """A cursor over the values of ``child.column`` (not null) that are not values of ``target.target_column``
    nor ``also``, compared as Python's ``str`` shows them (a null as ``None``), with their lines (``LINE``) in
    order if ``lines``. ``child`` and ``target`` are relations: a table's name or ``read_parquet('...')``."""
    known = (f"SELECT coalesce(CAST({quoted(target_column)} AS VARCHAR), 'None') FROM {target} "
             f"UNION ALL SELECT unnest($1::VARCHAR[])")
    select = f"{LINE}, {quoted(column)}" if lines else quoted(column)
    return con.execute(
        f"SELECT {select} FROM {child} WHERE {quoted(column)} IS NOT NULL AND CAST({quoted(column)} AS VARCHAR) "
        f"NOT IN ({known}){f' ORDER BY {LINE}' if lines else ' LIMIT 1'}", [also])


def check_unique(staging: Staging, issues: list[Issue]) -> None:
    """The primary key and unique columns of one table hold no value twice."""
    table = staging.table
    for columns in (table.key, *((c,) for c in table.unique)) if staging.rows_in > 1 else ():
        for line, value, first in duplicates(staging.con, staging.name, columns):
            issues.append(Issue(
                table.file_name, line, ",".join(columns), f"duplicate value {value!r} (first on line {first})",
            ))


def check_references(con: duckdb.DuckDBPyConnection, staged: Mapping[str, Staging], issues: list[Issue]) -> None:
    """Every foreign key of a staged table points at an existing row: of the target's staged rows and invalid
    rows (their keys exist, so one bad row is reported once, not again by every row that points at it), or of
    its loaded table where it is not staged. References into a broken file are summarised."""
    for staging in staged.values():
        for fk in staging.table.foreign_keys if staging.rows_in else ():
            target = staged[fk.table].checked if fk.table in staged else None
            also = [str(row[fk.target]) for row in target.invalid] if target else []
            into = staged[fk.table].name if target else fk.table
            cursor = missing(con, staging.name, fk.column, into, fk.target, also)
            if target is not None and target.broken:
                _consequence(cursor, staging.table.file_name, fk.column, fk.table, issues)
                continue
            while batch := cursor.fetchmany(10_000):
                issues.extend(Issue(staging.table.file_name, line, fk.column,
                                    f"{value!r} does not exist in {fk.table}.csv column {fk.target}")
                              for line, value in batch)


def _consequence(cursor: duckdb.DuckDBPyConnection, file: str, column: str, target: str,
                 issues: list[Issue]) -> None:
    """One issue for every reference into a file that could not be read whole."""
    first, count = cursor.fetchmany(6), 0
    while batch := cursor.fetchmany(10_000):
        count += len(batch)
    if not first:
        return
    count += len(first)
    lines = ", ".join(str(line) for line, _ in first[:5]) + (", ..." if count > 5 else "")
    issues.append(Issue(
        file, first[0][0], column,
        f"{count} value(s) not found in {target}.csv (lines {lines}; first {first[0][1]!r}), "
        f"which has errors listed above: fix those first",
        rank=2,
    ))


def staged(name: str) -> str:
    """The name of a table's staged rows."""
    return f"_staged_{name}"
