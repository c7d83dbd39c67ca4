"""The SQL files in ``generator/sql`` and what every response's meta starts with."""

from __future__ import annotations

from pathlib import Path

import duckdb

from generator.schema import DatasetInfo

SQL_DIR = Path(__file__).parent / "sql"


def read_sql(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


def sql_params(sql: str, info: DatasetInfo) -> dict[str, object]:
    return {"as_of": info.as_of} if "$as_of" in sql else {}


def base_meta(info: DatasetInfo) -> dict[str, object]:
    return {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer}


def content_digest(con: duckdb.DuckDBPyConnection, relation: str, order: str) -> str:
    """sha256 of every row of a table or view (every column, as DuckDB prints it), in ``order``."""
    found = con.execute(
        f"SELECT sha256(coalesce(string_agg(CAST(r AS VARCHAR), chr(10) ORDER BY {order}), '')) FROM {relation} r"
    ).fetchone()
    return str(found[0]) if found else ""
