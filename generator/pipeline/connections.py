"""The settings of every DuckDB connection of a build: its memory limit, how soon it gives memory back, where it
spills."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import duckdb

from generator.output.staged import SCRATCH_DIR

MEMORY_LIMIT = "128MB"
"""DuckDB's memory limit of each database of a build (the build process's, each worker's or render thread's, each Dask
task thread's): past it, temporary tables and the operators that can spill do so into a folder of the staging folder's
scratch space (``duckdb_config``). Its buffer pool also caches the input tables' blocks, read from their database file
(``database.attach``) and evicted under the limit. A listing route's rows are made in a table, then numbered over
the key alone (``listing.materialize``) and ranked over the sorts' columns alone (``listing.rank``), its combinations
counted a group of filters at a time, listed and ordered by operators that spill (``generator.api.combinations``),
its scattered pages found a step at a time (``generator.api.scattered``); a profile shard's rows are made
``details.BATCH`` at a time, their parts staged per batch (``details._source``), and serialized ``details.SERIALIZED``
at a time; rows are sorted before DuckDB writes them as JSON (``serialize.duckdb_rows``); a query whose single plan
would hold many joins' and windows' buffers at once stages its parts in tables first (``queries.staged``). At 300k
companies every task runs at 64 MB (one process each; a whole build too: BENCHMARKS.md), but a 100k build failed
there (a company-profile shard's batch of 5,000 with more rounds than the 300k data's): a render task starts at
``TASK_LIMITS[0]`` and is tried again at the next limits when it runs out (``render.render_task``); the build process
and the validation keep this one. The limit was 512 MB, then 256 MB, before these."""

CHECK_LIMITS = (MEMORY_LIMIT, "256MB", "512MB")
"""DuckDB's memory limit while a worker checks a table (``tablewise.check_table``), then for each new try of one that
ran out of it (its staged rows dropped, the table read again): a larger dataset's table gets the memory it needs."""

TASK_LIMITS = ("64MB", "128MB", "256MB")
"""DuckDB's memory limit while a render task runs, then for each new try of a task that ran out of it: its files of
the failed try removed, it is rendered again from the start at the next limit (``render.render_task``); past the
last, the build fails naming the task. What a task needs grows with its data (at 64 MB every task fit the 300k data
but one company-profile shard of the 100k data did not): the retry gives any dataset that margin, and spends it
only on the task that needs it."""


ALLOCATOR = {"allocator_flush_threshold": "16MB", "allocator_bulk_deallocation_flush_threshold": "16MB"}
"""DuckDB gives the memory a task freed back to the system once the task has held more than this (its default:
128 MB and 512 MB), so that what a process keeps after loading the tables or a large query is what it uses: after
loading the 300k tables a process kept 296 MiB with the defaults, 222 MiB with these."""


def duckdb_config(spill: str | None, threads: int | None = None) -> dict[str, object]:
    """A connection's settings: ``MEMORY_LIMIT``, spilling into ``spill`` (a folder of its own: DuckDB names its
    files alike in every process), ``threads`` if given."""
    config: dict[str, object] = {"memory_limit": MEMORY_LIMIT, **ALLOCATOR}
    if spill is not None:
        config["temp_directory"] = spill
    if threads:
        config["threads"] = threads
    return config


def spill_folder(staging: str) -> str:
    """This process's and thread's spill folder in the staging folder's scratch space (removed before the swap)."""
    return os.path.join(staging, SCRATCH_DIR, f"spill-{os.getpid()}-{threading.get_ident()}")


T = TypeVar("T")


def at_limits(con: duckdb.DuckDBPyConnection, limits: Sequence[str], attempt: Callable[[], T]) -> tuple[T, str]:
    """``attempt()`` with ``con``'s memory limit at each of ``limits`` in turn until a try does not run out of
    DuckDB's memory (a try that does undoes what it did, then lets the error through); the last try's error is
    raised, and ``con``'s own limit set back either way. Returns the result and the limit it was made at."""
    (setting,) = con.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
    try:
        for tried, limit in enumerate(limits, 1):
            con.execute(f"SET memory_limit = '{limit}'")
            try:
                return attempt(), limit
            except duckdb.OutOfMemoryException:
                if tried == len(limits):
                    raise
        raise ValueError("no memory limit to try")
    finally:
        with contextlib.suppress(duckdb.Error):  # interrupted (a failed build): the connection is being closed
            con.execute(f"SET memory_limit = '{setting}'")
