"""Validation and loading split by table across the worker processes (a clean build of a large dataset).

The worker processes are started before validation (``fanout.start_pool``) and would otherwise wait for it. Here
each input table is read, validated and checked on its own (``check_table``, in a worker): its rows one by one,
its unique columns, slugs and dates, exactly as ``load.validate`` does. A table without problems is loaded into
the worker's own DuckDB database in key order and handed over as a parquet file, which the build process and
the workers rendering the listings then load in one statement each; the references across tables are checked in
the build process from the key values and foreign-key cells each worker reports.

Only a dataset without a single problem takes this path. Anything else (a problem in any table or reference,
unreadable metadata) makes the build validate the whole dataset the usual way (``load.validate``), so a bad file
gets exactly the report a serial validation gives: every file, line and column, root causes first.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from generator.dataset import database, load
from generator.dataset.load import DataError, Issue
from generator.dataset.schema import TABLE_BY_NAME, TABLES, DatasetInfo, Table
from generator.pipeline import fanout


@dataclass
class TableCheck:
    """What a worker reports of one table: its problems, the values other tables' references point at, its own
    references, and the parquet file it was loaded into (None when it had problems)."""

    name: str
    clean: bool
    keys: dict[str, set[str]] = field(default_factory=dict)
    """Column -> its values as text, for each column a foreign key points at."""
    references: dict[str, set[str]] = field(default_factory=dict)
    """Foreign-key column -> its values (not empty) as text."""
    parquet: str | None = None


def _targets(table: Table) -> list[str]:
    return sorted({fk.target for t in TABLES for fk in t.foreign_keys if fk.table == table.name})


_DATABASE: list[duckdb.DuckDBPyConnection] = []


def _database(spill: str) -> duckdb.DuckDBPyConnection:
    """This process's database to load tables into, one at a time: opening a DuckDB database costs 35 ms of CPU,
    a table 1 ms. It spills into ``spill`` past ``fanout.MEMORY_LIMIT`` (the folder of its first build)."""
    if not _DATABASE:
        _DATABASE.append(duckdb.connect(":memory:", config=fanout.duckdb_config(spill, 1)))
    return _DATABASE[0]


def check_table(data_dir: str, name: str, as_of: dt.date, parquet: str) -> TableCheck:
    """Read, validate and check one table; if it has no problem, load it and write it to ``parquet``."""
    table = TABLE_BY_NAME[name]
    issues: list[Issue] = []
    parsed = load.read_table(Path(data_dir), table, as_of, issues)
    if issues or parsed.broken:
        return TableCheck(name, clean=False)
    check = TableCheck(name, clean=True, keys={column: load.key_values(parsed, column) for column in _targets(table)})
    for fk in table.foreign_keys:
        check.references[fk.column] = {str(row[fk.column]) for row in parsed.rows if row[fk.column] is not None}
    con = _database(os.path.join(os.path.dirname(parquet), f"spill-{os.getpid()}-check"))
    try:
        database.load_into(con, {name: parsed}, functools.partial(os.path.join, os.path.dirname(parquet)))
        database.save_parquet(con, name, parquet)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {name}")
    check.parquet = parquet
    return check


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def validate(
    data_dir: Path, pool: Executor, scratch: Callable[[str], str]
) -> tuple[DatasetInfo, dict[str, str]] | None:
    """Validate and load every table in the pool's processes (largest file first); return the dataset's metadata
    and the parquet file of each table (in the scratch space: ``database.load_parquet`` loads them). None, with no
    file left, where any problem was found."""
    try:
        info = load.read_dataset_info(data_dir)
    except DataError:
        return None
    order = sorted(TABLES, key=lambda t: -_file_size(data_dir / t.file_name))
    futures = {
        t.name: pool.submit(check_table, str(data_dir), t.name, info.as_of, scratch(f"load-{t.name}.parquet"))
        for t in order
    }
    checks = {name: future.result() for name, future in futures.items()}
    files = {t.name: checks[t.name].parquet for t in TABLES}
    if all(check.clean for check in checks.values()) and _references_hold(checks):
        return info, files  # type: ignore[return-value]
    for path in files.values():
        if path is not None:
            os.remove(path)
    return None


def _references_hold(checks: dict[str, TableCheck]) -> bool:
    for table in TABLES:
        for fk in table.foreign_keys:
            if not checks[table.name].references[fk.column] <= checks[fk.table].keys[fk.target]:
                return False
    return True
