"""A stand-in for www.sec.gov and data.sec.gov (and api.nasdaq.com) on 127.0.0.1: the real files of
../shared/data/edgar in the SEC's URL layout, submissions documents written here in the SEC's documented shape,
and the faults a real run meets.

``sec_tree`` lays the files out; ``SecServer`` serves a tree (threaded, HTTP/1.1 keep-alive, gzip when asked,
``ETag`` and ``Last-Modified`` with 304 answers to conditional requests, 403 to a request without User-Agent,
404 for what it does not hold or 403 for the paths in ``forbidden``) and logs every request with its arrival
time. A request with a query string is answered from the file named by the query in the folder of the path
(``/api/ipo/calendar?date=2025-07`` from ``api/ipo/calendar/date=2025-07``). Paths under a ``browser`` prefix
are served as Nasdaq's API serves them: no validators (``Cache-Control: no-cache``, every answer a 200 with the
whole body) and 403 to a request that does not look like a browser's (a ``Mozilla/`` User-Agent and an
``Accept`` naming JSON). ``faults[target]`` (the path, with its query if any) is a queue of answers given before
the file itself: a status (with ``Retry-After``), a body of its own (an HTML page, an error answer), or a body
cut short of its ``Content-Length``. Used by tests/test_fetch.py, tests/test_fetch_nasdaq.py and bench/fetch.py.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import gzip
import hashlib
import json
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

IPO_FORMS = {"S-1", "S-1/A", "F-1", "F-1/A", "DRS", "424B4", "424B1", "RW"}


def index_path(day: dt.date) -> str:
    return f"Archives/edgar/daily-index/{day.year}/QTR{(day.month - 1) // 3 + 1}/master.{day:%Y%m%d}.idx"


def slice_index(text: bytes, every: int) -> bytes:
    """A daily master index cut down: its header, every ``every``-th filing and every filing of an IPO form."""
    lines = text.split(b"\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(b"---")) + 1
    keep = [line for n, line in enumerate(lines[start:]) if line and (
        n % every == 0 or line.split(b"|")[2].decode() in IPO_FORMS)]
    return b"\n".join(lines[:start] + keep) + b"\n"


def submissions_document(cik: str, filings: list[list[str]]) -> dict:
    """A submissions document in the shape https://www.sec.gov/edgar/sec-api-documentation describes (the keys
    the fetch checks and a few more), with the filings an index names for the CIK."""
    return {
        "cik": cik, "entityType": "operating", "sic": "", "sicDescription": "", "name": filings[0][1],
        "tickers": [], "exchanges": [], "formerNames": [],
        "filings": {"recent": {
            "accessionNumber": [f[4].rsplit("/", 1)[-1].removesuffix(".txt") for f in filings],
            "filingDate": [f"{f[3][:4]}-{f[3][4:6]}-{f[3][6:]}" for f in filings],
            "form": [f[2] for f in filings], "primaryDocument": ["" for _ in filings],
        }, "files": []},
    }


def sec_tree(root: Path, edgar: Path, index_days: list[dt.date], tickers: int | None = None,
             every: int = 1) -> Path:
    """The SEC's layout under ``root``: both ticker lists (the first ``tickers`` entries of each, or whole), the
    real daily index of 2020-01-03 (cut to every ``every``-th filing) for each of ``index_days``, and a
    submissions document for every CIK those indexes name with an IPO form."""
    listing = json.loads((edgar / "company_tickers.json").read_bytes())
    exchange = json.loads((edgar / "company_tickers_exchange.json").read_bytes())
    (root / "files").mkdir(parents=True)
    if tickers is None:
        (root / "files" / "company_tickers.json").write_bytes((edgar / "company_tickers.json").read_bytes())
        (root / "files" / "company_tickers_exchange.json").write_bytes(
            (edgar / "company_tickers_exchange.json").read_bytes())
    else:
        (root / "files" / "company_tickers.json").write_text(
            json.dumps({k: v for k, v in listing.items() if int(k) < tickers}), encoding="utf-8")
        exchange["data"] = exchange["data"][:tickers]
        (root / "files" / "company_tickers_exchange.json").write_text(json.dumps(exchange), encoding="utf-8")
    index = (edgar / "master.20200103.idx").read_bytes()
    if every > 1:
        index = slice_index(index, every)
    filers: dict[str, list[list[str]]] = defaultdict(list)
    for day in index_days:
        target = root / index_path(day)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(index)
    if index_days:
        for line in index.decode("latin-1").splitlines():
            parts = line.split("|")
            if len(parts) == 5 and parts[2] in IPO_FORMS:
                filers[parts[0]].append(parts)
    (root / "submissions").mkdir()
    for cik, filings in filers.items():
        (root / "submissions" / f"CIK{int(cik):010d}.json").write_text(
            json.dumps(submissions_document(cik, filings), indent=1), encoding="utf-8")
    return root


@dataclass(frozen=True)
class Fault:
    status: int = 503
    retry_after: str = ""
    short: bool = False
    """Send the file's headers and half its body, then close the connection."""
    body: bytes | None = None
    """Answer ``status`` with this body (and ``content_type``) instead of the default one."""
    content_type: str = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Hit:
    time: float
    path: str
    status: int
    agent: str
    conditional: bool
    gzip: bool
    accept: str = ""


@dataclass
class SecServer:
    root: Path
    forbidden: set[str] = field(default_factory=set)
    browser: tuple[str, ...] = ()
    """Path prefixes served as Nasdaq's API serves them (see the module's docstring)."""
    faults: dict[str, list[Fault]] = field(default_factory=lambda: defaultdict(list))
    hits: list[Hit] = field(default_factory=list)
    base: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> SecServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.base = f"http://127.0.0.1:{self._server.server_port}"
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def log(self, hit: Hit) -> None:
        with self._lock:
            self.hits.append(hit)

    def fault(self, path: str) -> Fault | None:
        with self._lock:
            queue = self.faults.get(path)
            return queue.pop(0) if queue else None

    def paths(self, status: int | None = None) -> list[str]:
        return [h.path for h in self.hits if status is None or h.status == status]


def etag_of(data: bytes) -> str:
    return '"' + hashlib.sha256(data).hexdigest()[:16] + '"'


def _handler(owner: SecServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            arrived = time.monotonic()
            parts = urlsplit(self.path)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            stored = parts.path + (f"/{parts.query}" if parts.query else "")
            agent, accept = self.headers.get("User-Agent", ""), self.headers.get("Accept", "")
            browser = path.startswith(owner.browser) if owner.browser else False
            wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
            conditional = bool(self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since"))

            def answer(status: int, body: bytes = b"", headers: dict[str, str] | None = None,
                       zipped: bool = False) -> None:
                owner.log(Hit(arrived, path, status, agent, conditional, zipped, accept))
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if status != 304:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            if not agent:
                return answer(403, b"Your request originates from an undeclared automated tool.\n")
            if browser and not (agent.startswith("Mozilla/") and "json" in accept):
                return answer(403, b"<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD></HTML>\n")
            file = (owner.root / stored.lstrip("/")).resolve()
            held = file.is_relative_to(owner.root.resolve()) and file.is_file()
            data = file.read_bytes() if held else b""
            fault = owner.fault(path)
            if fault is not None and fault.short:
                owner.log(Hit(arrived, path, 200, agent, conditional, False, accept))
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.close_connection = True
                return None
            if fault is not None and fault.body is not None:
                return answer(fault.status, fault.body, {"Content-Type": fault.content_type})
            if fault is not None:
                return answer(fault.status, b"busy\n", {"Retry-After": fault.retry_after} if fault.retry_after else {})
            if not held:
                return answer(403 if path in owner.forbidden else 404, b"not here\n")
            if browser:
                headers = {"Content-Type": "application/json; charset=utf-8", "Cache-Control": "max-age=0, no-cache"}
                if wants_gzip:
                    return answer(200, gzip.compress(data, mtime=0), {**headers, "Content-Encoding": "gzip"}, True)
                return answer(200, data, headers)
            etag = etag_of(data)
            modified = email.utils.formatdate(int(file.stat().st_mtime), usegmt=True)
            validators = {"ETag": etag, "Last-Modified": modified}
            if_none_match, since = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
            if if_none_match is not None:
                fresh = if_none_match == etag
            else:
                fresh = since is not None and email.utils.parsedate_to_datetime(since).timestamp() >= int(
                    file.stat().st_mtime)
            if fresh:
                return answer(304, headers=validators)
            if wants_gzip:
                return answer(200, gzip.compress(data, mtime=0), {**validators, "Content-Encoding": "gzip"}, True)
            return answer(200, data, validators)

    return Handler
