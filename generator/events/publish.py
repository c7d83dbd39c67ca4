"""The change events as the build publishes them beside the ``/api/changes`` listing:

- ``/api/changes/events.jsonl``: every event of the window, oldest first (date, then id), one per line, each the same
  bytes as its row in the listing: what ``webhooks deliver`` reads, and what a nightly job diffs;
- ``/api/feeds/changes.atom`` and ``changes.json``: the newest ``SITE_FEED_ITEMS`` events as Atom and JSON Feed;
- ``/api/feeds/companies/<slug>.atom`` and ``.json``: one company's events of the window, for each company that has
  some (its events' listing: ``/api/changes/company=<slug>/``).

The feeds have a folder of their own: a listing's folder holds its pages only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Protocol

import duckdb

from generator.api.queries import staged
from generator.api.responses import ChangeEvent
from generator.dataset import serialize
from generator.dataset.schema import DatasetInfo
from generator.events import feeds

EVENTS_FILE = "/api/changes/events.jsonl"
SITE_FEED_ITEMS = 100
"""Events in the site-wide feeds (the newest): a feed reader polls often; the listing and events.jsonl hold all."""
NEWEST = "date DESC, id DESC"
"""The feeds' order: newest first (the reverse of the listing's and events.jsonl's)."""
BATCH_ROWS = 5_000
"""Events serialized and held at a time."""


class Pieces(Protocol):
    """A file written a piece at a time (``generator.output.streams.StreamedFile``)."""

    def write(self, data: bytes) -> None: ...


class Files(Protocol):
    """Where the events go (``OutputWriter``): files as bytes (``write``) or a piece at a time (``create``)."""

    def write(self, path: str, data: bytes) -> None: ...

    def create(self, path: str) -> AbstractContextManager[Pieces]: ...


def write_events(con: duckdb.DuckDBPyConnection, info: DatasetInfo, files: Files, site_url: str | None = None) -> None:
    """``events.jsonl``, the site-wide feeds and each company's feeds; with ``site_url`` (the site's absolute base
    URL) the feeds' links are absolute, else site paths. The events are a table in DuckDB (spilling), read
    ``BATCH_ROWS`` at a time in each file's order: the process holds a batch and one company's events, whatever
    the number of events."""
    sql, params = staged(con, "changes", info)  # the file stages the window's events first
    con.execute(f"CREATE OR REPLACE TEMP TABLE published_events AS {sql}", params)
    try:
        with files.create(EVENTS_FILE) as lines:  # oldest first, as the listing writes its rows
            for rows in _batches(con, "date, id"):
                lines.write(serialize.json_lines(rows))
        newest = [json.loads(row) for row in next(_batches(con, NEWEST, SITE_FEED_ITEMS), [])]
        as_of = info.as_of.isoformat()
        site = feeds.site_feed(as_of, site_url)
        files.write(site.atom_path, feeds.atom(newest, site))
        files.write(site.json_path, feeds.json_feed(newest, site))
        for slug, events in _by_company(con):
            feed = feeds.company_feed(slug, events[0]["company"]["name"], as_of, site_url)
            files.write(feed.atom_path, feeds.atom(events, feed))
            files.write(feed.json_path, feeds.json_feed(events, feed))
    finally:
        con.execute("DROP TABLE published_events")


def _batches(con: duckdb.DuckDBPyConnection, order: str, rows: int | None = None) -> Iterator[list[bytes]]:
    """The events' rows in ``order``, serialized as the listing writes them, ``rows`` (``BATCH_ROWS``) at a time."""
    return serialize.table_row_batches(con, ChangeEvent, "published_events", order, rows or BATCH_ROWS)


def _by_company(con: duckdb.DuckDBPyConnection) -> Iterator[tuple[str, list[dict]]]:
    """(slug, its events newest first) for each company that has events, by slug; a removed company's events (no
    ``url``) are in the site-wide feed only."""
    slug, events = "", []
    for rows in _batches(con, f"struct_extract(company, 'slug'), {NEWEST}"):
        for event in map(json.loads, rows):
            company = event.get("company")
            if not (company and company.get("url")):
                continue
            if events and company["slug"] != slug:
                yield slug, events
                events = []
            slug = company["slug"]
            events.append(event)
    if events:
        yield slug, events
