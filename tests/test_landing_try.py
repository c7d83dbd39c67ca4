"""The landing page tried and looked at, in headless Chromium (the page, fixture and helpers of
``tests/test_landing.py``): the query console answers on ``serve`` (its front door) and on ``python -m http.server``
(files only: the console asks for the path-style file the query spells), with the key in a header and nowhere
else; the charts render and stay readable at 390 px; no console errors; screenshots at 1280 and 390 px are kept
under pytest's temporary folder and their paths printed.

A ``#try=`` link (what the console writes into the address bar) makes the console ask its query on load, so
``--dump-dom`` shows the answer. Probe pages load the landing page in a same-origin iframe to measure the charts
and to use the console as a person does (type a key, press Send).
"""

from __future__ import annotations

import html
import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest

from generator.frontdoor.keys import digest, new_key
from generator.hosts.serve import make_server

from .test_landing import PAGE, Landing, chromium, needs_chromium, page_errors, png_size, served_landing

DUMP = ("--enable-logging=stderr", "--v=0", "--virtual-time-budget=8000", "--dump-dom")
WIDTHS = {1280: 2400, 390: 4200}
"""Screenshot sizes: at 390 px the console and the charts sit below the contents."""
CHARTS_PROBE = "/charts-probe.html"
KEY_PROBE = "/key-probe.html"
PROBE_SCRIPT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>probe</title><link rel="icon" href="data:,"></head><body>
<iframe id="page" src="/index.html" scrolling="no" style="width:WIDTHpx;height:900px;border:0"></iframe>
<pre id="out"></pre>
<script>
var frame = document.getElementById("page");
frame.addEventListener("load", function () { BODY });
</script></body></html>
"""
MEASURE = """
  var doc = frame.contentDocument, found = [];
  doc.querySelectorAll("svg.chart").forEach(function (svg) {
    var box = svg.getBoundingClientRect(), marks = 0, text = svg.querySelector("text");
    svg.querySelectorAll("path:not(.grid), rect").forEach(function (m) {
      var b = m.getBBox(); if (b.width > 0 && b.height > 0) { marks++; } });
    found.push({id: svg.closest("figure").id, width: box.width, height: box.height,
                px: parseFloat(getComputedStyle(text).fontSize) * box.width / svg.viewBox.baseVal.width, marks: marks});
  });
  document.getElementById("out").textContent = JSON.stringify(found);
"""
TYPE_A_KEY = """
  var win = frame.contentWindow, doc = frame.contentDocument, tries = 0;
  var report = function () {
    document.getElementById("out").textContent = JSON.stringify({
      status: doc.getElementById("console-status").textContent, url: doc.getElementById("console-url").textContent,
      answer: doc.getElementById("console-answer").textContent, location: win.location.href,
      stored: win.localStorage.length + win.sessionStorage.length, cookies: doc.cookie});
  };
  var wait = function (done, then) {
    if (done() || ++tries > 100) { then(); } else { setTimeout(function () { wait(done, then); }, 50); }
  };
  wait(function () { return /API key/.test(doc.getElementById("console-status").textContent); }, function () {
    doc.getElementById("console-key").value = "KEY";
    doc.getElementById("console-form").requestSubmit();
    wait(function () { return doc.getElementById("console-answer").textContent; }, report);
  });
"""


@pytest.fixture(scope="module")
def landing(tiny_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Landing]:
    yield from served_landing(tiny_build, tmp_path_factory.mktemp("landing-try") / "dist")


def _query(landing: Landing) -> tuple[str, str]:
    """A query with a filter and a sort that the tiny build publishes as a file: (query string URL, its file)."""
    first = json.loads(landing.get("/api/companies/all/sort=-valuation,page=1.json")[2])
    sector = first["meta"]["facets"]["sector"][0]["value"]
    return f"/api/companies?sector={sector}&sort=name", f"/api/companies/sector={sector}/sort=name,page=1.json"


def _console(dom: str) -> tuple[str, str, object]:
    """The console's URL, status line and answer (parsed) in a dumped DOM."""
    def text(element: str, tag: str) -> str:
        found = re.search(rf'<{tag} id="{element}"[^>]*>(.*?)</{tag}>', dom, re.S)
        assert found, element
        return html.unescape(found.group(1))

    return text("console-url", "code"), text("console-status", "p"), json.loads(text("console-answer", "pre"))


def _shown(body: dict) -> dict:
    """What the console shows of a body: at most its first 5 rows."""
    return {**body, "data": body["data"][:5]} if isinstance(body.get("data"), list) else body


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def static_host(landing: Landing) -> Iterator[str]:
    """``python -m http.server`` over the same folder: files only, no rewrite rule, no front door."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(landing.root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + PAGE, timeout=2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=10)


@needs_chromium
def test_console_answers_through_the_front_door_on_serve(landing: Landing, tmp_path: Path) -> None:
    query, _ = _query(landing)
    result = chromium(f"{landing.base}{PAGE}#try={quote(query, safe='')}", tmp_path, *DUMP)
    assert page_errors(result.stderr, landing.base) == []
    url, status, answer = _console(result.stdout)
    assert url == query
    assert status.startswith("200 ·") and "answered by the host" in status, status
    assert answer == _shown(json.loads(landing.get(query)[2]))
    _controls_follow_the_query_space(result.stdout, json.loads(landing.get("/api/query-space.json")[2]))


def _controls_follow_the_query_space(dom: str, space: dict) -> None:
    """The console's controls for /api/companies: a list of the published rungs or values where the query space
    gives them (each value once, by its canonical name), a text field where it does not; and the route's sorts."""
    route = space["routes"]["companies"]
    for flt in route["filters"]:
        control = re.search(rf'<(select|input) id="console-p-{flt["name"]}"[^>]*>(.*?</select>)?', dom, re.S)
        assert control, flt["name"]
        values = flt.get("values") or {}
        wanted = [str(r) for r in flt.get("rungs") or flt.get("ladder") or []] or sorted(
            {str(v) for v in (values.values() if isinstance(values, dict) else values)})
        if wanted:
            assert re.findall(r'<option value="([^"]*)"', control.group(0))[1:] == wanted, flt["name"]
        else:
            assert control.group(1) == "input", flt["name"]
    sorts = re.search(r'<select id="console-p-sort"[^>]*>(.*?)</select>', dom, re.S)
    assert sorts and re.findall(r'<option value="([^"]*)"', sorts.group(1))[1:] == list(route["sorts"])


@needs_chromium
def test_console_answers_from_the_path_style_file_on_a_static_host(landing: Landing, static_host: str,
                                                                   tmp_path: Path) -> None:
    query, file = _query(landing)
    result = chromium(f"{static_host}{PAGE}#try={quote(query, safe='')}", tmp_path, *DUMP)
    assert page_errors(result.stderr, static_host) == []
    url, status, answer = _console(result.stdout)
    assert url == query
    assert status.startswith("200 ·") and f"path-style file {file}" in status, status
    assert answer == _shown(json.loads((landing.root / file.lstrip("/")).read_bytes()))
    assert "Live from /api/companies" in result.stdout  # the top-companies table reads its file there too


class _Relay(BaseHTTPRequestHandler):
    """Same origin for a probe page and a ``serve --keys`` site: the probe from here (the site would ask a key for
    it), every other request relayed with its headers, and each request's path and Authorization header noted."""

    probe = b""
    upstream = ""
    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        type(self).seen.append((self.path, self.headers.get("Authorization", "")))
        if self.path == KEY_PROBE:
            status, headers, body = 200, {"Content-Type": "text/html; charset=utf-8"}, self.probe
        else:
            request = urllib.request.Request(self.upstream + self.path, headers={
                name: value for name, value in self.headers.items() if name in ("Accept", "Authorization")})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    status, headers, body = response.status, dict(response.headers), response.read()
            except urllib.error.HTTPError as error:
                status, headers, body = error.code, dict(error.headers), error.read()
        self.send_response(status)
        for name in ("Content-Type", "Cache-Control", "WWW-Authenticate"):
            if name in headers:
                self.send_header(name, headers[name])
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@needs_chromium
def test_the_key_goes_in_a_header_only(landing: Landing, tmp_path: Path) -> None:
    """On ``serve --keys``: the console says the site asks for a key; typed in and sent, the answer is the API's
    (so the header carried it), and no request path, the address bar, the URL shown or the browser's storage holds
    the key."""
    key = new_key()
    digests = tmp_path / "digests.txt"
    digests.write_text(digest(key) + "\n", encoding="utf-8")
    site = make_server(landing.root, "127.0.0.1", 0, quiet=True, digests=digests)
    relay = ThreadingHTTPServer(("127.0.0.1", 0), type("Relay", (_Relay,), {
        "probe": PROBE_SCRIPT.replace("WIDTH", "1280").replace("BODY", TYPE_A_KEY.replace("KEY", key)).encode(),
        "upstream": f"http://127.0.0.1:{site.server_port}", "seen": []}))
    for server in (site, relay):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = chromium(f"http://127.0.0.1:{relay.server_port}{KEY_PROBE}", tmp_path, *DUMP)
    finally:
        for server in (relay, site):
            server.shutdown()
            server.server_close()
    found = re.search(r'<pre id="out">(.*?)</pre>', result.stdout, re.S)
    assert found and found.group(1), result.stdout[-2000:]
    report = json.loads(html.unescape(found.group(1)))
    assert report["status"].startswith("200 ·"), report["status"]
    assert json.loads(report["answer"])["meta"]["total"] > 0
    seen = relay.RequestHandlerClass.seen  # type: ignore[attr-defined]
    assert ("/api/query-space.json", "") in seen  # asked without a key first: 401, "asks for an API key"
    assert (report["url"], f"Bearer {key}") in seen
    assert all(key not in path for path, _ in seen), seen
    assert key not in report["location"] and key not in report["url"] and key not in report["cookies"]
    assert report["stored"] == 0


@needs_chromium
def test_charts_render_and_read_at_390_and_1280(landing: Landing, tmp_path: Path) -> None:
    """Each chart is drawn (marks of non-zero size), as wide as its column allows, with text of at least 9.5 CSS
    pixels at 390 px; no console error."""
    for width in (390, 1280):
        name = CHARTS_PROBE.replace(".html", f"-{width}.html")
        (landing.root / name.lstrip("/")).write_text(
            PROBE_SCRIPT.replace("WIDTH", str(width)).replace("BODY", MEASURE), encoding="utf-8")
        result = chromium(landing.base + name, tmp_path, *DUMP)
        assert page_errors(result.stderr, landing.base) == []
        found = re.search(r'<pre id="out">(.*?)</pre>', result.stdout, re.S)
        assert found and found.group(1), result.stdout[-2000:]
        measured = json.loads(html.unescape(found.group(1)))
        assert [m["id"] for m in measured] == ["chart-pipeline", "chart-sectors", "chart-funding"], measured
        for chart in measured:
            assert chart["marks"] >= 1 and chart["height"] > 50, chart
            assert chart["width"] >= (300 if width == 390 else 400), chart
            assert chart["px"] >= 9.5, chart
        print(width, measured)


@needs_chromium
@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_screenshot(landing: Landing, tmp_path: Path, width: int) -> None:
    """The page with the console's answer and the charts, kept for a person to look at (the path is printed)."""
    query, _ = _query(landing)
    screenshot = tmp_path / f"landing-{width}.png"
    result = chromium(f"{landing.base}{PAGE}#try={quote(query, safe='')}", tmp_path, "--hide-scrollbars",
                      f"--window-size={width},{WIDTHS[width]}", "--virtual-time-budget=8000",
                      f"--screenshot={screenshot}")
    assert result.returncode == 0 and screenshot.exists(), result.stderr[-3000:]
    assert png_size(screenshot) == (width, WIDTHS[width])
    assert screenshot.stat().st_size > 40_000, "the screenshot looks blank"
    print(f"screenshot at {width} px: {screenshot}")
