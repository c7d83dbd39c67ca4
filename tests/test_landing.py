"""The landing page: generated from the registry, served with ``serve`` and checked in headless Chromium.

The page is written into a copy of the tiny build with examples computed here from the files that exist and the
charts' figures read from the tiny dataset (the build's own page, with the lead's examples, is kept beside it as
``/index-built.html`` and checked too). Chromium (Debian's /usr/bin/chromium) loads it from a loopback ``serve``:
the DOM after scripts ran and the console. Without Chromium only those tests are skipped. The charts' figures are
checked in ``tests/test_charts.py``; the query console and the charts in the browser, with screenshots, in
``tests/test_landing_try.py``.

About console errors: this Chromium (156) logs every console message of a page to stderr with
``--enable-logging=stderr`` as ``[pid:tid:time:INFO:CONSOLE:line] "message", source: URL (line)``, whatever
its level: ``console.error`` looks exactly like ``console.log``. The page logs nothing on purpose, so any
console line whose source is the served site counts as an error, as does any line with ``Uncaught`` or an
``:ERROR:CONSOLE`` marker (older builds). A control page that calls ``console.error`` and throws shows the
check can fail.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import shutil
import struct
import subprocess
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlsplit

import duckdb
import pytest

from generator.api import problems, queries
from generator.api.registry import LIST_ROUTES, ROUTES, DetailRoute, ListRoute
from generator.api.rewrites import CONTENT_TYPES, Router, rules
from generator.dataset.database import load_into
from generator.dataset.load import read_dataset_info, validate
from generator.dataset.schema import DatasetInfo
from generator.hosts import charts
from generator.hosts.landing import landing_page
from generator.hosts.serve import make_server
from tests.conftest import TINY

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
PAGE = "/index.html"
"""Loaded by that name: ``serve`` answers ``/`` with the right file but as application/octet-stream."""
BUILT_PAGE = "/index-built.html"
PROBE_PAGE = "/console-probe.html"
PROBE_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>probe</title><link rel="icon" href="data:,"></head>
<body><p>console probe</p>
<script>console.error("landing-console-probe");</script>
<script>undefinedLandingProbe();</script>
</body></html>
"""

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed")


@dataclass
class Landing:
    root: Path
    base: str
    info: DatasetInfo
    examples: dict[str, list[str]]
    html: str
    figures: charts.Figures

    def get(self, path: str) -> tuple[int, str, bytes]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=30) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", ""), error.read()


def compute_examples(root: Path) -> dict[str, list[str]]:
    """A few URLs per route whose files exist in the build: what the lead's build passes, found here on disk."""
    out: dict[str, list[str]] = {}
    for route in ROUTES:
        folder = root / route.path.lstrip("/")
        if isinstance(route, ListRoute):
            urls = [route.path]
            for flt in route.filters:
                values = sorted(p.name.partition("=")[2] for p in folder.glob(f"{flt.name}=*") if p.is_dir())
                if values:
                    urls.append(f"{route.path}?{flt.name}={quote(values[len(values) // 2])}")
            published = route.published_sorts  # a front-door-only sort has no file to show
            sort = published[-1]
            if (root / route.file_path({}, sort, 2).lstrip("/")).is_file():
                urls.append(f"{route.path}?sort={sort}&page=2")
            elif len(published) > 1:
                urls.append(f"{route.path}?sort={sort}")
            out[route.name] = urls
        elif isinstance(route, DetailRoute):
            keys = sorted(p.stem for p in folder.glob("*.json"))
            out[route.name] = [f"{route.path}/{key}" for key in keys[:2]]
        else:
            out[route.name] = [route.path]
    return out


def figures_of(folder: Path) -> charts.Figures:
    """The charts' figures of a dataset folder, as the build reads them (the tables loaded, with the views)."""
    info, tables = validate(folder)
    con = duckdb.connect(config={"threads": 1})
    try:
        load_into(con, tables)
        con.execute(queries.read_sql("views"))
        return charts.figures(con, info)
    finally:
        con.close()


@pytest.fixture(scope="module")
def landing(tiny_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Landing]:
    yield from served_landing(tiny_build, tmp_path_factory.mktemp("landing") / "dist")


def served_landing(tiny_build: Path, root: Path) -> Iterator[Landing]:
    """A copy of the tiny build at ``root`` with the page generated here, served by ``serve`` (its front door)."""
    shutil.copytree(tiny_build, root)
    if (root / "index.html").exists():
        shutil.copy(root / "index.html", root / BUILT_PAGE.lstrip("/"))
    info = read_dataset_info(TINY)
    examples = compute_examples(root)
    figures = figures_of(TINY)
    page = landing_page(info, examples, figures)
    (root / "index.html").write_bytes(page)
    (root / PROBE_PAGE.lstrip("/")).write_text(PROBE_HTML, encoding="utf-8")
    server = make_server(root, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Landing(root, f"http://127.0.0.1:{server.server_port}", info, examples, page.decode("utf-8"), figures)
    finally:
        server.shutdown()
        server.server_close()


# --- HTML helpers ---------------------------------------------------------------------------------------------


class _Collector(HTMLParser):
    """Ids, link targets, resource URLs and the rows of the top-companies table of a document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.resources: list[str] = []
        self.table_hidden: bool | None = None
        self.rows: list[list[str]] = []
        self._in_table = self._in_body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"] or "")
        if tag == "a" and attributes.get("href"):
            self.hrefs.append(attributes["href"] or "")
        if tag in ("script", "img", "iframe", "source", "link") and (attributes.get("src") or attributes.get("href")):
            self.resources.append(attributes.get("src") or attributes.get("href") or "")
        if tag == "table" and attributes.get("id") == "top-companies-table":
            self._in_table, self.table_hidden = True, "hidden" in attributes
        elif self._in_table and tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self.rows.append([])
        elif self._in_body and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def collect(document: str) -> _Collector:
    collector = _Collector()
    collector.feed(document)
    collector.close()
    return collector


def article(document: str, anchor: str) -> str:
    start = document.index(f'<article class="route" id="{anchor}"')
    return document[start : document.index("</article>", start)]


def problem_ids() -> set[str]:
    """Every ``/#problem-...`` anchor the problem documents of the build refer to."""
    out = set()
    for _, body in problems.problem_files():
        found = re.search(rb'"type":"/#([^"]+)"', body)
        assert found, body
        out.add(found.group(1).decode())
    return out


# --- Chromium helpers -----------------------------------------------------------------------------------------

CONSOLE_LINE = re.compile(r':CONSOLE[^\]]*\] "(?P<message>.*)", source: (?P<source>\S*)')


def chromium(url: str, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"chromium-profile-{uuid.uuid4().hex}"
    command = [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *flags, url]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def page_errors(stderr: str, origin: str) -> list[str]:
    """Console lines of Chromium's stderr that are errors of a page served from ``origin``."""
    bad = []
    for line in stderr.splitlines():
        console = CONSOLE_LINE.search(line)
        if "Uncaught" in line or ":ERROR:CONSOLE" in line or (console and console["source"].startswith(origin)):
            bad.append(line)
    return bad


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


@pytest.fixture(scope="module")
def loaded(landing: Landing, tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """One Chromium run over the page: DOM after scripts (stdout) and the console (stderr)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    result = chromium(
        landing.base + PAGE, tmp_path_factory.mktemp("chromium"),
        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


# --- the page as generated ------------------------------------------------------------------------------------


def test_every_route_is_documented_from_the_registry(landing: Landing) -> None:
    page = landing.html
    for route in ROUTES:
        section = article(page, f"route-{route.name}")
        assert route.path in section
        assert html.escape(route.summary, quote=False) in section
        if isinstance(route, ListRoute):
            assert f"{route.per_page} items per page" in section
            for value in route.sort_values:
                assert f"<code>{value}</code>" in section, (route.name, value)
            assert f"<code>{route.default_sort}</code> (default)" in section
            for flt in route.filters:
                assert f'<td class="name"><code>{flt.name}</code></td>' in section, (route.name, flt.name)
            if route.incompatible_sets():
                assert f'href="#problem-{route.name}-filter-combination"' in section
        for url in landing.examples[route.name]:
            assert f'href="{html.escape(url)}"' in section, (route.name, url)


def test_page_basics(landing: Landing) -> None:
    page = landing.html
    assert page.startswith("<!DOCTYPE html>")
    assert '<html lang="en">' in page and '<meta charset="utf-8">' in page
    assert 'name="viewport"' in page
    assert html.escape(landing.info.title, quote=False) in page
    assert landing.info.as_of.isoformat() in page
    assert html.escape(landing.info.disclaimer, quote=False) in page
    assert 'href="/api/openapi"' in page
    for term in ("_usd", "_cents", "YYYY-MM-DD", "RFC 9457", "data", "meta", "links", "sort=", "page="):
        assert term in page, term
    headings = re.findall(r"<h([1-6])\b", page)
    assert headings.count("1") == 1 and headings[0] == "1"
    levels = [int(h) for h in headings]
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), "a heading level is skipped"


def test_every_problem_type_has_its_anchor(landing: Landing) -> None:
    ids = collect(landing.html).ids
    assert len(ids) == len(set(ids)), "duplicate ids"
    expected = problem_ids() | {f"problem-{r.name}-filter-combination" for r in LIST_ROUTES if r.incompatible_sets()}
    assert "problem-not-found" in expected
    assert expected <= set(ids), expected - set(ids)
    # the front door's 400 problems point to their documentation on this page too
    from generator.frontdoor.common import problem

    answered = json.loads(problem(400, "Invalid query", "x").body)["type"]
    assert answered.partition("#")[2] in ids, answered


def test_no_external_resources(landing: Landing) -> None:
    collected = collect(landing.html)
    for url in collected.resources + collected.hrefs:
        assert not re.match(r"^(?:[a-z]+:)?//", url, re.I), url
    assert "@import" not in landing.html and "url(" not in landing.html
    assert "<script src" not in landing.html


def test_every_local_link_resolves(landing: Landing) -> None:
    pages = [PAGE] + ([BUILT_PAGE] if (landing.root / BUILT_PAGE.lstrip("/")).exists() else [])
    for page in pages:
        status, _, body = landing.get(page)
        assert status == 200
        collected = collect(body.decode("utf-8"))
        targets = {href for href in collected.hrefs if href.startswith("/")}
        anchors = {href[1:] for href in collected.hrefs if href.startswith("#")}
        assert anchors <= set(collected.ids), (page, anchors - set(collected.ids))
        assert len(targets) > len(ROUTES), (page, targets)
        for target in sorted(targets):
            status, content_type, _ = landing.get(target)
            assert status == 200, (page, target, status)
            path = urlsplit(target).path
            if path.startswith("/api/") and "export" not in target:  # downloads and feeds: their own types
                wanted = CONTENT_TYPES.get(path[path.rfind("."):] if "." in path.rpartition("/")[2] else ".json")
                assert content_type == wanted, (page, target, content_type)


def test_examples_show_their_static_host_form(landing: Landing) -> None:
    router = Router(rules())
    for urls in landing.examples.values():
        for url in urls:
            parts = urlsplit(url)
            if not parts.query:
                continue
            match = router.match(parts.path, parts.query)
            assert match is not None and match.rule.status == 200, url
            assert f'href="{html.escape(match.target)}"' in landing.html, (url, match.target)


def test_dataset_text_is_escaped() -> None:
    info = DatasetInfo(
        title="<script>alert(1)</script> & Co", as_of=dt.date(2025, 1, 31), disclaimer="Not <b>advice</b>.",
        license="x", sources=["y"],
    )
    page = landing_page(info, {}).decode("utf-8")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in page
    assert "Not &lt;b&gt;advice&lt;/b&gt;." in page


# --- in Chromium ----------------------------------------------------------------------------------------------


@needs_chromium
def test_dom_after_scripts(landing: Landing, loaded: subprocess.CompletedProcess[str]) -> None:
    dom = loaded.stdout
    for route in ROUTES:
        assert route.path in dom, route.path
    assert html.escape(landing.info.disclaimer, quote=False) in dom
    collected = collect(dom)
    _, _, body = landing.get("/api/companies")
    top = [item["name"] for item in json.loads(body)["data"][:5]]
    assert collected.table_hidden is False, "the script did not show the top-companies table"
    assert [row[1] for row in collected.rows] == top
    assert [row[0] for row in collected.rows] == [str(n) for n in range(1, len(top) + 1)]
    assert all(row[-2].startswith("$") for row in collected.rows if row[-2] != "–")
    assert "Live from /api/companies" in dom


@needs_chromium
def test_no_console_errors(landing: Landing, loaded: subprocess.CompletedProcess[str]) -> None:
    assert page_errors(loaded.stderr, landing.base) == []


@needs_chromium
def test_console_check_catches_errors(landing: Landing, tmp_path: Path) -> None:
    """Control: a page that calls console.error and throws is caught by the same check."""
    result = chromium(landing.base + PROBE_PAGE, tmp_path, "--enable-logging=stderr", "--v=0",
                      "--virtual-time-budget=2000", "--dump-dom")
    errors = page_errors(result.stderr, landing.base)
    assert any("landing-console-probe" in line for line in errors), result.stderr[-3000:]
    assert any("Uncaught" in line and "undefinedLandingProbe" in line for line in errors)


@needs_chromium
def test_script_survives_a_failed_fetch(landing: Landing, tmp_path: Path) -> None:
    """The page without its API (a copy holding only index.html): no uncaught error, a message instead."""
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "index.html").write_text(landing.html, encoding="utf-8")
    server = make_server(alone, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        result = chromium(base + PAGE, tmp_path, "--enable-logging=stderr", "--v=0",
                          "--virtual-time-budget=5000", "--dump-dom")
    finally:
        server.shutdown()
        server.server_close()
    assert page_errors(result.stderr, base) == []
    assert "Could not load /api/companies" in result.stdout
    assert collect(result.stdout).table_hidden is True

