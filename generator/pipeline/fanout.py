"""The render stage on several cores: a task is a unit of work (the exports, each listing route whole or one shard of
a detail route's resources: a contiguous range of its order, ``details.shard_range``), rendered by one worker process
(``render.render_task``).

Each worker opens the validated tables read-only in one DuckDB database file in the staging folder's scratch space
(``database.attach``), which the build process writes once from their parquet files (those the table-by-table
validation wrote, an earlier build's exports, or ones the build process writes), and writes its pages straight into
the staging folder, each through its own ``StagedFiles``; the build process meanwhile waits, then gathers what the
workers report. Every file belongs to exactly one task, so the output does not depend on the
number of workers. A task carries where it writes (``Place``) and the tables' database file, not data, and answers
with what it wrote (``RouteResult``): the same tasks run on Dask distributed (``engines.py``). A worker is killed
with the build process (``PR_SET_PDEATHSIG``), so a killed build leaves nothing writing behind it.

With ``workers=0`` the same code runs inline on the build's own connection and writer; with ``--engine threads`` the
tasks run on threads of the build process, each on its own database (``WorkerPool.render``).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait

import duckdb

from generator.api import queries
from generator.api.registry import DETAIL_ROUTES, LIST_ROUTES
from generator.dataset import database
from generator.dataset.schema import TABLES, DatasetInfo
from generator.output.manifest import Previous, read_previous
from generator.output.writer import OutputWriter
from generator.pipeline.connections import TASK_LIMITS, duckdb_config, spill_folder
from generator.pipeline.failures import TaskError
from generator.pipeline.render import Place, RouteResult, forget_limits, place_of, render_task
from generator.pipeline.work import Task, order, tasks

PR_SET_PDEATHSIG = 1


_manifests: dict[tuple[str | None, str | None], Previous | None] = {}
"""The previous manifest a process read (or inherited, forked), by (previous output, code): read once per process."""
_manifest_lock = threading.Lock()
_connections: dict[int, tuple[str, duckdb.DuckDBPyConnection]] = {}
"""Each thread's database and the tables' database file it opened (a Dask worker runs tasks in threads; a DuckDB
connection is not shared across them)."""
_running: set[int] = set()  # the threads running a task (``close_connections`` waits for them)
_idle = threading.Condition(_manifest_lock)


def _previous_manifest(place: Place) -> Previous | None:
    with _manifest_lock:
        key = (place.previous, place.code)
        if key not in _manifests:
            _manifests[key] = read_previous(place.previous, place.code)
        return _manifests[key]


def _init_worker(parent: int, gc_thresholds: tuple[int, int, int]) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the worker then finishes its route alone
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build died before the line above took effect
        os._exit(1)
    gc.set_threshold(*gc_thresholds)  # a forked worker has them already, a spawned one not


def _start_method() -> str:
    """``fork`` where it is safe and cheap: on Linux, from a process running no other thread (the CLI's; a build
    called from a threaded program spawns). A forked worker starts at once, with the modules and the previous
    manifest the build process has already loaded; a spawned one imports and reads them again (about a second of
    CPU each on the 10k dataset). The build process has opened no DuckDB database yet when the pool starts."""
    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"


def _warm(place: Place | None = None) -> None:
    """A first task: makes the pool start its processes at once (a spawned one then imports the modules and reads
    the previous manifest while the build validates)."""
    if place is not None:
        _previous_manifest(place)


def _database(tables: str, place: Place) -> duckdb.DuckDBPyConnection:
    """A worker's own database: the tables' database file opened read-only (``database.attach``), and the views;
    spilling into the staging folder's scratch space past its memory limit (``render.render_task`` sets it)."""
    con = duckdb.connect(":memory:", config=duckdb_config(spill_folder(place.staging), 1))
    con.execute("SET enable_progress_bar = false")
    database.attach(con, tables)
    con.execute(queries.read_sql("views"))
    return con


def run_task(task: Task, tables: str, info: DatasetInfo, place: Place) -> RouteResult:
    """Render one task (in any process that sees the staging folder) over the tables' database file ``tables``: its
    database is this thread's, made again when the file changes."""
    ident = threading.get_ident()
    with _manifest_lock:
        held = _connections.get(ident)
        _running.add(ident)
    try:
        if held is None or held[0] != tables:
            if held is not None:
                held[1].close()
            held = _connections[ident] = (tables, _database(tables, place))
        return render_task(held[1], task, info, place, _previous_manifest(place))
    finally:
        with _idle:
            _running.discard(ident)
            _idle.notify_all()


def close_connections() -> None:
    """Close this process's task databases (run by a Dask engine on each worker once the tasks are done: their
    spill folders are in the staging folder). After a failed task others may still run: their queries are
    interrupted, so that they fail at once, and waited for (none writes into the staging folder once it is moved)."""
    with _manifest_lock:
        held = list(_connections.values())
        _connections.clear()
    for _, con in held:
        con.interrupt()
        with contextlib.suppress(duckdb.Error):  # busy: its task fails and the connection closes when dropped
            con.close()
    with _idle:
        _idle.wait_for(lambda: not _running)


def start_pool(writer: OutputWriter, workers: int) -> ProcessPoolExecutor | None:
    """The worker processes for ``Listings``, started at once so that their start (interpreter, imports, the
    previous manifest) overlaps the build's validation; None for ``workers=0``. The caller shuts it down."""
    if workers <= 0:
        return None
    method = _start_method()
    place = place_of(writer)
    forget_limits()  # a forked worker starts with this process's
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context(method), initializer=_init_worker,
        initargs=(os.getpid(), gc.get_threshold()),
    )
    key = (place.previous, place.code)
    inherited = key in _manifests
    if method == "fork":  # a forked worker finds the manifest the build process read
        _manifests[key] = writer.previous_manifest
    try:
        for _ in range(workers):  # a forking pool starts every process at the first task
            pool.submit(_warm, None if method == "fork" else place)
    finally:
        if not inherited:
            _manifests.pop(key, None)
    return pool


class WorkerPool:
    """The workers of a build, for its whole life: its worker processes, started on entering (``start_pool``) and
    shut down on leaving, pending tasks cancelled; ``executor`` is None when the build runs without workers.

    The processes validate the tables (``tablewise.py``: pydantic's work holds the interpreter). The render stage
    (``render``) runs on them too, or, with ``threads``, on as many threads of the build process, each with its own
    DuckDB database (``run_task``), the processes stopped first: one interpreter instead of one per worker, and
    the build process renders instead of waiting (``build --engine threads``)."""

    local = True
    """The workers are this build's own processes (they validate the tables too: ``tablewise.py``)."""

    def __init__(self, writer: OutputWriter, workers: int, threads: bool = False) -> None:
        self._writer, self._workers, self.threads = writer, workers, threads
        self.executor: ProcessPoolExecutor | None = None
        self._renderer: ThreadPoolExecutor | None = None

    def __enter__(self) -> WorkerPool:
        self.executor = start_pool(self._writer, self._workers)
        return self

    def render(self) -> Executor | None:
        """The render stage's executor, once the tables are validated: the worker processes, or their threads."""
        if self.executor is None or not self.threads:
            return self.executor
        self.executor.shutdown(wait=True, cancel_futures=True)
        with _manifest_lock:  # the threads use the previous manifest the build process read
            _manifests[self._manifest_key()] = self._writer.previous_manifest
        self._renderer = ThreadPoolExecutor(self._workers, thread_name_prefix="render")
        return self._renderer

    def _manifest_key(self) -> tuple[str | None, str | None]:
        place = place_of(self._writer)
        return place.previous, place.code

    def close(self) -> None:
        """Stop the workers once their tasks are done (their memory goes back before the documents): the
        processes, the threads and their databases."""
        if self._renderer is not None:
            self._renderer.shutdown(wait=True, cancel_futures=True)
            close_connections()
            with _manifest_lock:
                _manifests.pop(self._manifest_key(), None)
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)

    def __exit__(self, failed: type[BaseException] | None, *_: object) -> None:
        if failed is not None and self._renderer is not None:  # the running tasks' queries interrupted, waited for
            self._renderer.shutdown(wait=False, cancel_futures=True)
            close_connections()
        if failed is not None and self.executor is not None:  # killed, not waited for (a task can run for minutes)
            processes = list((getattr(self.executor, "_processes", None) or {}).values())  # public in Python 3.14
            self.executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.kill()
                process.join()
        self.close()


def _failed(task: Task, error: BaseException) -> TaskError:
    out_of_memory = isinstance(error, duckdb.OutOfMemoryException)
    limit = (f"DuckDB's memory limit in each worker's database is {TASK_LIMITS[0]} while a task runs, "
             f"raised to {' and then '.join(TASK_LIMITS[1:])} for a task that runs out of it")
    return TaskError(task, error, limit if out_of_memory else "")


class Listings:
    """Renders every task (listing routes, detail routes' shards): started on entry, ``results()`` waits for all."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, info: DatasetInfo, writer: OutputWriter,
        pool: Executor | None, progress: Callable[[str], None] | None = None,
        parquet: dict[str, str] | None = None, todo: list[Task] | None = None,
        failed: Callable[[TaskError], None] = lambda _: None, sources: dict[str, str] | None = None,
    ) -> None:
        """``pool``: from ``start_pool`` (or any executor whose workers see the staging folder: ``engines.py``), or
        None to render in this process; ``parquet``: the tables of ``con`` already held in parquet files (table name
        -> file), which the workers load instead of new ones; ``todo``: the tasks (``tasks``); ``failed``: called
        with the first task's failure as soon as it happens (the build process may be writing the exports), once
        the tasks not started are cancelled; ``results()`` raises it; ``sources``: each table's source key (the
        export task's units)."""
        self._con, self._info, self._writer = con, info, writer
        forget_limits()  # before the workers fork, or in the process that renders
        self._parquet = dict(parquet or {})
        self._progress = progress
        self._started = time.perf_counter()
        self._lock = threading.Lock()
        self._done: list[RouteResult] = []
        self._place = place_of(writer, sources)
        self._tasks = todo if todo is not None else tasks(0)
        self._pool = pool
        self._futures: list[Future[RouteResult]] = []
        self._failed, self._failure = failed, None
        self.examples: dict[str, list[str]] = {}
        """Each detail route's example URLs, once ``results()`` returned."""
        self.tables: str | None = None
        """The tables' database file the workers open (``database.attach``), once entered with a pool."""

    def __enter__(self) -> Listings:
        if self._pool is not None:
            files = self._parquet
            for table in TABLES:  # a table validated by this process: handed over in a parquet file too
                if table.name not in files:
                    files[table.name] = self._writer.scratch(f"load-{table.name}.parquet")
                    database.save_parquet(self._con, table.name, files[table.name])
            tables = self.tables = self._writer.scratch("tables.duckdb")
            database.save_database(files, tables, duckdb_config(spill_folder(self._place.staging) + "-tables"))
            self._tasks = order(self._writer.previous_manifest, self._tasks)
            self._futures = [self._pool.submit(run_task, task, tables, self._info, self._place)
                             for task in self._tasks]
            for future in self._futures:  # reported as each finishes, while the build process does other stages
                future.add_done_callback(self._finished)
        return self

    def results(self) -> dict[str, RouteResult]:
        """Every listing route's result, by route name, in registry order; every task's files count into the
        writer's stats."""
        done: list[RouteResult] = []
        if self._pool is None:
            digests = self._writer.previous_manifest
            for task in self._tasks:
                try:
                    done.append(render_task(self._con, task, self._info, self._place, digests))
                except Exception as error:
                    raise _failed(task, error) from error
                self._report(done)
        else:  # the first failure is raised as soon as it happens, not after the tasks submitted before it
            wait(self._futures, return_when=FIRST_EXCEPTION)
            for future in self._futures:  # a failure ends the wait before its callback has run
                if future.done() and not future.cancelled() and future.exception() is not None:
                    self._fail(future)
            if self._failure is not None:
                raise self._failure from self._failure.cause
            done = [future.result() for future in self._futures]
        self.examples = {route.name: [] for route in DETAIL_ROUTES}
        for result in done:
            if result.examples:
                self.examples[result.name] = result.examples
            self._writer.merge(result.files)  # type: ignore[arg-type]
        by_name = {result.name: result for result in done}
        return {route.name: by_name[route.name] for route in LIST_ROUTES}

    def _finished(self, future: Future[RouteResult]) -> None:
        if not future.cancelled() and future.exception() is not None:
            self._fail(future)
        elif not future.cancelled():
            with self._lock:
                self._done.append(future.result())
                if self._failure is None:  # after a failure, the task that finished anyway is not news
                    self._report(self._done)

    def _fail(self, future: Future[RouteResult]) -> None:
        """The first failure only: the others follow from it (a broken pool) or from the cancelling."""
        with self._lock:
            if self._failure is not None:
                return
            self._failure = _failed(self._tasks[self._futures.index(future)], future.exception())  # type: ignore[arg-type]
        if isinstance(self._pool, (ProcessPoolExecutor, ThreadPoolExecutor)):  # Dask's are cancelled on leaving
            for other in self._futures:  # (``engines.DaskPool``): its futures cancel through the event loop that
                other.cancel()  # runs this callback
        self._failed(self._failure)

    def _report(self, done: list[RouteResult]) -> None:
        """One progress line per finished task: tasks and files done, elapsed time, and an estimate of the
        time left from the rate so far (tasks differ in size, so it is rough)."""
        if self._progress is None:
            return
        elapsed = time.perf_counter() - self._started
        total = len(self._tasks)
        left = elapsed / len(done) * (total - len(done))
        files = sum(r.stats.files for r in done)
        eta = f", about {left:.0f}s left" if len(done) < total else ""
        retried = f", at {done[-1].limit} of DuckDB's memory: it needed more" if done[-1].limit else ""
        self._progress(f"listings: {len(done)}/{total} parts ({done[-1].name}{retried}), {files:,} files, "
                       f"{elapsed:.0f}s{eta}")

    def __exit__(self, *exc: object) -> None:
        for future in self._futures:
            future.cancel()

