"""The fetcher against a fixture server on 127.0.0.1 (tests/sec_fixture.py) that serves the real EDGAR files of
../shared/data in the SEC's URL layout and injects the faults a real night meets. Nothing here reaches the SEC."""

from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.fetch.client import USER_AGENT_ENV, FetchError, RateLimiter
from generator.fetch.progress import Progress, Tally
from generator.fetch.run import FetchConfig, FetchResult, fetch
from generator.fetch.store import MANIFEST, STAGING
from generator.importers import plan
from tests.conftest import SHARED_DATA, without_places
from tests.sec_fixture import Fault, SecServer, index_path, sec_tree

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
EDGAR = SHARED_DATA / "edgar"
AGENT = "Fixture Tests fetch-tests@example.com"
DAY = dt.date(2020, 1, 3)
"""The day of the real daily index (a Friday; 2020-01-01 was a holiday)."""
HOLIDAY = "/" + index_path(dt.date(2020, 1, 1))
TICKERS = "/files/company_tickers.json"
EXCHANGE = "/files/company_tickers_exchange.json"


@pytest.fixture
def sec(tmp_path: Path) -> SecServer:
    root = sec_tree(tmp_path / "sec", EDGAR, [DAY], tickers=300, every=10)
    with SecServer(root, forbidden={HOLIDAY}) as server:
        yield server


def run(server: SecServer, raw: Path, *, since: dt.date | None = dt.date(2019, 12, 28), until: dt.date = DAY,
        sleeps: list[float] | None = None, **options: object) -> FetchResult:
    """A fetch of every EDGAR source from the fixture server; retries wait only in ``sleeps``."""
    options.setdefault("sleep", sleeps.append if sleeps is not None else lambda _: None)
    config = FetchConfig(["edgar"], raw, AGENT, since=since, until=until, base_urls=[server.base], backoff=0.5,
                         **options)  # type: ignore[arg-type]
    return fetch(config, stream=None)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def subsequence(wanted: list[float], waits: list[float]) -> bool:
    rest = iter(waits)
    return all(any(w == want for w in rest) for want in wanted)


def ipo_filers(index: bytes) -> set[str]:
    """CIKs of the index's registration and IPO filings, read here independently of the importer."""
    rows = [line.split("|") for line in index.decode("latin-1").splitlines()]
    forms = {"S-1", "S-1/A", "F-1", "F-1/A", "DRS", "424B4", "424B1", "RW"}
    return {f"CIK{int(r[0]):010d}.json" for r in rows if len(r) == 5 and r[2] in forms}


def test_a_run_lands_verified_files_under_a_dated_folder_with_its_manifest(sec: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    result = run(sec, raw)
    assert result.failures == [] and result.run is not None
    files = tree(result.run)
    index = sec.root / index_path(DAY)
    expected = {f"www.sec.gov{TICKERS}", f"www.sec.gov{EXCHANGE}", f"www.sec.gov/{index_path(DAY)}", MANIFEST}
    expected |= {f"data.sec.gov/submissions/{name}" for name in ipo_filers(index.read_bytes())}
    assert set(files) == expected and len(expected) > 8
    for name, body in files.items():
        if name != MANIFEST:
            assert body == (sec.root / name.split("/", 1)[1]).read_bytes(), name
    # business days only (28 and 29 December 2019 were a weekend); a day without an index is not a failure
    asked = [p for p in sec.paths() if "daily-index" in p]
    assert asked == ["/" + index_path(dt.date(2019, 12, d)) for d in (30, 31)] + [
        "/" + index_path(dt.date(2020, 1, d)) for d in (1, 2, 3)]
    manifest = json.loads(files[MANIFEST])
    statuses = {e["url"].removeprefix(sec.base): e["status"] for e in manifest["entries"]}
    assert statuses[HOLIDAY] == 403 and statuses["/" + index_path(dt.date(2020, 1, 2))] == 404
    assert result.tallies["edgar-daily-index"].absent == 4
    for entry in manifest["entries"]:
        if entry["status"] == 200:
            body = (raw / entry["path"]).read_bytes()
            assert entry["bytes"] == len(body) and entry["sha256"] == hashlib.sha256(body).hexdigest()
            assert entry["etag"] and entry["time"].endswith("Z")
    assert all(hit.agent == AGENT for hit in sec.hits) and all(hit.gzip for hit in sec.hits if hit.status == 200)


def test_a_second_run_downloads_nothing_and_a_changed_file_lands_in_a_new_run(sec: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    first = run(sec, raw)
    sec.hits.clear()
    second = run(sec, raw, since=None)  # from the day after the newest index the raw folder has: none
    assert second.failures == [] and second.total.downloaded == 0 and second.run is not None
    assert [(h.path, h.status, h.conditional) for h in sec.hits] == [
        (TICKERS, 304, True), (EXCHANGE, 304, True)]
    assert set(tree(second.run)) == {MANIFEST}
    # the next day: only that day's index is asked for; the list whose ETag changed is downloaded again
    listing = json.loads((sec.root / TICKERS.lstrip("/")).read_bytes())
    listing.pop("0")
    (sec.root / TICKERS.lstrip("/")).write_text(json.dumps(listing), encoding="utf-8")
    sec.hits.clear()
    third = run(sec, raw, since=None, until=dt.date(2020, 1, 6))
    assert [(h.path, h.status) for h in sec.hits] == [
        (TICKERS, 200), (EXCHANGE, 304), ("/" + index_path(dt.date(2020, 1, 6)), 404)]
    assert third.run is not None and set(tree(third.run)) == {MANIFEST, f"www.sec.gov{TICKERS}"}
    # import reads the newest download of each file: the lists, the submissions documents (former names), the index;
    # no manifest
    steps, unknown = plan("auto", [raw])
    submissions = sorted(f.name for f in (first.run / "data.sec.gov").rglob("*.json"))
    assert submissions and [(name, path.relative_to(raw).parts[0]) for name, path in steps] == [
        ("edgar", third.run.name), *[("edgar", first.run.name)] * (len(submissions) + 2)]
    assert [p.name for _, p in steps] == ["company_tickers.json", "company_tickers_exchange.json", *submissions,
                                          f"master.{DAY:%Y%m%d}.idx"]
    assert {p.name for p in unknown} == {MANIFEST}


def test_retries_honour_retry_after_and_back_off(sec: SecServer, tmp_path: Path) -> None:
    sec.faults[TICKERS] += [Fault(429, retry_after="7"), Fault(503), Fault(short=True)]
    sec.faults[EXCHANGE] += [Fault(503, retry_after="2")]
    sleeps: list[float] = []
    result = run(sec, tmp_path / "raw", sleeps=sleeps)
    assert result.failures == [] and result.run is not None
    assert [(r.url.removeprefix(sec.base), r.reason.split(" (")[0], r.wait) for r in result.retried] == [
        (TICKERS, "HTTP 429", 7.0), (TICKERS, "HTTP 503", 1.0), (TICKERS, "body cut short", 2.0),
        (EXCHANGE, "HTTP 503", 2.0)]
    assert subsequence([7.0, 1.0, 2.0, 2.0], sleeps)  # waited out (between the rate limiter's own waits)
    assert sec.paths().count(TICKERS) == 4 and sec.paths().count(EXCHANGE) == 2
    kept = result.run / "www.sec.gov" / TICKERS.lstrip("/")
    assert kept.read_bytes() == (sec.root / TICKERS.lstrip("/")).read_bytes()
    assert result.tallies["edgar-tickers"].requests == 6


def test_a_failed_run_keeps_the_last_good_state_and_names_each_failed_url(sec: SecServer, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    raw = tmp_path / "raw"
    assert run(sec, raw).run is not None
    before = tree(raw)
    # the next night: one list comes back broken, one asks for a longer wait than a run makes, one day is gone
    (sec.root / TICKERS.lstrip("/")).write_text('{"0": {"cik_str": 1', encoding="utf-8")
    sec.faults[EXCHANGE] += [Fault(429, retry_after="86400")]
    sec.faults["/" + index_path(dt.date(2020, 1, 6))] += [Fault(410)]
    (sec.root / index_path(dt.date(2020, 1, 7))).write_bytes((sec.root / index_path(DAY)).read_bytes())
    monkeypatch.setenv(USER_AGENT_ENV[1], AGENT)
    result = CliRunner().invoke(main, ["fetch", "edgar", "--into", str(raw), "--until", "2020-01-07",
                                       "--base-url", sec.base])
    assert result.exit_code == 1
    failed = [line for line in result.output.splitlines() if line.startswith("fetch failed: ")]
    assert len(failed) == 3 and failed[1:] == [
        f"fetch failed: {sec.base}{EXCHANGE}: HTTP 429 with Retry-After 86400 s, longer than this run waits "
        "(120 s)",
        f"fetch failed: {sec.base}/{index_path(dt.date(2020, 1, 6))}: HTTP 410"]
    assert failed[0].startswith(f"fetch failed: {sec.base}{TICKERS}: line 1: ") and "malformed JSON" in failed[0]
    assert f"{raw} is as the last good run left it" in result.output
    assert tree(raw) == before and not (raw / STAGING).exists()
    assert (sec.root / index_path(dt.date(2020, 1, 7))).exists() and "/" + index_path(dt.date(2020, 1, 7)) in \
        sec.paths(200)  # it was downloaded, then dropped with the rest of the run


def test_a_killed_run_leaves_nothing_import_reads_and_the_next_run_clears_it(sec: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    good = run(sec, raw)
    assert good.run is not None
    half = raw / STAGING / "2030-01-01T000000Z" / "www.sec.gov" / "files" / "company_tickers.json"
    half.parent.mkdir(parents=True)
    half.write_bytes((sec.root / TICKERS.lstrip("/")).read_bytes()[:1000])
    steps, _ = plan("auto", [raw])
    submissions = list((good.run / "data.sec.gov").rglob("*.json"))
    assert all(STAGING not in str(path) for _, path in steps) and len(steps) == 3 + len(submissions)
    assert run(sec, raw, since=None).run is not None and not (raw / STAGING).exists()


def test_retries_are_spent_then_the_url_fails(sec: SecServer, tmp_path: Path) -> None:
    sec.faults[TICKERS] += [Fault(short=True)] * 3
    sleeps: list[float] = []
    result = run(sec, tmp_path / "raw", sleeps=sleeps, retries=2)
    assert result.run is None and not (tmp_path / "raw" / STAGING).exists()
    assert len(result.failures) == 1 and result.failures[0].startswith(f"{sec.base}{TICKERS}: body cut short (")
    assert result.failures[0].endswith("(gave up after 3 attempts)")
    assert [r.wait for r in result.retried] == [0.5, 1.0] and subsequence([0.5, 1.0], sleeps)


def _most_in_any_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t < start + window) for i, start in enumerate(times))


class FakeClock:
    """Time that passes only when the client sleeps: what the server counts depends on the limiter alone, not on
    how busy the machine is."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)


def test_the_rate_limit_holds_at_the_server(sec: SecServer, tmp_path: Path) -> None:
    """At most ``rate`` requests arrive in any window (here 4 in 0.5 s; the SEC's is 10 in 1 s), counted by the
    server on the client's clock; a faster client is seen as faster by the same count (the check can fail)."""
    clock = FakeClock()
    sec.clock = clock
    slow = run(sec, tmp_path / "slow", rate=8, window=0.5, sleep=clock.sleep, clock=clock)
    assert slow.run is not None and len(sec.hits) >= 12
    arrived = [hit.time for hit in sec.hits]
    assert _most_in_any_window(arrived, 0.5) <= 4
    assert arrived[-1] - arrived[0] >= (len(arrived) // 4 - 1) * 0.5
    sec.hits.clear()
    fast = run(sec, tmp_path / "fast", rate=10, window=1.0, sleep=clock.sleep, clock=clock)
    assert fast.run is not None and _most_in_any_window([hit.time for hit in sec.hits], 0.5) > 4


def test_the_limiter_spaces_requests_on_its_clock() -> None:
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(round(seconds, 6))
        now[0] += seconds

    limiter = RateLimiter(10, clock=lambda: now[0], sleep=sleep)
    for _ in range(25):
        limiter.wait()
    assert waits == [1.0, 1.0]  # the 11th and the 21st request wait for the first of their ten to be a second old
    slow = RateLimiter(0.5, clock=lambda: now[0], sleep=sleep)
    slow.wait()
    slow.wait()
    assert waits[-1] == 2.0
    with pytest.raises(FetchError, match="at most 10"):
        RateLimiter(11)


def test_no_request_without_a_user_agent_that_names_its_operator(sec: SecServer, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    connection = http.client.HTTPConnection(sec.base.removeprefix("http://"))
    connection.putrequest("GET", TICKERS, skip_accept_encoding=True)
    connection.endheaders()
    assert connection.getresponse().status == 403  # the server refuses an undeclared tool, as the SEC does
    connection.close()
    sec.hits.clear()
    for name in USER_AGENT_ENV:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(FetchError, match="no User-Agent"):
        fetch(FetchConfig(["edgar"], tmp_path / "raw", None, base_urls=[sec.base]), stream=None)
    with pytest.raises(FetchError, match="does not name its operator"):
        fetch(FetchConfig(["edgar"], tmp_path / "raw", "python-requests/2.31", base_urls=[sec.base]), stream=None)
    result = CliRunner().invoke(main, ["fetch", "edgar", "--into", str(tmp_path / "raw"), "--base-url", sec.base])
    assert result.exit_code == 1 and "no User-Agent" in result.output
    assert sec.hits == [] and not (tmp_path / "raw").exists()
    monkeypatch.setenv("SEC_USER_AGENT", AGENT)
    result = CliRunner().invoke(main, ["fetch", "edgar-tickers", "--into", str(tmp_path / "raw"), "--base-url",
                                       f"www.sec.gov={sec.base}", "--quiet"])
    assert result.exit_code == 0, result.output
    assert [(h.path, h.agent) for h in sec.hits] == [(TICKERS, AGENT), (EXCHANGE, AGENT)]


def test_progress_is_a_bar_on_a_terminal_and_one_line_per_source_otherwise() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, bar in ((io.StringIO(), False), (Terminal(), True)):
        ticks = iter(range(100))
        progress = Progress(stream, clock=lambda ticks=ticks: float(next(ticks)))
        progress.start("edgar-daily-index", 4)
        for done in range(1, 5):
            progress.step(Tally(requests=done, downloaded=done, bytes=done * 500_000))
        progress.finish()
        text = stream.getvalue()
        assert text.endswith("edgar-daily-index: 4 requests: 4 downloaded, 0 not modified, 0 absent, 0 failed; "
                             "2,000,000 bytes in 5.0 s\n")
        assert ("[######......" in text and "1/4" in text and "s left" in text and "\r" in text) == bar
        assert (text.count("\n") == 1 and "\r" not in text) != bar


def test_fetch_import_check_build_equals_importing_the_same_files_from_disk(sec: SecServer, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    monkeypatch.setenv(USER_AGENT_ENV[0], AGENT)
    monkeypatch.setenv("COMPANY_IPO_API_BASE_URL", sec.base)
    raw, disk = tmp_path / "raw", tmp_path / "disk"
    steps = [["fetch", "edgar", "--into", str(raw), "--since", "2020-01-03", "--until", "2020-01-03", "--quiet"],
             ["import", "auto", str(raw), "--into", str(tmp_path / "fetched"), "--quiet"],
             ["check", "--data", str(tmp_path / "fetched")],
             ["build", "--data", str(tmp_path / "fetched"), "--out", str(tmp_path / "dist-fetched"), "--quiet",
              "--workers", "0"]]
    for args in steps:
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
    disk.mkdir()
    for path in (TICKERS, EXCHANGE, "/" + index_path(DAY)):
        shutil.copy(sec.root / path.lstrip("/"), disk)
    for document in (sec.root / "submissions").glob("*.json"):  # the companies' former names
        shutil.copy(document, disk)
    for args in (["import", "auto", str(disk), "--into", str(tmp_path / "local"), "--quiet"],
                 ["build", "--data", str(tmp_path / "local"), "--out", str(tmp_path / "dist-local"), "--quiet",
                  "--workers", "0"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
    canonical = tree(tmp_path / "fetched")
    assert without_places(canonical) == without_places(tree(tmp_path / "local")) and len(canonical) > 5
    built = {name: body for name, body in tree(tmp_path / "dist-fetched").items() if not name.startswith(".")}
    assert without_places(built) == without_places(
        {name: body for name, body in tree(tmp_path / "dist-local").items() if not name.startswith(".")})
    assert b"data.sec.gov/submissions/CIK" in canonical["provenance.csv"]  # the source's URL layout, no run date
    assert sum(name.startswith("api/filings/") for name in built) > 3
