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


ROWS_DIGEST = (
    "count(*)::VARCHAR || ':' || coalesce(sum(hash(r)::HUGEINT), 0)::VARCHAR || ':' "
    "|| coalesce(bit_xor(hash(r, 1)), 0)::VARCHAR"
)
"""SQL aggregate over rows ``r``: their count, and the sum and the xor of two 64-bit DuckDB hashes of each whole
row. It does not depend on the rows' order, so rows whose order matters carry their position as a column
(``listing.materialize``: ``_idx``), or their content decides it. Six times faster than sha256 over the rows'
text; the DuckDB version is part of the code fingerprint that every key depends on."""


def content_digest(con: duckdb.DuckDBPyConnection, relation: str) -> str:
    """A digest of every row of a table or view (every column): ``ROWS_DIGEST``."""
    found = con.execute(f"SELECT {ROWS_DIGEST} FROM {relation} r").fetchone()
    return str(found[0]) if found else ""
