"""The validated dataset in DuckDB: one table per input table, with column types from the models, loaded from the
rows ``load.validate`` read (``load_into``) or from parquet files that hold them (``load_parquet``)."""

from __future__ import annotations

import datetime as dt
import os
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
from pydantic_core import to_json

from generator.dataset.cells import leaf_types
from generator.dataset.load import ParsedTable, validate
from generator.dataset.schema import TABLE_BY_NAME, DatasetInfo, Table


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
    con: duckdb.DuckDBPyConnection, tables: dict[str, ParsedTable], scratch: Callable[[str], str] | None = None
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


def load_parquet(con: duckdb.DuckDBPyConnection, files: dict[str, str]) -> None:
    """Create input tables from parquet files that hold them as ``load_into`` loads them (table name -> file; a
    table validated in a worker process, or an earlier build's parquet export of it)."""
    for name, path in files.items():
        create_table(con, TABLE_BY_NAME[name])
        con.execute(f"INSERT INTO {name} SELECT * FROM read_parquet($1)", [path])


def save_parquet(con: duckdb.DuckDBPyConnection, name: str, path: str) -> None:
    """Write one loaded table to a parquet file in its stored (key) order, for ``load_parquet``."""
    quoted = path.replace("'", "''")
    con.execute(f"COPY {name} TO '{quoted}' (FORMAT parquet)")


def load(data_dir: Path, con: duckdb.DuckDBPyConnection) -> DatasetInfo:
    """Validate ``data_dir`` and load it into ``con``; raise ``DataError`` if anything is wrong."""
    info, tables = validate(data_dir)
    load_into(con, tables)
    return info
