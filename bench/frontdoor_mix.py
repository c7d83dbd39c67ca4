"""A realistic mix of natural queries, by class, for bench/frontdoor.py ``--mix``: reads per request through the
Python resolver, and latency of ``serve`` beside Datasette over the same data (its JSON API on SQLite with
indexes and FTS), one run, same machine.

The classes: ``one file`` (a filter value as people write it, a sort, a page: one published file), ``between
rungs`` (any ``minValuation``, alone or with a sector), ``two filters, sort`` (two filters with a sort the files do
not publish for them), ``short search`` (``/api/search?q=`` one or two letters, with or without ``type``),
``several words`` (two words of a name), ``without files`` (what issue 39 took the files of: ``sort=valuation``,
smallest first, and ``minValuation`` with two other filters), ``front door only`` (the filters that have no files
at all: ``founded``, ``minFounded``, ``maxFounded``, alone or with a sector, a sort, a page), ``profile`` and
``export``. Each query is drawn
from the data (names, values, prefixes that exist) with a fixed seed; each has its Datasette twin (same filter,
order, page size, facets where the front door counts them).

Datasette is a bench-only dependency (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import csv
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

CLASSES = ("one file", "between rungs", "two filters, sort", "short search", "several words", "without files",
           "front door only", "profile", "export")
PER_CLASS = 40
RUNGS = (100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000, 1_000_000_000_000)
Query = tuple[str, str, str]
"""(class, front door URL, Datasette URL)."""


def _rows(data: Path, table: str) -> list[dict[str, str]]:
    with (data / f"{table}.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _words(text: str) -> list[str]:
    return [w for w in "".join(c if c.isalnum() else " " for c in text.lower()).split() if w.isascii()]


def mix(data: Path, seed: int = 1, per_class: int = PER_CLASS) -> list[Query]:
    """``per_class`` queries of each class, drawn from the dataset in ``data`` (its CSV tables)."""
    pick = random.Random(seed)
    companies, investors, sectors = _rows(data, "companies"), _rows(data, "investors"), _rows(data, "sectors")
    names = {s["slug"]: s["name"] for s in sectors}
    facets = "&_facet=sector&_facet=country&_facet=status&_size=50"
    out: list[Query] = []
    for _ in range(per_class):
        c = pick.choice(companies)
        sector, country = c["sector"], c["country"]
        out.append(pick.choice([
            ("one file", f"/api/companies?sector={quote(names.get(sector, sector))}",
             f"/bench/companies.json?sector={sector}&_sort_desc=valuation_usd{facets}"),
            ("one file", f"/api/companies?country={country.upper()}&sort=name&page=2",
             f"/bench/companies.json?country={country}&_sort=name&_size=50&_next=50"),
            ("one file", f"/api/companies?status={c['status']}&sort=name",
             f"/bench/companies.json?status={c['status']}&_sort=name{facets}"),
        ]))
        ladder = RUNGS[pick.randrange(3)]
        out.append(pick.choice([
            ("without files", f"/api/companies?status={c['status']}&sort=valuation",
             f"/bench/companies.json?status={c['status']}&_sort=valuation_usd{facets}"),
            ("without files", f"/api/companies?sector={sector}&country={country}&minValuation={ladder}",
             f"/bench/companies.json?sector={sector}&country={country}&valuation_usd__gte={ladder}"
             f"&_sort_desc=valuation_usd{facets}"),
        ]))
        rung = pick.randrange(len(RUNGS) - 1)
        low = pick.randint(RUNGS[rung] + 1, RUNGS[rung + 1] - 1) // 1_000_000 * 1_000_000 + 500_000
        also = f"&sector={sector}" if pick.random() < 0.5 else ""
        out.append(("between rungs", f"/api/companies?minValuation={low}{also}",
                    f"/bench/companies.json?valuation_usd__gte={low}{also}&_sort_desc=valuation_usd{facets}"))
        out.append(("two filters, sort", f"/api/companies?sector={sector}&country={country}&sort=name",
                    f"/bench/companies.json?sector={sector}&country={country}&_sort=name{facets}"))
        word = pick.choice(_words(pick.choice([c["name"], pick.choice(investors)["name"]])) or ["a"])
        prefix = word[:pick.choice((1, 2))]
        typed = pick.random() < 0.3
        out.append(("short search", f"/api/search?q={prefix}" + ("&type=company" if typed else ""),
                    f"/bench/search.json?_search={prefix}*&_searchmode=raw&_sort=name&_facet=type&_size=50"
                    + ("&type=company" if typed else "")))
        two = _words(c["name"])[:2]
        out.append(("several words", f"/api/companies?q={quote(' '.join(two))}",
                    f"/bench/companies.json?_search={quote(' '.join(two))}&_sort_desc=valuation_usd{facets}"))
        out.append(("profile", f"/api/companies/{c['slug']}", f"/bench/companies/{c['id']}.json"))
        table = pick.choice(["companies", "ipos", "investors"])
        out.append(("export", f"/api/export?format=csv&table={table}", f"/bench/{table}.csv?_stream=on&_size=max"))
    return out + _front_door_only(companies, random.Random(seed + 1), per_class, facets)


def _front_door_only(companies: list[dict[str, str]], pick: random.Random, per_class: int,
                     facets: str) -> list[Query]:
    """The class ``front door only`` (drawn apart, so that the other classes' queries stay those of earlier runs):
    a company's founding year, or a range of years, alone or with its sector, a sort, a page."""
    founded = [c for c in companies if c.get("founded_year")]
    out: list[Query] = []
    for _ in range(per_class if founded else 0):
        c = pick.choice(founded)
        year, sector = int(c["founded_year"]), c["sector"]
        sort, twin_sort = pick.choice([("", "_sort_desc=valuation_usd"), ("&sort=name", "_sort=name"),
                                       ("&sort=valuation", "_sort=valuation_usd")])
        page = pick.choice([1, 1, 2])
        also = f"&sector={sector}" if pick.random() < 0.4 else ""
        if pick.random() < 0.5:
            front, twin = f"founded={year}", f"founded_year={year}"
        else:
            front = f"minFounded={year - 5}&maxFounded={year}"
            twin = f"founded_year__gte={year - 5}&founded_year__lte={year}"
        paged = f"&page={page}" if page > 1 else ""
        twin_page = f"&_next={50 * (page - 1)}" if page > 1 else ""
        out.append(("front door only", f"/api/companies?{front}{also}{sort}{paged}",
                    f"/bench/companies.json?{twin}{also}&{twin_sort}{facets if page == 1 else '&_size=50'}{twin_page}"))
    return out


def sqlite_of(data: Path, path: Path) -> Path:
    """The dataset's tables in SQLite, with indexes on the columns the mix filters and sorts by, FTS5 over names
    (companies: name and ticker; a ``search`` table of companies, investors and sectors as /api/search lists them)."""
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    for table in ("companies", "investors", "ipos", "sectors"):
        rows = _rows(data, table)
        columns = list(rows[0])
        declared = ", ".join("id INTEGER PRIMARY KEY" if c == "id" else f'"{c}"' for c in columns)
        con.execute(f"CREATE TABLE {table} ({declared})")
        con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(columns))})",
                        [[_typed(r[c]) for c in columns] for r in rows])
    for column in ("sector", "country", "status", "valuation_usd", "name", "slug"):
        con.execute(f"CREATE INDEX companies_{column} ON companies({column})")
    con.execute('CREATE VIRTUAL TABLE companies_fts USING fts5(name, ticker, content="companies", content_rowid="id")')
    con.execute("INSERT INTO companies_fts(rowid, name, ticker) SELECT id, name, ticker FROM companies")
    con.execute("CREATE TABLE search (id INTEGER PRIMARY KEY, type TEXT, slug TEXT, name TEXT, ticker TEXT)")
    con.execute("INSERT INTO search (type, slug, name, ticker) SELECT 'company', slug, name, ticker FROM companies "
                "UNION ALL SELECT 'investor', slug, name, NULL FROM investors "
                "UNION ALL SELECT 'industry', slug, name, NULL FROM sectors")
    for column in ("type", "name"):
        con.execute(f"CREATE INDEX search_{column} ON search({column})")
    con.execute('CREATE VIRTUAL TABLE search_fts USING fts5(name, ticker, content="search", content_rowid="id")')
    con.execute("INSERT INTO search_fts(rowid, name, ticker) SELECT id, name, ticker FROM search")
    con.commit()
    con.close()
    return path


def _typed(text: str) -> object:
    if text == "":
        return None
    return int(text) if text.isdigit() and len(text) < 19 else text


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _server(command: list[str], port: int, ready: str) -> Iterator[str]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + ready, timeout=5).read()  # noqa: S310
                break
            except OSError:
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def _time(base: str, url: str) -> float:
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(base + url, timeout=60) as answer:  # noqa: S310
            answer.read()
    except urllib.error.HTTPError as error:
        error.read()
    return time.perf_counter() - started


def _pick(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _bare(twin: str) -> str:
    """Datasette's query without the facet counts the front door's page 1 carries (a cheaper, lesser answer)."""
    return re.sub(r"&_facet=[a-z_]+", "", twin)


def latency(dist: Path, data: Path, queries: list[Query], scratch: Path) -> dict[str, dict[str, float]]:
    """p50/p99 ms per class of ``serve``, of Datasette with the same facets (``datasette``) and without them
    (``bare``), each asked every query once after a warm-up pass over them, interleaved per query, in one run."""
    db = sqlite_of(data, scratch / "bench.db")
    ports = _port(), _port()
    serve = [sys.executable, "-m", "generator", "serve", "--dir", str(dist), "--port", str(ports[0]), "--quiet"]
    datasette = [sys.executable, "-m", "datasette", "serve", str(db), "--port", str(ports[1]),
                 "--setting", "default_page_size", "50", "--setting", "sql_time_limit_ms", "10000",
                 "--setting", "facet_time_limit_ms", "10000"]
    seconds: dict[str, dict[str, list[float]]] = {c: {"serve": [], "datasette": [], "bare": []} for c in CLASSES}
    with _server(serve, ports[0], "/api/openapi") as front, _server(datasette, ports[1], "/bench.json") as other:
        for _, url, twin in queries:  # warm-up: both servers' caches
            _time(front, url), _time(other, twin), _time(other, _bare(twin))
        for name, url, twin in queries:
            seconds[name]["serve"].append(_time(front, url))
            seconds[name]["datasette"].append(_time(other, twin))
            seconds[name]["bare"].append(_time(other, _bare(twin)))
    return {name: {f"{server}_{q}": _pick(found, p) * 1000 for server, found in by.items()
                   for q, p in (("p50", 0.5), ("p99", 0.99))} for name, by in seconds.items()}


def reads(resolve: object, queries: list[Query]) -> dict[str, dict[str, float]]:
    """Files read per request (p50, p99, max) per class, through the Python resolver."""
    found: dict[str, list[int]] = {c: [] for c in CLASSES}
    for name, url, _ in queries:
        path, _, query = url.partition("?")
        answer = resolve.resolve(path, query)  # type: ignore[attr-defined]
        found[name].append(1 if answer is None else len(answer.fetches))  # None: the file itself, one read
    return {name: {"p50": statistics.median(counts), "p99": _pick(counts, 0.99), "max": max(counts)}
            for name, counts in found.items()}
