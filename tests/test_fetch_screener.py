"""``fetch nasdaq-screener`` against the fixture server (tests/sec_fixture.py) answering Nasdaq's stock screener for
each exchange (tests/nasdaq_fixture.py derives the answers from the recorded CSV download of
../shared/data/nasdaq-screener), the way Nasdaq's API answers (no validators; a client that does not look like a
browser refused), with the faults a real night meets. Nothing here reaches Nasdaq."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from generator.fetch.run import FetchConfig, FetchResult, fetch
from generator.fetch.sources import ALIASES, EXCHANGES, SCREENER
from generator.fetch.store import MANIFEST, STAGING
from tests.conftest import SHARED_DATA
from tests.nasdaq_fixture import BROWSER, HTML_PAGE, error_answer, screener_answers, screener_query, screener_tree
from tests.sec_fixture import Fault, SecServer

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
AGENT = "Fixture Tests fetch-tests@example.com"
NIGHT = dt.datetime(2025, 5, 24, 3, 17, tzinfo=dt.UTC)
"""The night after the prices of the recorded download (the close of Friday 2025-05-23)."""
LOCAL = "api.nasdaq.com/api/screener/stocks"


def ask(exchange: str) -> str:
    return f"/api/screener/stocks?{screener_query(exchange)}"


@pytest.fixture
def nasdaq(tmp_path: Path) -> SecServer:
    with SecServer(screener_tree(tmp_path / "site", screener_answers(SHARED_DATA)), browser=BROWSER) as server:
        yield server


def run(server: SecServer, raw: Path, when: dt.datetime = NIGHT, **options: object) -> FetchResult:
    options.setdefault("sleep", lambda _: None)
    config = FetchConfig([SCREENER], raw, AGENT, base_urls=[server.base], backoff=0.5, now=lambda: when,
                         **options)  # type: ignore[arg-type]
    return fetch(config, stream=None)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def served(server: SecServer, exchange: str) -> Path:
    return server.root / "api/screener/stocks" / screener_query(exchange)


def test_the_screener_lands_once_per_exchange_with_browser_like_headers(nasdaq: SecServer, tmp_path: Path) -> None:
    assert SCREENER in ALIASES["nasdaq"] and EXCHANGES == ("nasdaq", "nyse", "amex")
    result = run(nasdaq, tmp_path / "raw")
    assert result.failures == [] and result.run is not None
    assert result.run.name == "2025-05-24T031700Z"  # the run's date is the import's date for these rows
    assert nasdaq.paths() == [ask(exchange) for exchange in EXCHANGES]
    assert all(h.agent == f"Mozilla/5.0 (compatible; {AGENT})" and "application/json" in h.accept and h.gzip
               for h in nasdaq.hits)
    files = tree(result.run)
    assert set(files) == {MANIFEST} | {f"{LOCAL}/{exchange}.json" for exchange in EXCHANGES}
    rows = 0
    for exchange in EXCHANGES:
        body = files[f"{LOCAL}/{exchange}.json"]
        assert body == served(nasdaq, exchange).read_bytes()
        rows += len(json.loads(body)["data"]["rows"])
    assert rows == 6928  # every row of the recorded download, each under one exchange
    entries = json.loads(files[MANIFEST])["entries"]
    assert [(e["url"].removeprefix(nasdaq.base), e["source"], e["status"], e["etag"]) for e in entries] == [
        (ask(exchange), SCREENER, 200, "") for exchange in EXCHANGES]


def test_the_same_answer_again_is_not_kept_twice_and_a_changed_one_is(nasdaq: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    first = run(nasdaq, raw)
    assert first.run is not None
    again = run(nasdaq, raw, NIGHT + dt.timedelta(hours=1))
    assert again.run is not None and set(tree(again.run)) == {MANIFEST}
    assert (again.total.downloaded, again.total.not_modified) == (0, 3)
    entry = json.loads((again.run / MANIFEST).read_text())["entries"][1]
    assert entry["status"] == 200 and entry["path"] == f"{first.run.name}/{LOCAL}/nyse.json"
    # the next night NYSE's prices moved
    answer = json.loads(served(nasdaq, "nyse").read_bytes())
    answer["data"]["rows"][0]["lastsale"] = "$1.00"
    served(nasdaq, "nyse").write_text(json.dumps(answer), encoding="utf-8")
    later = run(nasdaq, raw, NIGHT + dt.timedelta(days=3))
    assert later.run is not None and set(tree(later.run)) == {MANIFEST, f"{LOCAL}/nyse.json"}


def test_retries_honour_retry_after_and_a_cut_body(nasdaq: SecServer, tmp_path: Path) -> None:
    nasdaq.faults[ask("amex")] += [Fault(429, retry_after="5"), Fault(503), Fault(short=True)]
    result = run(nasdaq, tmp_path / "raw")
    assert result.failures == [] and result.run is not None
    assert [(r.reason.split(" (")[0], r.wait) for r in result.retried] == [
        ("HTTP 429", 5.0), ("HTTP 503", 1.0), ("body cut short", 2.0)]
    assert (result.run / LOCAL / "amex.json").read_bytes() == served(nasdaq, "amex").read_bytes()


def test_an_answer_that_is_not_the_screener_fails_the_run_naming_its_url(nasdaq: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    rows = json.loads(served(nasdaq, "nyse").read_bytes())["data"]["rows"]
    rows[2].pop("marketCap")
    table_view = {"data": {"filters": None, "table": {"headers": {}, "rows": rows[:2]}, "totalrecords": 2}}
    nasdaq.faults[ask("nasdaq")] += [Fault(200, body=HTML_PAGE)]
    nasdaq.faults[ask("nyse")] += [Fault(200, body=json.dumps({"data": {"rows": rows}}).encode(),
                                         content_type="application/json")]
    nasdaq.faults[ask("amex")] += [Fault(200, body=error_answer("Invalid exchange"), content_type="application/json")]
    result = run(nasdaq, raw)
    assert result.run is None and not (raw / STAGING).exists() and not any(raw.glob("2*"))
    assert [line.removeprefix(nasdaq.base) for line in result.failures] == [
        f"{ask('nasdaq')}: not a screener answer: an HTML page",
        f"{ask('nyse')}: data.rows[2]: missing marketCap (a row has symbol, name, lastsale, netchange, pctchange, "
        "marketCap, country, ipoyear, volume, sector, industry)",
        f"{ask('amex')}: no screener table in the answer: data is null (status rCode 400: Invalid exchange)"]
    nasdaq.faults[ask("nasdaq")] += [Fault(200, body=json.dumps(table_view).encode(), content_type="application/json")]
    assert run(nasdaq, raw).failures == [
        f"{nasdaq.base}{ask('nasdaq')}: data.rows: expected a list of at least one row (found data holds filters, "
        "table, totalrecords)"]
