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
the file itself: a status (with ``Retry-After``), a body of its own (an HTML page, an error answer, a gzip bomb
with its ``Content-Encoding``), a body cut short of its ``Content-Length``, or the file dripped a byte at a time.

``facts_tree`` adds the SEC's companyfacts documents recorded in ../shared/data/sec-companyfacts under their CIKs,
and daily indexes of real lines naming those CIKs (each document's own newest annual or quarterly report: its
accession, form and date are in the document). Used by tests/test_fetch*.py and bench/fetch.py.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import gzip
import hashlib
import json
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

IPO_FORMS = {"S-1", "S-1/A", "F-1", "F-1/A", "DRS", "424B4", "424B1", "RW"}
REPORT_FORMS = {"10-K", "10-K/A", "10-Q", "10-Q/A", "20-F", "20-F/A", "40-F", "40-F/A"}
FACTS = "api/xbrl/companyfacts"
NO_FACTS_LINE = "1679273|Lamb Weston Holdings, Inc.|10-Q|20200103|edgar/data/1679273/0001558370-20-000031.txt"
"""A real 10-Q line of the 2020-01-03 index whose filer has no recorded companyfacts document (the server: 404)."""


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


def reports(document: dict) -> list[tuple[str, str, str]]:
    """(filed YYYYMMDD, form, accession) of every annual or quarterly report a companyfacts document's facts name,
    newest first."""
    found = {fact["accn"]: (fact["filed"].replace("-", ""), fact["form"], fact["accn"])
             for taxonomy in document["facts"].values() for concept in taxonomy.values()
             for facts in concept["units"].values() for fact in facts if fact.get("form") in REPORT_FORMS}
    return sorted(found.values(), reverse=True)


def index_text(day: dt.date, lines: list[str]) -> bytes:
    """A daily master index of ``day`` holding ``lines`` (``CIK|Company Name|Form Type|Date Filed|File Name``)."""
    header = ["Description:           Daily Index of EDGAR Dissemination Feed",
              f"Last Data Received:    {day:%b} {day.day:2d}, {day.year}", "Comments:              webmaster@sec.gov",
              "Anonymous FTP:         ftp://ftp.sec.gov/edgar/", " ", "CIK|Company Name|Form Type|Date Filed|File Name",
              "-" * 80]
    return ("\n".join(header + lines) + "\n").encode("latin-1")


def facts_tree(root: Path, recorded: Path, days: list[dt.date]) -> dict[int, Path]:
    """Under ``root``: every recorded companyfacts body as ``api/xbrl/companyfacts/CIK##########.json`` (bytes as
    recorded; ``.pretty`` ones are re-indented real content), and for ``days[n]`` a daily index naming each
    document's ``n``-th newest report (real lines), the first day also a real 10-Q line whose filer has no document.
    Returns each CIK's recorded file."""
    bodies: dict[int, Path] = {}
    lines: list[list[str]] = [[] for _ in days]
    (root / FACTS).mkdir(parents=True, exist_ok=True)
    for path in sorted(recorded.glob("CIK*.json")):
        document = json.loads(path.read_bytes())
        cik = int(document["cik"])
        bodies[cik] = path
        (root / FACTS / f"CIK{cik:010d}.json").write_bytes(path.read_bytes())
        for n, (filed, form, accession) in enumerate(reports(document)[:len(days)]):
            lines[n].append(f"{cik}|{document['entityName']}|{form}|{filed}|edgar/data/{cik}/{accession}.txt")
    lines[0].append(NO_FACTS_LINE)
    for day, named in zip(days, lines, strict=True):
        target = root / index_path(day)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(index_text(day, sorted(named)))
    return bodies


@dataclass(frozen=True)
class Fault:
    status: int = 503
    retry_after: str = ""
    short: bool = False
    """Send the file's headers and half its body, then close the connection."""
    body: bytes | None = None
    """Answer ``status`` with this body (and ``content_type``, ``encoding``) instead of the default one."""
    content_type: str = "text/html; charset=utf-8"
    encoding: str = ""
    """The ``Content-Encoding`` the body is sent with (a gzip bomb: ``gzip``)."""
    drip: float = 0.0
    """Send the file's headers, then one byte of its body every ``drip`` seconds."""
    chunked: bool = False
    """Send the file gzip-compressed in chunks (``Transfer-Encoding: chunked``, no length); with ``short``, stop in
    the middle of a chunk and close the connection."""


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
    clock: Callable[[], float] = time.monotonic
    """What stamps each hit's arrival (a test of the rate limit gives the client's fake clock)."""
    base: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> SecServer:
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.base = f"http://127.0.0.1:{self._server.server_port}"
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()  # a dripping answer stops
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


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A client that stopped reading mid-answer (a refused body, a deadline) is what a test asked for."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def etag_of(data: bytes) -> str:
    return '"' + hashlib.sha256(data).hexdigest()[:16] + '"'


def _handler(owner: SecServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            arrived = owner.clock()
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
            if fault is not None and fault.chunked:
                owner.log(Hit(arrived, path, 200, agent, conditional, True, accept))
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Content-Encoding", "gzip")
                self.end_headers()
                zipped = gzip.compress(data, mtime=0)
                for start in range(0, len(zipped), 256):
                    piece = zipped[start:start + 256]
                    if fault.short and start >= len(zipped) // 2:
                        self.wfile.write(b"%x\r\n" % len(piece) + piece[: len(piece) // 2])
                        self.close_connection = True
                        return None
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
                return None
            if fault is not None and fault.short:
                owner.log(Hit(arrived, path, 200, agent, conditional, False, accept))
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.close_connection = True
                return None
            if fault is not None and fault.drip:
                owner.log(Hit(arrived, path, 200, agent, conditional, False, accept))
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for n in range(len(data)):
                    if owner.stopping.wait(fault.drip):
                        break
                    try:
                        self.wfile.write(data[n:n + 1])
                        self.wfile.flush()
                    except OSError:  # the client gave up
                        break
                self.close_connection = True
                return None
            if fault is not None and fault.body is not None:
                return answer(fault.status, fault.body, {"Content-Type": fault.content_type, **(
                    {"Content-Encoding": fault.encoding} if fault.encoding else {})}, bool(fault.encoding))
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
