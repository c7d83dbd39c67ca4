"""Shared fixtures: builds of the fixture and embedded datasets, and a running ``serve`` for each."""

from __future__ import annotations

import hashlib
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
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from generator.api import queries
from generator.dataset.database import load_into
from generator.dataset.load import validate
from generator.dataset.schema import DatasetInfo
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import QUERY_SPACE_FILE
from generator.hosts.serve import make_server
from generator.importers import ImportResult
from generator.pipeline.budget import BUDGET_COMPANIES, BUDGET_SEED
from generator.pipeline.build import BuildConfig, BuildReport, build
from generator.synth.dataset import synthesize

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "fixtures" / "tiny"
EMBEDDED = ROOT / "data"
SHARED_DATA = ROOT.parent / "shared" / "data"


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> object:
        return json.loads(self.body)


@dataclass
class Served:
    """A build of a dataset, served on loopback with the project's own ``serve``."""

    root: Path
    base: str

    def get(self, path: str) -> Response:
        try:
            with urllib.request.urlopen(self.base + path, timeout=30) as response:
                return Response(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, dict(error.headers), error.read())

    def get_json(self, path: str) -> tuple[int, dict]:
        response = self.get(path)
        return response.status, json.loads(response.body)


def _serve(root: Path, rewrite_only: bool = True) -> Iterator[Served]:
    """``serve`` on loopback; by default as a rewrite-only host (what the conformance tests compare with
    Netlify's matcher and nginx), else with the query front door."""
    server = make_server(root, "127.0.0.1", 0, quiet=True, rewrite_only=rewrite_only)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(root, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def embedded_db() -> tuple[duckdb.DuckDBPyConnection, DatasetInfo]:
    """The embedded dataset validated and loaded into a database of its own, with the views (one thread)."""
    info, tables = validate(EMBEDDED)
    connection = duckdb.connect(config={"threads": 1})
    load_into(connection, tables)
    connection.execute(queries.read_sql("views"))
    return connection, info


@pytest.fixture(scope="session")
def tiny_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny") / "dist"
    build(BuildConfig(TINY, out))
    return out


def tree_digests(root: Path) -> dict[str, str]:
    """Every file under ``root`` (relative path) and its SHA-256: two builds' outputs compared file for file."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def ipos_out_of_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on the ``ipos`` listing route's query fails as DuckDB does past its memory limit (in any thread of
    this process that renders it)."""
    from generator.api import listing

    original = listing.materialize

    def materialize(con: duckdb.DuckDBPyConnection, route: object, info: object) -> str:
        if route.name == "ipos":  # type: ignore[attr-defined]
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 16.0 MiB")
        return original(con, route, info)  # type: ignore[arg-type]

    monkeypatch.setattr(listing, "materialize", materialize)


def without_places(files: dict[str, bytes]) -> dict[str, bytes]:
    """A canonical folder's or a build's files with what depends on where the source files sat left out: the
    places of ``provenance.csv`` and of the profiles' ``sources``, the exports (which carry provenance whole) and
    the snapshot's name (the digest of an export).
    Two imports of the same files laid out differently (a fetch run's URL layout, a flat folder) compare equal."""
    out = {}
    for name, body in files.items():
        if name.startswith("api/export/"):
            continue
        if name in ("_headers", "api/query-space.json"):  # they name the snapshot: the digest of an export
            body = re.sub(rb'(Dataset-Snapshot: |"snapshot":\{"id":")[^"\n]*', rb"\1", body)
            body = re.sub(rb'"sha256":"[0-9a-f]{64}","archive":"[^"]*"', b"", body)
        if name.endswith("provenance.csv"):
            body = b"\n".join(line.rsplit(b",", 1)[0] if b"," in line else line for line in body.split(b"\n"))
        elif name.endswith(".json") and b'"places"' in body:
            body = json.dumps(_placeless(json.loads(body))).encode()
        out[name] = body
    return out


def _placeless(value: object) -> object:
    if isinstance(value, dict):
        return {key: [] if key == "places" else _placeless(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_placeless(item) for item in value]
    return value


@dataclass(frozen=True)
class Build10k:
    data: Path
    dist: Path
    report: BuildReport
    seconds: float
    """Wall time of synthesizing and building."""


@pytest.fixture(scope="session")
def build_10k(tmp_path_factory: pytest.TempPathFactory) -> Build10k:
    """``synth --companies 10000 --seed 1``, built: the size the output's budget is stated at (tests/test_budget.py)
    and the conformance table is checked at (tests/test_frontdoor_10k.py)."""
    folder = tmp_path_factory.mktemp("synth10k")
    started = time.perf_counter()
    synthesize(folder / "data", companies=BUDGET_COMPANIES, seed=BUDGET_SEED)
    report = build(BuildConfig(folder / "data", folder / "dist"))
    return Build10k(folder / "data", folder / "dist", report, time.perf_counter() - started)


@pytest.fixture(scope="session")
def embedded_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("embedded") / "dist"
    build(BuildConfig(EMBEDDED, out))
    return out


@pytest.fixture(scope="session")
def resolver(embedded_build: Path) -> Resolver:
    """The front door's Python resolver over the embedded build's files."""
    def fetch(path: str) -> bytes | None:
        found = embedded_build / path.lstrip("/")
        return found.read_bytes() if found.is_file() else None

    return Resolver(json.loads((embedded_build / QUERY_SPACE_FILE.lstrip("/")).read_text()), fetch)


@pytest.fixture(scope="session")
def real_import_result(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ImportResult]:
    """Every real file in ../shared/data imported into one canonical folder (``import auto``), once a run: the
    folder and what the import reported."""
    if not SHARED_DATA.exists():
        pytest.skip("needs ../shared/data")
    from generator.importers import import_files

    into = tmp_path_factory.mktemp("real") / "canonical"
    return into, import_files("auto", [SHARED_DATA], into, lambda _: None)


@pytest.fixture(scope="session")
def real_import(real_import_result: tuple[Path, ImportResult]) -> Path:
    return real_import_result[0]


@pytest.fixture(scope="session")
def tiny_site(tiny_build: Path) -> Iterator[Served]:
    yield from _serve(tiny_build)


@pytest.fixture(scope="session")
def site(embedded_build: Path) -> Iterator[Served]:
    """The embedded dataset, built and served (rewrite rules only)."""
    yield from _serve(embedded_build)


@pytest.fixture(scope="session")
def front_site(embedded_build: Path) -> Iterator[Served]:
    """The embedded dataset, built and served with the query front door (``serve``'s default)."""
    yield from _serve(embedded_build, rewrite_only=False)


@pytest.fixture(scope="session")
def plain_http(embedded_build: Path) -> Iterator[str]:
    """``python -m http.server`` over the build on 127.0.0.1: a host that runs no code and has no rewrites."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port), "--directory",
                               str(embedded_build)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=20)
