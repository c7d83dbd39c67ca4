"""``fetch nasdaq-calendar`` against the fixture server (tests/sec_fixture.py) serving the monthly calendar answers of
tests/fixtures/nasdaq-calendar in Nasdaq's URL layout, the way its API serves them (no validators; a client
that does not look like a browser refused), with the faults a real night meets; and ``fetch nasdaq`` (the calendar
and the stock screener) with EDGAR's sources from one server, imported and built. Nothing here reaches Nasdaq."""

from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.fetch.client import USER_AGENT_ENV
from generator.fetch.run import FetchConfig, FetchResult, fetch
from generator.fetch.sources import calendar_months
from generator.fetch.store import MANIFEST, STAGING
from generator.importers import plan
from tests.conftest import SHARED_DATA, without_places
from tests.nasdaq_fixture import (
    BROWSER,
    FIXTURES,
    HTML_PAGE,
    MONTHS,
    calendar_tree,
    empty_month,
    error_answer,
    fixture_months,
    screener_answers,
    screener_tree,
)
from tests.sec_fixture import Fault, SecServer, index_path, sec_tree

AGENT = "Fixture Tests fetch-tests@example.com"
BROWSER_AGENT = f"Mozilla/5.0 (compatible; {AGENT})"
CALENDAR = "/api/ipo/calendar"
LOCAL = "api.nasdaq.com/api/ipo/calendar"
SEPT_11 = dt.datetime(2025, 9, 11, 3, 17, tzinfo=dt.UTC)
"""The first night: September's calendar as it stood that day (ten deals still upcoming)."""


def ask(month: str) -> str:
    return f"{CALENDAR}?date={month}"


@pytest.fixture
def nasdaq(tmp_path: Path) -> SecServer:
    root = calendar_tree(tmp_path / "site", fixture_months(early=True))
    with SecServer(root, browser=BROWSER) as server:
        yield server


def run(server: SecServer, raw: Path, when: dt.datetime, *, since: dt.date | None = None,
        sleeps: list[float] | None = None, **options: object) -> FetchResult:
    """A fetch of the Nasdaq calendar from the fixture server on the night ``when``; retries wait only in
    ``sleeps``."""
    config = FetchConfig(["nasdaq-calendar"], raw, AGENT, since=since, base_urls=[server.base], backoff=0.5,
                         now=lambda: when, sleep=sleeps.append if sleeps is not None else lambda _: None,
                         **options)  # type: ignore[arg-type]
    return fetch(config, stream=None)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def serve(server: SecServer, month: str, body: bytes) -> None:
    (server.root / CALENDAR.lstrip("/") / f"date={month}").write_bytes(body)


def test_a_first_run_lands_every_month_verified_with_its_manifest(nasdaq: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    result = run(nasdaq, raw, SEPT_11, since=dt.date(2025, 7, 1))
    assert result.failures == [] and result.run is not None
    files = tree(result.run)
    assert set(files) == {MANIFEST} | {f"{LOCAL}/{month}.json" for month in MONTHS}
    for month in MONTHS:
        assert files[f"{LOCAL}/{month}.json"] == (nasdaq.root / CALENDAR.lstrip("/") / f"date={month}").read_bytes()
    assert nasdaq.paths() == [ask(month) for month in MONTHS]
    # a browser-like User-Agent that still names the operator, JSON asked for, gzip on the wire
    assert all(h.agent == BROWSER_AGENT and "application/json" in h.accept and h.gzip for h in nasdaq.hits)
    entries = json.loads(files[MANIFEST])["entries"]
    assert [(e["url"].removeprefix(nasdaq.base), e["source"], e["status"]) for e in entries] == [
        (ask(month), "nasdaq-calendar", 200) for month in MONTHS]
    for entry in entries:
        body = (raw / entry["path"]).read_bytes()
        assert entry["bytes"] == len(body) and entry["sha256"] == hashlib.sha256(body).hexdigest()
        assert entry["etag"] == "" and entry["time"] == "2025-09-11T03:17:00Z"  # Nasdaq sends no validators
    # without --since a first run asks for the previous and the current month
    nasdaq.hits.clear()
    assert run(nasdaq, tmp_path / "other", SEPT_11).run is not None
    assert nasdaq.paths() == [ask("2025-08"), ask("2025-09")]


def test_the_server_refuses_a_client_that_does_not_look_like_a_browser(nasdaq: SecServer) -> None:
    """The fixture's check can fail: the operator's own User-Agent, or no Accept, is refused as Nasdaq's front
    end refuses it."""
    for headers in ({"User-Agent": AGENT, "Accept": "application/json"}, {"User-Agent": BROWSER_AGENT}):
        connection = http.client.HTTPConnection(nasdaq.base.removeprefix("http://"))
        connection.request("GET", ask("2025-07"), headers=headers)
        assert connection.getresponse().status == 403
        connection.close()


def test_each_night_asks_the_current_month_again_and_keeps_only_what_changed(nasdaq: SecServer,
                                                                            tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    first = run(nasdaq, raw, SEPT_11, since=dt.date(2025, 7, 1))
    assert first.run is not None

    def night(when: dt.datetime) -> tuple[FetchResult, list[tuple[str, int]], set[str]]:
        nasdaq.hits.clear()
        result = run(nasdaq, raw, when)
        assert result.failures == [] and result.run is not None
        return result, [(h.path, h.status) for h in nasdaq.hits], set(tree(result.run)) - {MANIFEST}

    # the same night again: only the current month is asked; its answer is the same bytes, so nothing is kept
    again, asked, kept = night(SEPT_11 + dt.timedelta(hours=1))
    assert asked == [(ask("2025-09"), 200)] and kept == set()
    assert again.total.downloaded == 0 and again.total.not_modified == 1
    entry = json.loads((again.run / MANIFEST).read_text())["entries"][0]
    assert entry["status"] == 200 and entry["path"] == f"{first.run.name}/{LOCAL}/2025-09.json"
    # a week later September has changed (its upcoming deals priced, one withdrawn): only it lands again
    serve(nasdaq, "2025-09", (FIXTURES / "2025-09.json").read_bytes())
    _, asked, kept = night(dt.datetime(2025, 9, 18, 3, 17, tzinfo=dt.UTC))
    assert asked == [(ask("2025-09"), 200)] and kept == {f"{LOCAL}/2025-09.json"}
    # October: September is asked again until a night 7 days past its end; then only October
    serve(nasdaq, "2025-10", empty_month("2025-10", dt.date(2025, 10, 1)))
    october = [(ask("2025-09"), 200), (ask("2025-10"), 200)]
    _, asked, kept = night(dt.datetime(2025, 10, 1, 3, 17, tzinfo=dt.UTC))
    assert asked == october and kept == {f"{LOCAL}/2025-10.json"}
    assert night(dt.datetime(2025, 10, 7, 3, 17, tzinfo=dt.UTC))[1] == october
    assert night(dt.datetime(2025, 10, 8, 3, 17, tzinfo=dt.UTC))[1] == october
    assert night(dt.datetime(2025, 10, 9, 3, 17, tzinfo=dt.UTC))[1] == [(ask("2025-10"), 200)]
    # import reads the newest download of each month, in month order
    steps, unknown = plan("auto", [raw])
    assert [(name, str(path.relative_to(raw)).split("/", 1)[1]) for name, path in steps] == [
        ("nasdaq-calendar", f"{LOCAL}/{month}.json") for month in (*MONTHS, "2025-10")]
    assert (steps[2][1].read_bytes() == (FIXTURES / "2025-09.json").read_bytes()
            and {p.name for p in unknown} == {MANIFEST})


def test_the_months_a_night_asks_for() -> None:
    july, august, sept = dt.date(2025, 7, 1), dt.date(2025, 8, 1), dt.date(2025, 9, 1)
    assert calendar_months({}, None, dt.date(2026, 1, 5)) == [dt.date(2025, 12, 1), dt.date(2026, 1, 1)]
    assert calendar_months({}, dt.date(2025, 11, 20), dt.date(2026, 1, 5)) == [
        dt.date(2025, 11, 1), dt.date(2025, 12, 1), dt.date(2026, 1, 1)]
    held = {july: "2025-08-08T00:00:00Z", august: "2025-08-30T00:00:00Z"}
    assert calendar_months(held, None, dt.date(2025, 9, 2)) == [august, sept]  # August asked before its end
    assert calendar_months(held, None, dt.date(2025, 8, 31)) == [august]  # --until: no month after it


def test_retries_honour_retry_after_and_back_off(nasdaq: SecServer, tmp_path: Path) -> None:
    nasdaq.faults[ask("2025-08")] += [Fault(429, retry_after="7"), Fault(503), Fault(short=True)]
    sleeps: list[float] = []
    result = run(nasdaq, tmp_path / "raw", SEPT_11, since=dt.date(2025, 8, 1), sleeps=sleeps)
    assert result.failures == [] and result.run is not None
    assert [(r.url.removeprefix(nasdaq.base), r.reason.split(" (")[0], r.wait) for r in result.retried] == [
        (ask("2025-08"), "HTTP 429", 7.0), (ask("2025-08"), "HTTP 503", 1.0), (ask("2025-08"), "body cut short", 2.0)]
    assert sleeps == [7.0, 1.0, 2.0] and nasdaq.paths().count(ask("2025-08")) == 4
    assert (result.run / LOCAL / "2025-08.json").read_bytes() == (FIXTURES / "2025-08.json").read_bytes()
    assert result.tallies["nasdaq-calendar"].requests == 5


def test_an_answer_that_is_not_a_calendar_fails_naming_its_url(nasdaq: SecServer, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    raw = tmp_path / "raw"
    assert run(nasdaq, raw, SEPT_11).run is not None
    before = tree(raw)
    # the next night every month is asked again (--since) and each answer is wrong in its own way (a row that cannot
    # be read is not: the importer skips and reports it, as it would from a file)
    broken = json.loads((FIXTURES / "2025-09.json").read_bytes())
    broken["data"].pop("withdrawn")
    nasdaq.faults[ask("2025-07")] += [Fault(200, body=HTML_PAGE)]
    nasdaq.faults[ask("2025-08")] += [Fault(200, body=error_answer(), content_type="application/json")]
    nasdaq.faults[ask("2025-09")] += [Fault(200, body=json.dumps(broken).encode(), content_type="application/json")]
    monkeypatch.setenv(USER_AGENT_ENV[0], AGENT)
    result = CliRunner().invoke(main, ["fetch", "nasdaq-calendar", "--into", str(raw), "--since", "2025-07", "--until",
                                       "2025-09-12", "--base-url", nasdaq.base])
    assert result.exit_code == 1
    failed = [line for line in result.output.splitlines() if line.startswith("fetch failed: ")]
    assert [line.split(" (")[0] for line in failed] == [
        f"fetch failed: {nasdaq.base}{ask('2025-07')}: not a calendar: an HTML page",
        f"fetch failed: {nasdaq.base}{ask('2025-08')}: no calendar in the answer: data is null",
        f"fetch failed: {nasdaq.base}{ask('2025-09')}: data: expected the tables priced, upcoming, filed and "
        "withdrawn"]
    assert failed[1].endswith("(status rCode 400: Invalid date)")
    assert f"{raw} is as the last good run left it" in result.output
    assert tree(raw) == before and not (raw / STAGING).exists()


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
def test_fetch_import_check_build_equals_importing_the_same_files_from_disk(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The two nightly fetches (EDGAR's 2020-01-03 index and lists, Nasdaq's three fixture months and the stock
    screener) from one server, imported, checked and built, against the same files copied into a folder and
    imported from there."""
    day = dt.date(2020, 1, 3)
    root = calendar_tree(sec_tree(tmp_path / "site", SHARED_DATA / "edgar", [day], tickers=300, every=10),
                         fixture_months())
    screener_tree(root, screener_answers(SHARED_DATA, rows=40))
    runner = CliRunner()
    monkeypatch.setenv(USER_AGENT_ENV[0], AGENT)
    raw, disk = tmp_path / "raw", tmp_path / "disk"
    with SecServer(root, browser=BROWSER) as server:
        monkeypatch.setenv("COMPANY_IPO_API_BASE_URL", server.base)
        steps = [["fetch", "edgar", "--into", str(raw), "--since", "2020-01-03", "--until", "2020-01-03", "--quiet"],
                 ["fetch", "nasdaq", "--into", str(raw), "--since", "2025-07", "--until", "2025-09-18", "--quiet"],
                 ["import", "auto", str(raw), "--into", str(tmp_path / "fetched"), "--quiet"],
                 ["check", "--data", str(tmp_path / "fetched")],
                 ["build", "--data", str(tmp_path / "fetched"), "--out", str(tmp_path / "dist-fetched"), "--quiet",
                  "--workers", "0"]]
        for args in steps:
            result = runner.invoke(main, args)
            assert result.exit_code == 0, (args, result.output)
    disk.mkdir()
    for path in ("files/company_tickers.json", "files/company_tickers_exchange.json", index_path(day)):
        shutil.copy(root / path, disk)
    for month in MONTHS:
        shutil.copy(FIXTURES / f"{month}.json", disk / f"nasdaq-ipo-calendar-{month}.json")
    for document in raw.glob("*/data.sec.gov/submissions/*.json"):  # the companies' former names, as fetched
        shutil.copy(document, disk)
    for answer in raw.glob("*/api.nasdaq.com/api/screener/stocks/*.json"):  # dated by the run's folder
        (disk / answer.parts[-6]).mkdir(exist_ok=True)
        shutil.copy(answer, disk / answer.parts[-6] / f"nasdaq_screener_{answer.stem}.json")
    for args in (["import", "auto", str(disk), "--into", str(tmp_path / "local"), "--quiet"],
                 ["build", "--data", str(tmp_path / "local"), "--out", str(tmp_path / "dist-local"), "--quiet",
                  "--workers", "0"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
    canonical = tree(tmp_path / "fetched")
    provenance = canonical["provenance.csv"].decode()
    assert without_places(canonical) == without_places(tree(tmp_path / "local"))
    assert "nasdaq-calendar" in provenance and "nasdaq-screener" in provenance
    built = {name: body for name, body in tree(tmp_path / "dist-fetched").items() if not name.startswith(".")}
    assert without_places(built) == without_places(
        {name: body for name, body in tree(tmp_path / "dist-local").items() if not name.startswith(".")})
    statuses = {line.split(",")[2] for line in canonical["ipos.csv"].decode().splitlines()[1:]}
    assert statuses == {"listed", "filed", "withdrawn"} and any(name.startswith("api/ipos") for name in built)
