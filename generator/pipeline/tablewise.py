"""Validation and loading split by table across the worker processes (a clean build of a large dataset).

The worker processes are started before validation (``fanout.start_pool``) and would otherwise wait for it. Here
each input table is read, validated and checked on its own (``check_table``, in a worker): its rows a block at a
time into the worker's own DuckDB database, its unique columns, slugs and dates, exactly as ``load.validate_into``
does. A table without problems is put in key order and handed over as a parquet file, which the build process and
the workers rendering the listings then load in one statement each; the references across tables are checked in
the build process by DuckDB, over the parquet files (``_references_hold``).

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
from dataclasses import dataclass
from pathlib import Path

import duckdb

from generator.dataset import database, load
from generator.dataset.database import Staging
from generator.dataset.load import DataError, Issue
from generator.dataset.schema import TABLE_BY_NAME, TABLES, DatasetInfo
from generator.pipeline import connections
from generator.pipeline.failures import CheckError


@dataclass
class TableCheck:
    """What a worker reports of one table: whether it has no problem, and then the parquet file it was loaded
    into."""

    name: str
    clean: bool
    parquet: str | None = None


_DATABASE: list[duckdb.DuckDBPyConnection] = []


def _database(spill: str) -> duckdb.DuckDBPyConnection:
    """This process's database to load tables into, one at a time: opening a DuckDB database costs 35 ms of CPU,
    a table 1 ms. It spills into ``spill`` past the memory limit (the folder of its first build)."""
    if not _DATABASE:
        _DATABASE.append(duckdb.connect(":memory:", config=connections.duckdb_config(spill, 1)))
    return _DATABASE[0]


def check_table(data_dir: str, name: str, as_of: dt.date, parquet: str) -> TableCheck:
    """Read, validate and check one table a block of rows at a time; if it has no problem, load it and write it
    to ``parquet``. A try that runs out of DuckDB's memory is done again at the next of ``connections.CHECK_LIMITS``
    (its staged rows dropped first)."""
    folder = os.path.dirname(parquet)
    con = _database(os.path.join(folder, f"spill-{os.getpid()}-check"))

    def attempt() -> TableCheck:
        staging = Staging(con, TABLE_BY_NAME[name], functools.partial(os.path.join, folder))
        issues: list[Issue] = []
        try:
            state = load.read_into(staging, Path(data_dir), as_of, issues)
            if issues or state.broken:
                return TableCheck(name, clean=False)
            staging.save_parquet(parquet)
        finally:
            staging.drop()
        return TableCheck(name, clean=True, parquet=parquet)

    return connections.at_limits(con, connections.CHECK_LIMITS, attempt)[0]


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
    checks = {}
    for table in order:  # a failure of a check (not a problem of the data) names the table
        try:
            checks[table.name] = futures[table.name].result()
        except Exception as error:
            note = (f"DuckDB's memory limit while a worker checks a table is {connections.CHECK_LIMITS[0]}; this one "
                    f"was tried again at {' and '.join(connections.CHECK_LIMITS[1:])}"
                    if isinstance(error, duckdb.OutOfMemoryException) else "")
            raise CheckError(table.name, table.file_name, error, note) from error
    files = {t.name: checks[t.name].parquet for t in TABLES}
    if all(check.clean for check in checks.values()) and _references_hold(files, scratch("spill-references")):
        return info, files  # type: ignore[return-value]
    for path in files.values():
        if path is not None:
            os.remove(path)
    return None


def _references_hold(files: dict[str, str | None], spill: str) -> bool:
    """Every foreign key of every table's parquet file points at a row of its target's (in a DuckDB database of
    its own, which reads only the columns concerned)."""
    con = duckdb.connect(":memory:", config=connections.duckdb_config(spill))
    try:
        for table in TABLES:
            for fk in table.foreign_keys:
                child, target = (_parquet(str(files[name])) for name in (table.name, fk.table))
                if database.missing(con, child, fk.column, target, fk.target, [], lines=False).fetchone():
                    return False
    finally:
        con.close()
    return True


def _parquet(path: str) -> str:
    return "read_parquet('{}')".format(path.replace("'", "''"))
