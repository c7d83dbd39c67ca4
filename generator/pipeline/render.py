"""What a render task does, wherever it runs (``fanout``'s worker processes or threads, inline, a Dask worker): a task
(``work.Task``) carries where it writes and what it compares with (``Place``); it writes the exports, one listing
route whole or one shard of a detail route's resources through its own ``StagedFiles`` and answers with what it wrote
(``RouteResult``)."""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field

import duckdb

from generator.api import details, exports, listing
from generator.api.combinations import Domains, unpack
from generator.api.registry import DETAIL_ROUTES, EXPORT_ROUTE, LIST_ROUTES, ListRoute
from generator.api.routes import DetailRoute
from generator.dataset.schema import DatasetInfo
from generator.output.manifest import Previous, unit_key
from generator.output.staged import LISTING_UNIT, StagedFiles, WriteStats
from generator.output.writer import OutputWriter
from generator.pipeline.connections import TASK_LIMITS, at_limits
from generator.pipeline.work import Task


@dataclass
class RouteResult:
    name: str
    domains: Domains = field(default_factory=dict)
    """Each filter's allowed values: the ones that have files (packed: ``combinations.Domains``)."""
    files: StagedFiles | None = None
    """What the route wrote (or carried over from the previous output), without the previous manifest."""
    examples: list[str] = field(default_factory=list)
    """The example URLs of a detail route (by each key of its first resource), from its shard 0."""
    limit: str = ""
    """DuckDB's memory limit the task was rendered at when an earlier try ran out of memory (else empty)."""

    @property
    def stats(self) -> WriteStats:
        return self.files.stats if self.files is not None else WriteStats()

    def values(self) -> dict[str, list[str]]:
        """Each filter's allowed values (unpacked)."""
        return {name: unpack(packed) for name, packed in self.domains.items()}


def render_route(
    con: duckdb.DuckDBPyConnection, route: ListRoute, info: DatasetInfo, files: StagedFiles,
) -> RouteResult:
    """Write every page of one route into the staging folder through ``files``, or carry the route's files over from
    the previous output when its rows and the dataset's metadata are those it was rendered from (the unit
    ``listing:<route>``)."""
    result = RouteResult(route.name, files=files)
    unit = LISTING_UNIT + route.name
    key = unit_key(info.model_dump_json(), listing.materialize(con, route, info))
    if files.render(unit, key):
        reuse = functools.partial(files.reuse, unit)
        for page in listing.render(con, route, info, result.domains, reuse):
            files.write(page.path, page.body, unit, page.inputs)
    else:
        result.domains = listing.domains_of(route, files.carried(unit))
    return result


def render_details(
    con: duckdb.DuckDBPyConnection, route: DetailRoute, info: DatasetInfo, files: StagedFiles,
    shard: tuple[int, int] = (0, 1),
) -> RouteResult:
    """Write the resources of one shard of a detail route (``details.detail_files``) through ``files``."""
    return RouteResult(route.name, files=files, examples=details.detail_files(con, route, info, files, shard))


@dataclass(frozen=True)
class Place:
    """Where a task writes and what it compares with: the staging folder, the previous output (its folder, the code
    its units must have been made by) and whether the staging folder is a recycled output. A task carries it, so
    any process that sees the staging folder runs any task (a worker of the local pool, a Dask worker)."""

    staging: str
    previous: str | None
    code: str | None
    recycled: bool
    sources: dict[str, str] = field(default_factory=dict)
    """Each table's source key (``reload.source_keys``): the exports' units are keyed by them."""


def render_exports(con: duckdb.DuckDBPyConnection, info: DatasetInfo, place: Place, files: StagedFiles) -> RouteResult:
    """Write the exports (``exports.write_exports``: every table in every format, the archives, the manifest)
    through ``files``, their temporary files in the staging folder's scratch space."""
    exports.write_exports(con, info, files.scratch, files, place.sources)
    return RouteResult(EXPORT_ROUTE.name, files=files)


_needed: dict[str, str] = {}
"""The limit each route's last task in this process was rendered at: its next shard starts there (cleared as a
build's render stage starts in the build's own processes: ``forget_limits``; a Dask worker keeps it from build to
build, which costs memory, not bytes)."""


def forget_limits() -> None:
    """Start every route's tasks at ``TASK_LIMITS[0]`` again (a new build: its data may need less)."""
    _needed.clear()


def render_task(
    con: duckdb.DuckDBPyConnection, task: Task, info: DatasetInfo, place: Place, digests: Previous | None,
) -> RouteResult:
    """Render one task on ``con`` (a database that may run one task after the other) at DuckDB's memory limit
    ``TASK_LIMITS[0]`` (or the one its route's earlier shard in this process needed); a try that runs out of it is
    undone (its files removed, ``StagedFiles.discard``) and the task rendered again at the next limit, the last try's
    error raised. After each try the temporary tables it made are dropped (the next starts with DuckDB's memory free
    of them); the connection's own limit is set back after."""
    def attempt() -> RouteResult:
        files = StagedFiles(place.staging, place.previous, digests, place.recycled)
        try:
            result = _render_once(con, task, info, place, files)
        except duckdb.OutOfMemoryException:
            files.discard()
            raise
        files.detach()
        return result

    first = TASK_LIMITS.index(_needed.get(task[0], TASK_LIMITS[0]))
    result, limit = at_limits(con, TASK_LIMITS[first:], attempt)
    result.limit = limit if limit != TASK_LIMITS[0] else ""
    _needed[task[0]] = limit
    return result


def _render_once(
    con: duckdb.DuckDBPyConnection, task: Task, info: DatasetInfo, place: Place, files: StagedFiles,
) -> RouteResult:
    name, number, count = task
    before = _temporary_tables(con)
    try:
        if name == EXPORT_ROUTE.name:
            return render_exports(con, info, place, files)
        for detail in DETAIL_ROUTES:
            if detail.name == name:
                return render_details(con, detail, info, files, (number, count))
        route = next(r for r in LIST_ROUTES if r.name == name)
        return render_route(con, route, info, files)
    finally:
        with contextlib.suppress(duckdb.Error):  # interrupted (a failed build): the connection is being closed
            for table in _temporary_tables(con) - before:
                con.execute(f'DROP TABLE IF EXISTS temp."{table}"')


def _temporary_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {table for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()}


def place_of(writer: OutputWriter, sources: dict[str, str] | None = None) -> Place:
    return Place(str(writer.staging), str(writer.previous) if writer.previous is not None else None, writer.code,
                 writer.recycled, dict(sources or {}))
