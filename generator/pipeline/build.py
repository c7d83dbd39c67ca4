"""The build: dataset in, static API out. ``build()`` reads as the list of its stages."""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import jinja2
import pydantic

from generator.api import openapi, problems, queries
from generator.api.registry import DETAIL_ROUTES, DOCUMENT_ROUTES, EXPORT_ROUTE, LIST_ROUTES, example_urls
from generator.dataset import database, load, serialize
from generator.dataset.load import DATASET_INFO_FILE
from generator.dataset.schema import TABLES, DatasetInfo
from generator.events import publish
from generator.frontdoor.space import QUERY_SPACE_FILE, query_space
from generator.hosts import charts, configs, landing, templates
from generator.hosts.templates import TEMPLATE_DIR
from generator.output import recycle
from generator.output.staged import BOOKKEEPING
from generator.output.writer import Changes, OutputError, OutputLock, OutputWriter, real_output, recover
from generator.pipeline import connections, engines, failures, fanout, reload, tablewise, work
from generator.pipeline.reload import validate_into

OUTPUT_MARKER = ".company-ipo-api"
"""File that marks a folder as this generator's output; any other non-empty folder is never replaced."""
HEADERS_FILE = "/_headers"
"""Response headers for hosts that read a _headers file (the same rules as netlify.toml's [[headers]])."""


@dataclass(frozen=True)
class BuildConfig:
    data_dir: Path
    out_dir: Path
    threads: int | None = None
    force: bool = False
    """Rebuild even when the previous output was made from the same data by the same code."""
    workers: int | None = None
    """Processes rendering the listings beside the build process; 0: none; None: by dataset size and cores."""
    engine: str = "local"
    """Where the render stage's tasks run: ``local`` (``workers`` processes), ``threads`` (``workers`` threads of the
    build process) or ``dask`` (``engines.DaskPool``)."""
    scheduler: str | None = None
    """The Dask scheduler's address (``tcp://host:8786``), for ``engine="dask"``."""
    site_url: str | None = None
    """The site's absolute base URL (``https://api.example.com``): the feeds' links are absolute; None: site paths."""


@functools.cache
def code_fingerprint() -> str:
    """sha256 over the generator's code, SQL and templates and the versions of the libraries that shape bytes."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.sql"), *TEMPLATE_DIR.rglob("*")]):
        if path.is_file():
            digest.update(path.relative_to(package.parent).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    versions = (f"python {sys.version_info[:3]} duckdb {duckdb.__version__} pydantic {pydantic.VERSION} "
                f"jinja2 {jinja2.__version__}")
    digest.update(versions.encode())
    return digest.hexdigest()


def fingerprint(data_dir: Path) -> str:
    """sha256 over everything the output depends on: the data files and the code (``code_fingerprint``). The
    build is deterministic, so an equal fingerprint means an equal output."""
    digest = hashlib.sha256(code_fingerprint().encode())
    for path in [data_dir / t.file_name for t in TABLES] + [data_dir / DATASET_INFO_FILE]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _previous_marker(out: Path) -> dict:
    try:
        marker = json.loads((out / OUTPUT_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return marker if isinstance(marker, dict) else {}


def _count_files(root: Path) -> int:
    return sum(kind != "d" for kind, _ in recycle.walk(str(root)))


def _vouches_for(out: Path, marker: dict, inputs: str) -> bool:
    """Whether the marker is for these inputs and the tree still holds every file it counted."""
    if marker.get("fingerprint") != inputs or not isinstance(marker.get("files"), int):
        return False
    try:
        return _count_files(out) == marker["files"]
    except OSError:
        return False


@dataclass
class BuildReport:
    files: int = 0
    bytes: int = 0
    written: int = 0
    stages: dict[str, float] = field(default_factory=dict)
    files_by_endpoint: Counter[str] = field(default_factory=Counter)
    files_by_kind: Counter[str] = field(default_factory=Counter)
    """Files by what they are: listing pages, details, exports, documents (OpenAPI, landing page, problems), and
    the generator's bookkeeping (the output marker and digest manifest: dotfiles that deploys leave out)."""
    bytes_by_kind: Counter[str] = field(default_factory=Counter)
    bytes_by_endpoint: Counter[str] = field(default_factory=Counter)
    changes: Changes | None = None
    """Files added, changed and removed against the previous output; None when the build was skipped."""

    @property
    def seconds(self) -> float:
        return sum(self.stages.values())

    @property
    def published(self) -> tuple[int, int]:
        """Files and bytes a host serves: the output without the generator's bookkeeping."""
        return self.files - self.files_by_kind[BOOKKEEPING], self.bytes - self.bytes_by_kind[BOOKKEEPING]


Progress = Callable[[str], None]


def _count_by_kind(report: BuildReport, writer: OutputWriter) -> None:
    """Files and bytes of the output by endpoint and by kind, as the writer and its workers counted them."""
    for (kind, endpoint), (files, size) in writer.stats.groups.items():
        report.files_by_kind[kind] += files
        report.bytes_by_kind[kind] += size
        report.files_by_endpoint[endpoint] += files
        report.bytes_by_endpoint[endpoint] += size


def _check_output_folder(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / OUTPUT_MARKER).exists())):
        raise OutputError(
            f"{out} exists and is not an output of this generator (no {OUTPUT_MARKER} file); "
            "refusing to replace it. Choose an empty or new folder."
        )


Failed = Callable[[Exception], None]


def build(config: BuildConfig, progress: Progress = lambda _: None, failed: Failed = lambda _: None) -> BuildReport:
    """Validate the dataset, then write the whole API into ``config.out_dir`` atomically.

    One build at a time per output (a second one fails at once with ``OutputError``); an operating-system error
    (a full disk, a permission) becomes an ``OutputError`` of one line that says what became of the previous output
    (intact, or that there was none); a render task that fails, a ``failures.TaskError`` naming the task and its cause.
    ``failed`` is called once with the exception the build raises as soon as it fails: before the build stops its
    workers and clears its staging folder, which ``progress`` then reports.
    """
    report = failures.Once(failed)
    try:
        _preflight(config.data_dir)  # before anything is created: a missing dataset leaves no folder and no lock
        out = real_output(config.out_dir)
        _check_output_folder(out)  # before the lock file: a refused folder gets nothing beside it
        committed: list[bool] = []
        try:
            with OutputLock(out), fewer_collections():
                recover(out)
                return _build(config, out, progress, committed, report)
        except OSError as error:
            raise OutputError(failures.os_error_message(error, out, not committed, OUTPUT_MARKER)) from None
    except Exception as error:
        report(error)
        raise


def _preflight(data_dir: Path) -> None:
    """What can be checked without reading the tables: ``dataset.json`` and every table's file. The rows are
    checked under the output's lock (the worker processes hand each checked table over in the staging folder), so
    a dataset with bad rows leaves the output's parent folder and its empty lock file, never a partial output."""
    load.read_dataset_info(data_dir)
    issues = [load.Issue(t.file_name, 0, "", "file is missing", rank=0)  # other unreadable files: load says why
              for t in TABLES if not t.optional and not (data_dir / t.file_name).exists()]
    if issues:
        raise load.DataError(issues)


GC_THRESHOLDS = (100_000, 20, 100)
"""Garbage collection during a build (and in its worker processes): the build makes millions of short-lived,
acyclic objects, and Python's default (a collection every 700 allocations) spends 4-7 % of a build's CPU
collecting nothing."""


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """``GC_THRESHOLDS`` while the block runs; the caller's thresholds after it."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _companies_in(config: BuildConfig) -> int:
    """The number of companies, roughly (lines of companies.csv), to choose the worker count before validating."""
    try:
        with open(config.data_dir / "companies.csv", "rb") as handle:
            return max(handle.read().count(b"\n") - 1, 0)
    except OSError:
        return 0


class StageClock:
    """Seconds per stage into ``report.stages``: ``done(name)`` closes the stage that ran since the last call."""

    def __init__(self, report: BuildReport) -> None:
        self._report, self._clock = report, time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self._report.stages[name] = self._report.stages.get(name, 0.0) + now - self._clock
        self._clock = now


def _build(
    config: BuildConfig, out: Path, progress: Progress, committed: list[bool], report_failure: Failed,
) -> BuildReport:
    report = BuildReport()
    stage = StageClock(report)
    _check_output_folder(out)
    inputs = fingerprint(config.data_dir) + (f" {config.site_url}" if config.site_url else "")
    previous = _previous_marker(out)
    if not config.force and _vouches_for(out, previous, inputs):
        progress("unchanged: same data and code as the existing output (use --force to rebuild)")
        report.files, report.bytes = previous["files"], previous["bytes"]
        stage.done("unchanged")
        return report
    # First: the recycled staging folder is listed in another process while the build runs.
    writer = OutputWriter(out, code_fingerprint())
    companies = _companies_in(config)
    workers = config.workers if config.workers is not None else work.default_workers(companies)
    committing = False
    try:
        # The worker processes start now, so that their start-up overlaps the validation. A failure is reported
        # first (``failures.reported``), then the workers stop and the staging folder goes.
        with (_pool(config, writer, workers) as pool, _database(config, writer) as con,
              failures.reported(report_failure, out, OUTPUT_MARKER) as task_failed):
            writer.list_recycled()  # after the pool's fork: a thread waits for the listing
            info, parquet, sources, checked = _validate(config, con, pool, writer, progress)
            stage.done("validate")  # everything is checked before the first byte is written
            writer.ready({route.path for route in (*LIST_ROUTES, *DETAIL_ROUTES, EXPORT_ROUTE)})
            todo = work.tasks(companies)
            renderer = pool.render()
            with fanout.Listings(con, info, writer, renderer, progress, parquet, todo, task_failed,
                                 sources) as listings:
                if checked:  # this process's tables: the workers' database file, read-only too
                    database.attach(con, listings.tables)  # type: ignore[arg-type]
                con.execute(queries.read_sql("views"))
                stage.done("load")
                if renderer is not None:  # the workers (or threads) render the exports, listings and profiles;
                    where = "threads" if pool.threads else "worker processes"  # meanwhile this process prepares
                    progress(f"exports, listings and profiles: {len(todo)} tasks on "
                             + (f"{workers} {where}" if pool.local else f"Dask at {config.scheduler}"))
                    openapi.prepare(info)  # and what the documents and the commit need, while waiting
                    templates.load(landing.TEMPLATE)
                    writer.read_listing()
                progress("listings" + (": waiting for the workers" if renderer is not None else ""))
                results = listings.results()
                pool.close()
                stage.done("listings")
            progress("docs: openapi, landing page, errors")
            domains = {name: result.values() for name, result in results.items()}
            _write_documents(writer, info, domains, listings.examples, charts.figures(con, info))
            publish.write_events(con, info, writer, config.site_url)  # events.jsonl, feeds (generator.events)
            snapshot = json.loads(writer.read(EXPORT_ROUTE.index_path()))["data"]["snapshot"]
            writer.write(HEADERS_FILE, configs.headers_file(snapshot["id"]).encode())
            writer.write(QUERY_SPACE_FILE, serialize.document(query_space(con, info, domains, snapshot)))
            _write_bookkeeping(writer, info, inputs)  # last: they count and digest every other file
            _count_by_kind(report, writer)
            report.changes = writer.changes()
            stage.done("docs")
        progress("commit: swapping the new output in")
        committing = True
        writer.commit()
        committed.append(True)
        stage.done("commit")
    except BaseException:  # after the pool's shutdown: no worker writes into the staging folder once it is dropped
        if committing:
            writer.abort()
        else:
            writer.discard(progress)
        raise
    report.files, report.bytes, report.written = writer.stats.files, writer.stats.bytes, writer.stats.written
    return report


def _pool(config: BuildConfig, writer: OutputWriter, workers: int) -> fanout.WorkerPool | engines.DaskPool:
    """The render stage's workers: this machine's processes (or their threads), or a Dask scheduler's workers
    (``engines.py``)."""
    if config.engine in ("local", "threads"):
        return fanout.WorkerPool(writer, workers, threads=config.engine == "threads")
    if config.engine != "dask" or not config.scheduler:
        raise OutputError(f"unknown engine {config.engine!r} or no scheduler; engines: {', '.join(engines.ENGINES)}"
                          " (dask needs --scheduler ADDRESS)")
    return engines.DaskPool(config.scheduler)


@contextlib.contextmanager
def _database(config: BuildConfig, writer: OutputWriter) -> Iterator[duckdb.DuckDBPyConnection]:
    spill = connections.spill_folder(str(writer.staging))
    con = duckdb.connect(":memory:", config=connections.duckdb_config(spill, config.threads))
    try:
        con.execute("SET enable_progress_bar = false")  # the build reports its own progress
        yield con
    finally:
        con.close()


def _validate(
    config: BuildConfig, con: duckdb.DuckDBPyConnection, pool: fanout.WorkerPool | engines.DaskPool,
    writer: OutputWriter,
    progress: Progress,
) -> tuple[DatasetInfo, dict[str, str], dict[str, str], bool]:
    """Check every table: in the worker processes, table by table, when every table is read afresh; else (and for
    any problem, to report it whole) in this process, reusing the previous build's parquet of unchanged tables.
    Returns the dataset's metadata, the tables' parquet files, their source keys and whether the workers
    checked them (then this process has still to load them)."""
    sources = reload.source_keys(config.data_dir)
    reuse = reload.reusable(sources, writer.old_folder, writer.previous_manifest)
    progress(f"validate: reading and checking the dataset ({len(reuse)} unchanged tables from the last build)")
    checked = None
    if pool.executor is not None and pool.local and not reuse:  # Dask's workers may not see the data folder
        checked = tablewise.validate(config.data_dir, pool.executor, writer.scratch)
    info, parquet = checked or validate_into(con, config.data_dir, reuse, writer.scratch)
    writer.unit_keys.update((reload.SOURCE_UNIT + name, key) for name, key in sources.items())
    return info, parquet, sources, checked is not None


def _write_documents(
    writer: OutputWriter, info: DatasetInfo, domains: dict[str, dict[str, list[str]]],
    detail_urls: dict[str, list[str]], figures: charts.Figures,
) -> None:
    """The OpenAPI document (its parameters list the values that have files), the landing page with examples
    from the registry and charts of the data and the problem documents."""
    writer.write(DOCUMENT_ROUTES[0].file, serialize.document(openapi.document(info, domains)))
    writer.write("/index.html", landing.landing_page(info, example_urls(domains, detail_urls), figures))
    for path, body in problems.problem_files():
        writer.write(path, body)


def _write_bookkeeping(writer: OutputWriter, info: DatasetInfo, inputs: str) -> None:
    """The unit keys, the marker (whose file count includes itself and the digest manifest) and the digest
    manifest of every file."""
    writer.write_units()
    writer.write(OUTPUT_MARKER, serialize.document({
        "generator": "company-ipo-api", "as_of": info.as_of, "fingerprint": inputs,
        "files": writer.stats.files + 2, "bytes": writer.stats.bytes,
    }))
    writer.write_digests()
