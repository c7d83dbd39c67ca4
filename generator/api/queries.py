"""The SQL files in ``generator/sql`` and what every response's meta starts with."""

from __future__ import annotations

from pathlib import Path

from generator.dataset.history import WINDOW_DAYS
from generator.dataset.schema import DatasetInfo

SQL_DIR = Path(__file__).parent / "sql"


def read_sql(name: str) -> str:
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


def sql_params(sql: str, info: DatasetInfo) -> dict[str, object]:
    """The parameters a route's SQL names: ``$as_of`` (the dataset's as-of date), ``$window_days`` (the days of
    change events published, ``history.WINDOW_DAYS``)."""
    known = {"as_of": info.as_of, "window_days": WINDOW_DAYS}
    return {name: value for name, value in known.items() if f"${name}" in sql}


def base_meta(info: DatasetInfo) -> dict[str, object]:
    return {"as_of": info.as_of.isoformat(), "disclaimer": info.disclaimer}


def rows_digest(first: str = "hash(r)::HUGEINT", second: str = "hash(r, 1)") -> str:
    """SQL aggregate over rows: their count, and the sum and the xor of two 64-bit DuckDB hashes of each row
    (by default of each whole row ``r``; or columns holding hashes made before). It does not depend on the rows'
    order, so rows whose order matters carry their position as a column, or their content decides it. Six times
    faster than sha256 over the rows' text; the DuckDB version is part of the code fingerprint that every key
    depends on."""
    return (f"count(*)::VARCHAR || ':' || coalesce(sum({first}), 0)::VARCHAR || ':' "
            f"|| coalesce(bit_xor({second}), 0)::VARCHAR")


ROWS_DIGEST = rows_digest()
"""``rows_digest`` of whole rows ``r``."""

