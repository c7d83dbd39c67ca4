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

import os
from collections.abc import Callable
from pathlib import Path

import duckdb

from generator.api.registry import EXPORT_ROUTE
from generator.dataset import database, load
from generator.dataset.load import DataError, Issue, ParsedTable
from generator.dataset.schema import TABLES, DatasetInfo
from generator.output.manifest import Previous, unit_key
from generator.output.staged import listed_file

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
    ``scratch``: see ``database.load_into``."""
    if reuse:
        info = _changed_only(con, data_dir, reuse, scratch)
        if info is not None:
            return info, dict(reuse)
        for table in TABLES:
            con.execute(f"DROP TABLE IF EXISTS {table.name}")
    info, tables = load.validate(data_dir)
    database.load_into(con, tables, scratch)
    return info, {}


def _changed_only(
    con: duckdb.DuckDBPyConnection, data_dir: Path, reuse: dict[str, str], scratch: Callable[[str], str] | None
) -> DatasetInfo | None:
    """Load the unchanged tables from parquet and validate the others; None where anything fails."""
    try:
        info = load.read_dataset_info(data_dir)
        database.load_parquet(con, reuse)
    except (DataError, duckdb.Error):
        return None
    issues: list[Issue] = []
    parsed = {t.name: load.read_table(data_dir, t, info.as_of, issues) for t in TABLES if t.name not in reuse}
    if issues or not _references_hold(con, parsed, issues):
        return None
    database.load_into(con, parsed, scratch)
    return info


def _references_hold(con: duckdb.DuckDBPyConnection, parsed: dict[str, ParsedTable], issues: list[Issue]) -> bool:
    """Every reference from or into a validated table points at an existing row (references between two
    unchanged tables held in the previous build)."""
    for table in TABLES:
        for fk in table.foreign_keys:
            if table.name not in parsed and fk.table not in parsed:
                continue
            if fk.table in parsed:
                known = load.key_values(parsed[fk.table], fk.target)
            else:
                known = {str(v) for (v,) in con.execute(f"SELECT DISTINCT {fk.target} FROM {fk.table}").fetchall()}
            if table.name in parsed:
                load.check_references(parsed[table.name], fk, known, False, issues)
                continue
            values = con.execute(f"SELECT DISTINCT {fk.column} FROM {table.name} WHERE {fk.column} IS NOT NULL")
            if any(str(v) not in known for (v,) in values.fetchall()):
                return False  # reported with its lines by the full validation
    return not issues
