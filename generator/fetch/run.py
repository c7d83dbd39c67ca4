"""One fetch run: plan each source's documents, download them politely, verify, commit or leave nothing."""

from __future__ import annotations

import datetime as dt
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from generator.fetch import sources
from generator.fetch.client import DEADLINE, MAX_BODY, Client, FetchError, RateLimiter, Retry, user_agent
from generator.fetch.progress import Progress, Tally
from generator.fetch.store import Entry, RawFolder, StoreError, sha256
from generator.fetch.verify import verify

FIRST_RUN_DAYS = 7
"""Days of daily indexes a first run asks for when no ``since`` is given."""


@dataclass
class FetchConfig:
    sources: list[str]
    into: Path
    user_agent: str | None = None
    """None: from the environment (``client.USER_AGENT_ENV``)."""
    rate: float = 10.0
    since: dt.date | None = None
    """First day of daily indexes (and first month of calendars, quarter of financial statements); default: the day
    after the newest index the raw folder has (else a week back), for calendars ``sources.calendar_months``, for
    financial statements ``sources.statement_quarters``."""
    until: dt.date | None = None
    """Last day of daily indexes (and month of calendars); default: today (UTC)."""
    base_urls: list[str] = field(default_factory=list)
    retries: int = 4
    backoff: float = 1.0
    max_wait: float = 120.0
    window: float = 1.0
    """Seconds over which ``rate`` is counted (the tests use a short one)."""
    max_body: int = MAX_BODY
    """Bytes a response's body may have, on the wire and once decompressed."""
    deadline: float = DEADLINE
    """Seconds a request may take, first byte sent to last byte received."""
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    """The rate limiter's clock (the tests give a fake one, with a ``sleep`` that advances it)."""


@dataclass
class FetchResult:
    run: Path | None
    """The run's folder in the raw folder; None when the run failed (nothing was kept)."""
    tallies: dict[str, Tally]
    failures: list[str]
    """One line per URL that could not be fetched."""
    retried: list[Retry]
    seconds: float

    @property
    def total(self) -> Tally:
        total = Tally()
        for tally in self.tallies.values():
            total.add(tally)
        return total


class _Run:
    def __init__(self, config: FetchConfig, client: Client, raw: RawFolder, progress: Progress) -> None:
        self.config, self.client, self.raw, self.progress = config, client, raw, progress
        self.bases = sources.base_urls(config.base_urls)
        self.previous = raw.current()
        self.entries: list[Entry] = []
        self.failures: list[str] = []
        self.tallies: dict[str, Tally] = {}
        self.indexes: list[Path] = []

    def days(self) -> list[dt.date]:
        until = self.config.until or self.config.now().date()
        first = self.config.since
        if first is None:
            have = [day for entry in self.previous.values() if entry.source == sources.DAILY_INDEX
                    and (day := sources.index_day(entry.url)) is not None]
            first = max(have) + dt.timedelta(days=1) if have else until - dt.timedelta(days=FIRST_RUN_DAYS - 1)
        return sources.business_days(first, until)

    def months(self) -> list[dt.date]:
        held = {month: entry.time for url, entry in self.previous.items()
                if entry.source == sources.CALENDAR and (month := sources.calendar_month(url)) is not None}
        return sources.calendar_months(held, self.config.since, self.config.until or self.config.now().date())

    def quarters(self) -> list[tuple[int, int]]:
        held = {quarter for url, entry in self.previous.items()
                if entry.source == sources.FSDS and (quarter := sources.statement_quarter(url)) is not None}
        return sources.statement_quarters(held, self.config.since, self.config.until or self.config.now().date())

    def targets(self, source: str) -> list[sources.Target]:
        if source == sources.TICKERS:
            return sources.ticker_lists()
        if source == sources.DAILY_INDEX:
            return [sources.daily_index(day) for day in self.days()]
        if source == sources.CALENDAR:
            return [sources.calendar(month) for month in self.months()]
        if source == sources.SCREENER:
            return [sources.screener(exchange) for exchange in sources.EXCHANGES]
        if source == sources.FSDS:
            return [sources.statements(quarter) for quarter in self.quarters()]
        facts = source == sources.FACTS
        ciks: set[str] = set()
        for index in self.indexes:  # the filers of the indexes this run downloaded
            ciks |= sources.filers(index, sources.FACTS_FORMS if facts else sources.SUBMISSION_FORMS)
        return [(sources.companyfacts if facts else sources.submissions)(cik) for cik in sorted(ciks, key=int)]

    def fetch(self, source: str) -> None:
        targets = self.targets(source)
        tally = Tally()
        self.progress.start(source, len(targets))
        for target in targets:
            before = self.client.requests
            tally.add(self.one(target))
            tally.requests += self.client.requests - before
            self.progress.step(tally)
        self.tallies[source] = self.progress.finish()

    def one(self, target: sources.Target) -> Tally:
        url = target.url(self.bases)
        known = self.previous.get(url)
        extra = sources.request_headers(target.site, self.client.agent)
        try:
            response = self.client.get(url, *(known.etag, known.last_modified) if known else ("", ""), extra)
        except FetchError as error:
            self.failures.append(str(error))
            return Tally(failed=1)
        when = self.config.now().astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        entry = Entry(url, target.source, response.status, when, etag=response.etag,
                      last_modified=response.last_modified)
        if response.status == 304 and known is not None:
            self.entries.append(_replace(entry, known, etag=response.etag or known.etag,
                                         last_modified=response.last_modified or known.last_modified))
            return Tally(not_modified=1, bytes=response.wire_bytes)
        if response.status in sources.ABSENT and target.absent_ok:
            self.entries.append(entry)
            return Tally(absent=1, bytes=response.wire_bytes)
        if response.status != 200:
            self.failures.append(f"{url}: HTTP {response.status}")
            return Tally(failed=1, bytes=response.wire_bytes)
        if known is not None and sha256(response.body) == known.sha256:  # a server without validators: same bytes
            self.entries.append(_replace(entry, known, response.etag, response.last_modified))
            return Tally(not_modified=1, bytes=response.wire_bytes)
        staged = self.raw.stage(target.local, response.body)
        try:
            verify(staged, target.source)
        except ValueError as error:
            self.failures.append(f"{url}: {error}")
            return Tally(failed=1, bytes=response.wire_bytes)
        if target.source == sources.DAILY_INDEX:
            self.indexes.append(staged)
        self.entries.append(Entry(url, target.source, 200, when, len(response.body), sha256(response.body),
                                  self.raw.path_of(target.local), response.etag, response.last_modified))
        return Tally(downloaded=1, bytes=response.wire_bytes)


def _replace(entry: Entry, known: Entry, etag: str, last_modified: str) -> Entry:
    """A 304's entry (or a 200's with the bytes held already): the earlier file it confirms, with the validators
    the server sent now."""
    return Entry(entry.url, entry.source, entry.status, entry.time, known.bytes, known.sha256, known.path, etag,
                 last_modified)


def fetch(config: FetchConfig, stream: TextIO | None = sys.stderr) -> FetchResult:
    """Fetch ``config.sources`` into the raw folder ``config.into``. Every URL succeeded: the run's folder is in
    place; any failed: the raw folder is as the last good run left it and ``failures`` says why, one line each.
    Raises ``FetchError`` (one line) for what stops a run before its first request."""
    started = time.monotonic()
    try:
        names = sources.expand(config.sources)
        sources.base_urls(config.base_urls)
    except ValueError as error:
        raise FetchError(str(error)) from None
    agent = user_agent(config.user_agent)
    limiter = RateLimiter(config.rate, config.window, clock=config.clock, sleep=config.sleep)
    client = Client(agent, limiter, config.retries, config.backoff, config.max_wait, max_body=config.max_body,
                    deadline=config.deadline, sleep=config.sleep)
    raw = RawFolder(config.into, config.now())
    try:
        with raw.locked():
            run = _Run(config, client, raw, Progress(stream))
            try:
                for name in names:
                    run.fetch(name)
            except BaseException:
                raw.abort()
                raise
            folder = None
            if run.failures:
                raw.abort()
            else:
                folder = raw.commit(run.entries, {
                    "sources": names, "requests": client.requests,
                    "retried": [f"{r.url}: {r.reason}, waited {r.wait:g} s" for r in client.retried]})
    except StoreError as error:
        raise FetchError(str(error)) from None
    finally:
        client.close()
    return FetchResult(folder, run.tallies, run.failures, client.retried, time.monotonic() - started)
