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
from collections import defaultdict
from collections.abc import Iterator

import duckdb

from generator.api.queries import read_sql, sql_params
from generator.api.responses import ChangeEvent
from generator.dataset import serialize
from generator.dataset.schema import DatasetInfo
from generator.events import feeds

EVENTS_FILE = "/api/changes/events.jsonl"
SITE_FEED_ITEMS = 100
"""Events in the site-wide feeds (the newest): a feed reader polls often; the listing and events.jsonl hold all."""


def event_rows(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> list[bytes]:
    """Every event of the window, oldest first (date, then id), as the listing writes its rows."""
    sql = read_sql("changes")
    con.execute(f"CREATE OR REPLACE TEMP TABLE published_events AS {sql}", sql_params(sql, info))
    try:
        return serialize.table_rows(con, ChangeEvent, "published_events", "date, id")
    finally:
        con.execute("DROP TABLE published_events")


def event_files(con: duckdb.DuckDBPyConnection, info: DatasetInfo,
                site_url: str | None = None) -> Iterator[tuple[str, bytes]]:
    """``events.jsonl``, the site-wide feeds and each company's feeds, as (path, body); with ``site_url`` (the site's
    absolute base URL) the feeds' links are absolute, else site paths."""
    rows = event_rows(con, info)
    yield EVENTS_FILE, serialize.json_lines(rows)
    newest = [json.loads(row) for row in reversed(rows)]
    as_of = info.as_of.isoformat()
    site = feeds.site_feed(as_of, site_url)
    yield site.atom_path, feeds.atom(newest[:SITE_FEED_ITEMS], site)
    yield site.json_path, feeds.json_feed(newest[:SITE_FEED_ITEMS], site)
    by_company: dict[str, list[dict]] = defaultdict(list)
    for event in newest:
        company = event.get("company")
        if company and company.get("url"):  # a removed company's events are in the site-wide feed only
            by_company[company["slug"]].append(event)
    for slug in sorted(by_company):
        events = by_company[slug]
        feed = feeds.company_feed(slug, events[0]["company"]["name"], as_of, site_url)
        yield feed.atom_path, feeds.atom(events, feed)
        yield feed.json_path, feeds.json_feed(events, feed)
