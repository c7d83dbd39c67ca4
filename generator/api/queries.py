"""The SQL files in ``generator/sql`` and what every response's meta starts with."""

from __future__ import annotations

from pathlib import Path

import duckdb

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


BATCH_PARAMETERS = ("_first", "_last")
"""The parameters of a stage run once per batch of a detail route's resources (``details._source``): the batch's
first and last key in the route's order."""


def staged(con: duckdb.DuckDBPyConnection, name: str, info: DatasetInfo, extra: dict[str, object] | None = None,
           ) -> tuple[str, dict[str, object]]:
    """A query file's last statement (the rows) and its parameters (``sql_params``, and those of ``extra`` it names),
    after running the statements before it: they stage parts of the work into temporary tables, where a single
    plan would hold every join's and window's buffers at once (more memory than its parts one by one)."""
    batched, last = staged_by_batch(con, name, info, extra)
    if batched:
        raise ValueError(f"{name}.sql stages parts per batch ({', '.join(BATCH_PARAMETERS)}): read it by batch")
    return last


def staged_by_batch(
    con: duckdb.DuckDBPyConnection, name: str, info: DatasetInfo, extra: dict[str, object] | None = None,
) -> tuple[list[tuple[str, dict[str, object]]], tuple[str, dict[str, object]]]:
    """``staged``, but the stages that name ``BATCH_PARAMETERS`` are not run: they are returned, in order, each with
    its parameters but those, to run before the rows of each batch."""
    text = read_sql(name)
    *stages, last = con.extract_statements(text)
    known = {**sql_params(text, info), **(extra or {})}
    batched = []
    for stage in stages:
        values = {k: v for k, v in known.items() if k in stage.named_parameters}
        if any(p in stage.named_parameters for p in BATCH_PARAMETERS):
            batched.append((stage.query, values))
        else:
            con.execute(stage.query, values)
    return batched, (last.query, {k: v for k, v in known.items() if k in last.named_parameters})


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

