"""Validation and loading on a rebuild: a table whose file did not change is not read and checked again.

The previous build validated and loaded every table with the same code, and its output holds each loaded table
as its parquet export (``/api/export/parquet/<table>.parquet``, written from the loaded table in key order). A
table is loaded from that file instead of its CSV when

- its CSV file and the dataset's metadata (``dataset.json``) are byte for byte those the previous build read:
  the key of the unit ``source/<table>`` in its units file, which holds keys only for the same code;
- the parquet file is still the file the previous build's digest manifest lists (same size, not modified since).

Only the other tables are parsed and validated row by row. The checks within a table run on those; the checks
across tables (references) run against the loaded rows of the unchanged ones too. When anything fails, the whole
dataset is validated the usual way (``load.validate``), so a build with bad data reports exactly what a clean
build would, every file, line and column included.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb

from generator.api.registry import EXPORT_ROUTE
from generator.dataset import database, load
from generator.dataset.database import Staging
from generator.dataset.load import DataError, Issue
from generator.dataset.schema import TABLES, DatasetInfo
from generator.output.files import listed_file
from generator.output.manifest import Previous, unit_key

SOURCE_UNIT = "source/"
"""Prefix of the units that key each input table by its file (they have no files of their own)."""


def _bytes(path: Path) -> bytes:
    try:
        return b"file " + path.read_bytes()
    except OSError:
        return b"unreadable"


def source_keys(data_dir: Path) -> dict[str, str]:
    """Table name -> key of its unit ``source/<table>``: the table's file and the dataset's metadata, byte for
    byte."""
    about = _bytes(data_dir / load.DATASET_INFO_FILE)
    return {t.name: unit_key(about, _bytes(data_dir / t.file_name)) for t in TABLES}


def reusable(keys: dict[str, str], previous_dir: str | None, previous: Previous | None) -> dict[str, str]:
    """Table name -> the previous output's parquet export of it, for each table that need not be read again."""
    if previous_dir is None or previous is None or not previous.keys:
        return {}
    found = {}
    for table in TABLES:
        unit, path = SOURCE_UNIT + table.name, EXPORT_ROUTE.file_path("parquet", table.name).lstrip("/")
        listed = previous.files.get(path)
        if listed is None or previous.keys.get(unit) != keys[table.name]:
            continue
        full = os.path.join(previous_dir, path)
        if listed_file(full, listed[1], previous.listed_at) is True:
            found[table.name] = full
    return found


def validate_into(
    con: duckdb.DuckDBPyConnection, data_dir: Path, reuse: dict[str, str], scratch: Callable[[str], str] | None = None
) -> tuple[DatasetInfo, dict[str, str]]:
    """Validate ``data_dir`` and load it into ``con`` (an empty database), reading the tables of ``reuse`` (from
    ``reusable``) from their parquet files; raise ``DataError`` listing every problem. Returns the dataset's
    metadata and the parquet file each table was loaded from (none where every table was read afresh).
    ``scratch``: a temporary file's path for a name (the rows go to DuckDB through such files; None: a temporary
    folder's)."""
    with contextlib.ExitStack() as stack:
        if scratch is None:
            scratch = functools.partial(os.path.join, stack.enter_context(tempfile.TemporaryDirectory()))
        if reuse:
            info = _changed_only(con, data_dir, reuse, scratch)
            if info is not None:
                return info, dict(reuse)
            for table in TABLES:
                con.execute(f"DROP TABLE IF EXISTS {table.name}")
        return load.validate_into(con, data_dir, scratch), {}


def _changed_only(
    con: duckdb.DuckDBPyConnection, data_dir: Path, reuse: dict[str, str], scratch: Callable[[str], str]
) -> DatasetInfo | None:
    """Load the unchanged tables from parquet and validate the others; None where anything fails."""
    try:
        info = load.read_dataset_info(data_dir)
        database.load_parquet(con, reuse)
    except (DataError, duckdb.Error):
        return None
    issues: list[Issue] = []
    changed = [t for t in TABLES if t.name not in reuse]
    staged = load.check_tables(con, data_dir, changed, info.as_of, scratch, issues)  # references from them too
    if issues or not _references_hold(con, staged):
        for staging in staged.values():
            staging.drop()
        return None
    for staging in staged.values():
        staging.finish()
    return info


def _references_hold(con: duckdb.DuckDBPyConnection, staged: dict[str, Staging]) -> bool:
    """Every reference from an unchanged table into a validated one points at an existing row (references between
    two unchanged tables held in the previous build; those from validated tables are checked with them)."""
    for table in TABLES:
        for fk in table.foreign_keys:
            if table.name in staged or fk.table not in staged:
                continue
            if database.missing(con, table.name, fk.column, staged[fk.table].name, fk.target, [], lines=False
                                ).fetchone() is not None:
                return False  # reported with its lines by the full validation
    return True
