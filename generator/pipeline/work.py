"""The render stage's tasks: which there are (``tasks``), the order they start in (``order``) and how many worker
processes run them (``default_workers``); a failed one is named by ``failures.TaskError``."""

from __future__ import annotations

import os
from collections import Counter

from generator.api.registry import DETAIL_ROUTES, EXPORT_ROUTE, LIST_ROUTES, ListRoute
from generator.output.manifest import Previous
from generator.output.staged import LISTING_UNIT

Task = tuple[str, int, int]
"""A unit of work: a route's name (listing and detail routes' names differ), the shard's number and the number of
shards (a listing route is one shard)."""
SHARD_RESOURCES = 20_000
"""Resources per shard of a detail route, about (the company profiles at 10k companies: one shard)."""


def tasks(companies: int) -> list[Task]:
    """Every task of a build: the exports (every table in every format, and the archives), each listing route whole,
    each detail route in shards by the number of companies (the largest detail route has one resource per company).
    The output does not depend on the sharding."""
    shards = max(1, -(-companies // SHARD_RESOURCES))
    return [(EXPORT_ROUTE.name, 0, 1)] + [(route.name, 0, 1) for route in LIST_ROUTES] + [
        (route.name, number, shards) for route in DETAIL_ROUTES for number in range(shards)]


def order(previous: Previous | None, todo: list[Task]) -> list[Task]:
    """The tasks, largest first, so that the last one to finish is a small one: the exports (few files, the most
    bytes: their time grows with every table), then by the files each made last time, else by what makes the most
    files: the profiles (one or more per company), a filter with a value per company, a word or prefix filter, then
    filters times sorts."""
    exporting = [task for task in todo if task[0] == EXPORT_ROUTE.name]
    todo = [task for task in todo if task[0] != EXPORT_ROUTE.name]
    if previous is not None and previous.by_unit:
        counts: Counter[str] = Counter()
        for unit, paths in previous.by_unit.items():
            if not unit.startswith("export/"):  # a listing route's unit, or a profile's (``<route>/<key>``)
                name = unit.removeprefix(LISTING_UNIT) if unit.startswith(LISTING_UNIT) else unit.split("/")[0]
                counts[name] += len(paths)
        return exporting + sorted(todo, key=lambda task: (-counts[task[0]] // task[2], todo.index(task)))

    def weight(route: ListRoute) -> tuple[int, int]:
        text = any(not f.kind.faceted for f in route.filters)  # words: a file per word or prefix
        per_company = any(f.name == "company" for f in route.filters)
        return (-2 * per_company - text, -len(route.sort_values) * len(route.filters))

    first = [task for route in DETAIL_ROUTES for task in todo if task[0] == route.name]
    return exporting + first + [task for route in sorted(LIST_ROUTES, key=weight) for task in todo
                                if task[0] == route.name]


def default_workers(companies: int) -> int:
    """Worker processes for a dataset: none below 1,000 companies (starting them costs more than it saves)."""
    cores = os.cpu_count() or 1
    return 0 if companies < 1000 or cores < 2 else min(cores, 4)
