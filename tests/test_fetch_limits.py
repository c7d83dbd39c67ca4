"""The limits on every request (generator/fetch/body.py): a body's size on the wire and once decompressed, and a
deadline per request, against the fixture server (tests/sec_fixture.py) serving a gzip bomb, a body larger than
it may be and a server that drips its answer a byte at a time. Each fails its URL in one line that names the
limit, the run keeps nothing, and nothing is retried."""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.fetch.client import DEADLINE, MAX_BODY, USER_AGENT_ENV
from generator.fetch.run import FetchConfig, FetchResult, fetch
from generator.fetch.store import STAGING
from tests.conftest import SHARED_DATA
from tests.sec_fixture import Fault, SecServer, sec_tree

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
AGENT = "Fixture Tests fetch-tests@example.com"
TICKERS = "/files/company_tickers.json"
EXCHANGE = "/files/company_tickers_exchange.json"
MIB = 1 << 20


def gzip_bomb(gib: int = 1) -> bytes:
    """About 1 MB of gzip that decompresses to ``gib`` GiB of zeros: 1 MiB of zeros compressed once (about 1 kB),
    repeated as the members of one gzip body (what ``gzip.decompress`` reads as one)."""
    member = gzip.compress(b"\0" * MIB, compresslevel=9, mtime=0)
    return member * (1024 * gib)


@pytest.fixture
def sec(tmp_path: Path) -> SecServer:
    with SecServer(sec_tree(tmp_path / "sec", SHARED_DATA / "edgar", [], tickers=50)) as server:
        yield server


def run(server: SecServer, raw: Path, **options: object) -> FetchResult:
    options.setdefault("sleep", lambda _: None)
    config = FetchConfig(["edgar-tickers"], raw, AGENT, base_urls=[server.base], backoff=0.5,
                         **options)  # type: ignore[arg-type]
    return fetch(config, stream=None)


def test_the_defaults() -> None:
    config = FetchConfig(["edgar"], Path("raw"))
    assert (config.max_body, config.deadline) == (MAX_BODY, DEADLINE) == (256 * MIB, 60.0)


@pytest.mark.parametrize("bomb", ["members", "one stream"])
def test_a_gzip_bomb_is_refused_under_the_cap_with_memory_bounded(sec: SecServer, tmp_path: Path, bomb: str) -> None:
    body = gzip_bomb() if bomb == "members" else gzip.compress(b"\0" * 64 * MIB, compresslevel=9, mtime=0)
    assert len(body) < 1_100_000
    sec.faults[TICKERS] += [Fault(200, body=body, content_type="application/json", encoding="gzip")]
    raw, cap = tmp_path / "raw", 8 * MIB
    tracemalloc.start()
    try:
        result = run(sec, raw, max_body=cap)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.failures == [f"{sec.base}{TICKERS}: body over 8,388,608 bytes (8 MiB) once decompressed, the most "
                               "a response may have (--max-body-mib)"]
    print(f"{bomb}: {len(body):,} bytes of gzip, {peak:,} bytes at the peak under a cap of {cap:,}")
    assert peak < 3 * cap, f"{peak:,} bytes held at the peak"  # the cap, a decompression step, the rest of the run
    assert sec.paths().count(TICKERS) == 1 and result.retried == []  # the same URL would answer the same way
    assert result.run is None and not (raw / STAGING).exists() and not any(raw.glob("2*"))


def test_a_body_announced_over_the_cap_is_refused_before_it_is_read(sec: SecServer, tmp_path: Path) -> None:
    sec.faults[TICKERS] += [Fault(200, body=b"{" + b" " * (3 * MIB) + b"}", content_type="application/json")]
    result = run(sec, tmp_path / "raw", max_body=MIB)
    assert result.failures == [f"{sec.base}{TICKERS}: body of 3,145,730 bytes announced (Content-Length): over "
                               "1,048,576 bytes (1 MiB), the most a response may have (--max-body-mib)"]
    assert sec.paths().count(TICKERS) == 1 and result.run is None


def test_a_server_that_drips_its_answer_is_cut_off_at_the_deadline(sec: SecServer, tmp_path: Path) -> None:
    """One byte every 0.2 s: the socket's 30-second read timeout never fires; the 1.5-second deadline does."""
    sec.faults[TICKERS] += [Fault(drip=0.2)]
    raw = tmp_path / "raw"
    started = time.monotonic()
    result = run(sec, raw, deadline=1.5)
    took = time.monotonic() - started
    assert result.failures == [f"{sec.base}{TICKERS}: no complete answer within 1.5 s, the most a request may take "
                               "(--deadline)"]
    assert 1.5 <= took < 5, took  # the deadline and the other list's request, not the 30 s timeout or a retry
    assert sec.paths().count(TICKERS) == 1 and result.retried == []
    assert result.run is None and not (raw / STAGING).exists()
    assert sec.paths(200).count(EXCHANGE) == 1  # the next request got a connection of its own and its answer


def test_deflate_and_gzip_of_several_members_are_decoded(sec: SecServer, tmp_path: Path) -> None:
    tickers = (sec.root / TICKERS.lstrip("/")).read_bytes()
    exchange = (sec.root / EXCHANGE.lstrip("/")).read_bytes()
    half = len(exchange) // 2
    sec.faults[TICKERS] += [Fault(200, body=zlib.compress(tickers), content_type="application/json",
                                  encoding="deflate")]
    sec.faults[EXCHANGE] += [Fault(200, body=gzip.compress(exchange[:half]) + gzip.compress(exchange[half:]),
                                   content_type="application/json", encoding="gzip")]
    result = run(sec, tmp_path / "raw")
    assert result.failures == [] and result.run is not None
    assert (result.run / f"www.sec.gov{TICKERS}").read_bytes() == tickers
    assert (result.run / f"www.sec.gov{EXCHANGE}").read_bytes() == exchange
    # a gzip body that stops before its end is a broken download, retried like a cut one
    sec.faults[TICKERS] += [Fault(200, body=gzip.compress(tickers)[:-40], content_type="application/json",
                                  encoding="gzip")]
    again = run(sec, tmp_path / "other")
    assert again.run is not None and [r.reason for r in again.retried] == [
        "broken compressed body (compressed body ends before its end)"]


def test_a_chunked_answer_is_read_and_one_cut_mid_chunk_retried(sec: SecServer, tmp_path: Path) -> None:
    """No ``Content-Length``, as a front end such as Nasdaq's may answer: the end is the last chunk."""
    sec.faults[TICKERS] += [Fault(chunked=True, short=True), Fault(chunked=True)]
    result = run(sec, tmp_path / "raw", max_body=MIB)
    assert result.failures == [] and result.run is not None
    assert [r.reason.split(" (")[0] for r in result.retried] == ["body cut short"]
    assert (result.run / f"www.sec.gov{TICKERS}").read_bytes() == (sec.root / TICKERS.lstrip("/")).read_bytes()
    sec.faults[TICKERS] += [Fault(chunked=True)]
    small = run(sec, tmp_path / "other", max_body=1024)  # no length announced: refused as it decompresses
    assert small.failures[0] == (f"{sec.base}{TICKERS}: body over 1,024 bytes once decompressed, the most a response "
                                 "may have (--max-body-mib)")


def test_the_limits_are_options_of_the_command(sec: SecServer, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(USER_AGENT_ENV[0], AGENT)
    sec.faults[TICKERS] += [Fault(200, body=gzip_bomb(), content_type="application/json", encoding="gzip")]
    sec.faults[EXCHANGE] += [Fault(drip=0.2)]
    raw = tmp_path / "raw"
    result = CliRunner().invoke(main, ["fetch", "edgar-tickers", "--into", str(raw), "--base-url", sec.base,
                                       "--max-body-mib", "4", "--deadline", "1", "--quiet"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith("fetch failed: ")] == [
        f"fetch failed: {sec.base}{TICKERS}: body over 4,194,304 bytes (4 MiB) once decompressed, the most a "
        "response may have (--max-body-mib)",
        f"fetch failed: {sec.base}{EXCHANGE}: no complete answer within 1 s, the most a request may take "
        "(--deadline)"]
    assert json.loads((sec.root / TICKERS.lstrip("/")).read_bytes()) and not any(raw.glob("2*"))
