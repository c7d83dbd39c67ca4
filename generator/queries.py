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


def content_digest(con: duckdb.DuckDBPyConnection, relation: str) -> str:
    """A digest of every row of a table or view (every column): the row count, and the sum and the xor of two
    64-bit DuckDB hashes of each whole row. It does not depend on the rows' order, so a relation whose order
    matters carries each row's position as a column (``listing.materialize``: ``_idx``). Six times faster than
    sha256 over the rows' text; the DuckDB version is part of the code fingerprint that every key depends on."""
    found = con.execute(
        f"SELECT count(*), coalesce(sum(hash(r)::HUGEINT), 0), coalesce(bit_xor(hash(r, 1)), 0) FROM {relation} r"
    ).fetchone()
    return ":".join(str(value) for value in found) if found else ""
