"""The listing stage on several cores: each listing route, and each detail route's profiles, is rendered whole by
one worker process.

Each worker loads the validated tables into a DuckDB database of its own, from parquet files in the staging
folder's scratch space (those the table-by-table validation wrote, an earlier build's exports, or ones the build
process writes), and writes its pages straight into the staging folder, each through its own ``StagedFiles``; the build
process meanwhile writes the other stages and then gathers what the workers report. Every file belongs to
exactly one route, so the output does not depend on the number of workers. A worker is killed with the
build process (``PR_SET_PDEATHSIG``), so a killed build leaves nothing writing behind it.

With ``workers=0`` the same code runs inline on the build's own connection and writer.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

import duckdb

from generator.api import details, listing, queries
from generator.api.registry import DETAIL_ROUTES, LIST_ROUTES, ListRoute
from generator.api.routes import DetailRoute
from generator.dataset import database
from generator.dataset.schema import TABLES, DatasetInfo
from generator.output.manifest import Previous, manifest_lines, read_previous, unit_key
from generator.output.staged import LISTING_UNIT, StagedFiles, WriteStats
from generator.output.writer import OutputWriter

PR_SET_PDEATHSIG = 1


@dataclass
class RouteResult:
    name: str
    domains: dict[str, list[str]] = field(default_factory=dict)
    """Allowed values of each filter: the ones that have files."""
    files: StagedFiles | None = None
    """What the route wrote (or carried over from the previous output), without the previous manifest."""
    examples: list[str] = field(default_factory=list)
    """The example URLs of a detail route (by each key of its first resource)."""

    @property
    def stats(self) -> WriteStats:
        return self.files.stats if self.files is not None else WriteStats()


def render_route(
    con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo, staging: str, previous: str | None,
    previous_manifest: Previous | None = None, recycled: bool = False,
) -> RouteResult:
    """Write every page of one route into the staging folder through its own ``StagedFiles``, or carry the
    route's files over from the previous output when its rows and the dataset's metadata are those it was
    rendered from (the unit ``listing:<route>``)."""
    files = StagedFiles(staging, previous, previous_manifest, recycled)
    result = RouteResult(route.name, files=files)
    unit = LISTING_UNIT + route.name
    key = unit_key(info.model_dump_json(), listing.materialize(con, route, info))
    if files.render(unit, key):
        reuse = functools.partial(files.reuse, unit)
        for page in listing.render(con, route, info, result.domains, reuse):
            files.write(page.path, page.body, unit, page.inputs)
    else:
        result.domains = listing.domains_of(route, files.carried(unit))
    files.detach()
    return result


def render_details(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo, staging: str, previous: str | None,
    previous_manifest: Previous | None = None, recycled: bool = False,
) -> RouteResult:
    """Write every resource of a detail route (``details.detail_files``) through its own ``StagedFiles``."""
    files = StagedFiles(staging, previous, previous_manifest, recycled)
    result = RouteResult(route.name, files=files, examples=details.detail_files(con, route, info, files))
    files.detach()
    return result


TASKS = [route.name for route in LIST_ROUTES] + [route.name for route in DETAIL_ROUTES]
"""The worker tasks: a listing route or a detail route each (their names differ)."""


def _order(previous: Previous | None) -> list[str]:
    """The tasks, largest first, so that the last one to finish is a small one: by the files each made last
    time, else by what makes the most files: the profiles (one or more per company), a filter with a value per
    company, a word or prefix filter, then filters times sorts."""
    if previous is not None and previous.by_unit:
        counts: Counter[str] = Counter()
        for unit, paths in previous.by_unit.items():
            if not unit.startswith("export/"):  # a listing route's unit, or a profile's (``<route>/<key>``)
                name = unit.removeprefix(LISTING_UNIT) if unit.startswith(LISTING_UNIT) else unit.split("/")[0]
                counts[name] += len(paths)
        return sorted(TASKS, key=lambda name: (-counts[name], TASKS.index(name)))

    def weight(route: ListRoute) -> tuple[int, int]:
        text = any(not f.kind.faceted for f in route.filters)  # words: a file per word or prefix
        per_company = any(f.name == "company" for f in route.filters)
        return (-2 * per_company - text, -len(route.sort_values) * len(route.filters))

    return [*(route.name for route in DETAIL_ROUTES), *(route.name for route in sorted(LIST_ROUTES, key=weight))]


_worker: dict[str, object] = {}
INHERITED = "inherited manifest"
"""Where a forked worker finds the previous manifest the build process had already read."""


def _init_worker(
    parent: int, staging: str, previous: str | None, code: str | None, recycled: bool, forked: bool,
    gc_thresholds: tuple[int, int, int],
) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the worker then finishes its route alone
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build died before the line above took effect
        os._exit(1)
    gc.set_threshold(*gc_thresholds)  # a forked worker has them already, a spawned one not
    digests = _worker.pop(INHERITED, None) if forked else read_previous(previous, code)
    _worker.update(staging=staging, previous=previous, digests=digests, recycled=recycled)


def _start_method() -> str:
    """``fork`` where it is safe and cheap: on Linux, from a process running no other thread (the CLI's; a build
    called from a threaded program spawns). A forked worker starts at once, with the modules and the previous
    manifest the build process has already loaded; a spawned one imports and reads them again (about a second of
    CPU each on the 10k dataset). The build process has opened no DuckDB database yet when the pool starts."""
    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"


def _warm() -> None:
    """A first task: makes the pool start its processes at once (a spawned one then imports the modules and reads
    the previous manifest while the build validates)."""


def _database(tables: tuple[tuple[str, str], ...]) -> duckdb.DuckDBPyConnection:
    """A worker's own database: every table from its parquet file (table name, file), and the views."""
    con = duckdb.connect(":memory:", config={"threads": 1})
    con.execute("SET enable_progress_bar = false")
    database.load_parquet(con, dict(tables))
    con.execute(queries.read_sql("views"))
    return con


def _render_in_worker(name: str, tables: tuple[tuple[str, str], ...], info: DatasetInfo) -> RouteResult:
    if _worker.get("tables") != tables:
        _worker.update(con=_database(tables), tables=tables)
    con, staging, previous, digests, recycled = (
        _worker[k] for k in ("con", "staging", "previous", "digests", "recycled"))
    for detail in DETAIL_ROUTES:
        if detail.name == name:
            return render_details(con, detail, info, staging, previous, digests, recycled)  # type: ignore[arg-type]
    route = next(r for r in LIST_ROUTES if r.name == name)
    return render_route(con, route, info, staging, previous, digests, recycled)  # type: ignore[arg-type]


def start_pool(writer: OutputWriter, workers: int) -> ProcessPoolExecutor | None:
    """The worker processes for ``Listings``, started at once so that their start (interpreter, imports, the
    previous manifest) overlaps the build's validation; None for ``workers=0``. The caller shuts it down."""
    if workers <= 0:
        return None
    previous = str(writer.previous) if writer.previous is not None else None
    method = _start_method()
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context(method), initializer=_init_worker,
        initargs=(os.getpid(), str(writer.staging), previous, writer.code, writer.recycled, method == "fork",
                  gc.get_threshold()),
    )
    if method == "fork":
        _worker[INHERITED] = writer.previous_manifest
    try:
        for _ in range(workers):  # a forking pool starts every process at the first task
            pool.submit(_warm)
    finally:
        _worker.pop(INHERITED, None)
    return pool


class WorkerPool:
    """The worker processes of a build, for its whole life: started on entering (``start_pool``), shut down on
    leaving, pending tasks cancelled; ``executor`` is None when the build runs without workers."""

    def __init__(self, writer: OutputWriter, workers: int) -> None:
        self._writer, self._workers = writer, workers
        self.executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> WorkerPool:
        self.executor = start_pool(self._writer, self._workers)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)


class Listings:
    """Renders every listing route and the profiles: started on entry, ``results()`` waits for all of them."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, info: DatasetInfo, writer: OutputWriter,
        pool: ProcessPoolExecutor | None, progress: Callable[[str], None] | None = None,
        parquet: dict[str, str] | None = None,
    ) -> None:
        """``pool``: from ``start_pool``, or None to render in this process; ``parquet``: the tables of ``con``
        already held in parquet files (table name -> file), which the workers load instead of new ones."""
        self._con, self._info, self._writer = con, info, writer
        self._parquet = dict(parquet or {})
        self._progress = progress
        self._started = time.perf_counter()
        self._lock = threading.Lock()
        self._done: list[RouteResult] = []
        self._manifest_lines: dict[str, list[str]] = {}
        self._staging = str(writer.staging)
        self._previous = str(writer.previous) if writer.previous is not None else None
        self._pool = pool
        self._futures: list[Future[RouteResult]] = []
        self.examples: dict[str, list[str]] = {}
        """Each detail route's example URLs, once ``results()`` returned."""

    def __enter__(self) -> Listings:
        if self._pool is not None:
            files = self._parquet
            for table in TABLES:  # a table validated by this process: handed over in a parquet file too
                if table.name not in files:
                    files[table.name] = self._writer.scratch(f"load-{table.name}.parquet")
                    database.save_parquet(self._con, table.name, files[table.name])
            tables = tuple(sorted(files.items()))
            names = _order(self._writer.previous_manifest)
            self._futures = [self._pool.submit(_render_in_worker, name, tables, self._info) for name in names]
            for future in self._futures:  # reported as each finishes, while the build process does other stages
                future.add_done_callback(self._finished)
        return self

    def results(self) -> dict[str, RouteResult]:
        """Every route's result, by route name, in registry order; their files count into the writer's stats."""
        done: list[RouteResult] = []
        if self._pool is None:
            digests = self._writer.previous_manifest
            for route in LIST_ROUTES:
                done.append(render_route(self._con, route, self._info, self._staging, self._previous, digests,
                                         self._writer.recycled))
                self._report(done)
            for detail in DETAIL_ROUTES:
                done.append(render_details(self._con, detail, self._info, self._staging, self._previous, digests,
                                           self._writer.recycled))
                self._report(done)
        else:
            done = [future.result() for future in self._futures]
        by_name = {result.name: result for result in done}
        self.examples = {route.name: by_name[route.name].examples for route in DETAIL_ROUTES}
        for result in done:
            self._writer.merge(result.files, self._lines(result))  # type: ignore[arg-type]
        return {route.name: by_name[route.name] for route in LIST_ROUTES}

    def _finished(self, future: Future[RouteResult]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        with self._lock:
            self._done.append(future.result())
            self._report(self._done)
        self._lines(future.result())  # while the build process waits for the other routes

    def _lines(self, result: RouteResult) -> list[str]:
        """A route's digest manifest lines, made once: as it arrives, or when ``results`` merges it."""
        with self._lock:
            lines = self._manifest_lines.get(result.name)
            if lines is None:
                files = result.files
                assert files is not None
                lines = self._manifest_lines[result.name] = manifest_lines(
                    files.digests, files.file_units, files.file_inputs)
        return lines

    def _report(self, done: list[RouteResult]) -> None:
        """One progress line per finished route: routes and files done, elapsed time, and an estimate of the
        time left from the rate so far (routes differ in size, so it is rough)."""
        if self._progress is None:
            return
        elapsed = time.perf_counter() - self._started
        total = len(TASKS)
        left = elapsed / len(done) * (total - len(done))
        files = sum(r.stats.files for r in done)
        eta = f", about {left:.0f}s left" if len(done) < total else ""
        self._progress(f"listings: {len(done)}/{total} parts ({done[-1].name}), {files:,} files, "
                       f"{elapsed:.0f}s{eta}")

    def __exit__(self, *exc: object) -> None:
        for future in self._futures:
            future.cancel()


def default_workers(companies: int) -> int:
    """Worker processes for a dataset: none below 1,000 companies (starting them costs more than it saves)."""
    cores = os.cpu_count() or 1
    return 0 if companies < 1000 or cores < 2 else min(cores, 4)
