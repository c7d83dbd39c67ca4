"""``fetch edgar-companyfacts`` and ``edgar-financial-statements`` against the fixture server (tests/sec_fixture.py):
the SEC's companyfacts documents recorded in ../shared/data/sec-companyfacts, served under their CIKs, daily
indexes of real lines naming those CIKs with their reports, the recorded Financial Statement Data Sets, and the
faults a real night meets. Nothing here reaches the SEC."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from generator.fetch.run import FetchConfig, FetchResult, fetch
from generator.fetch.sources import ALIASES, FACTS, FSDS, statement_quarters
from generator.fetch.store import MANIFEST, STAGING
from generator.importers import plan
from tests.conftest import SHARED_DATA
from tests.nasdaq_fixture import HTML_PAGE
from tests.sec_fixture import FACTS as FACTS_PATH
from tests.sec_fixture import Fault, SecServer, facts_tree, index_path, sec_tree

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
AGENT = "Fixture Tests fetch-tests@example.com"
RECORDED = SHARED_DATA / "sec-companyfacts"
FRIDAY, MONDAY = dt.date(2026, 1, 30), dt.date(2026, 2, 2)
"""The fixture's index days: Friday names each document's newest report (Apple's 10-Q of that day among them),
Monday each one's report before it."""
APPLE, NVIDIA, MARVELL, SNOWFLAKE, LPA, NO_FACTS = 320193, 1045810, 1835632, 1640147, 1997711, 1679273
STATEMENTS = "files/dera/data/financial-statement-data-sets"


def facts_url(cik: int) -> str:
    return f"/{FACTS_PATH}/CIK{cik:010d}.json"


def local(cik: int) -> str:
    return f"data.sec.gov{facts_url(cik)}"


@pytest.fixture
def sec(tmp_path: Path) -> SecServer:
    root = sec_tree(tmp_path / "sec", SHARED_DATA / "edgar", [], tickers=50)
    facts_tree(root, RECORDED, [FRIDAY, MONDAY])
    statements = root / STATEMENTS
    statements.mkdir(parents=True)
    for quarter in ("2009q3", "2010q2"):
        shutil.copy(SHARED_DATA / "sec-financial-statements" / f"{quarter}.zip", statements)
    with SecServer(root) as server:
        yield server


def run(server: SecServer, raw: Path, names: list[str], *, since: dt.date | None = FRIDAY, until: dt.date = FRIDAY,
        **options: object) -> FetchResult:
    options.setdefault("sleep", lambda _: None)
    config = FetchConfig(names, raw, AGENT, since=since, until=until, base_urls=[server.base], backoff=0.5,
                         **options)  # type: ignore[arg-type]
    return fetch(config, stream=None)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def report_filers(index: bytes) -> set[int]:
    """CIKs of the index's annual and quarterly reports, read here independently of the fetcher."""
    rows = [line.split("|") for line in index.decode("latin-1").splitlines()]
    return {int(r[0]) for r in rows if len(r) == 5 and r[2] in {"10-K", "10-Q", "20-F", "20-F/A", "40-F", "10-K/A"}}


def test_the_nights_report_filers_companyfacts_land_verified_under_the_sites_layout(sec: SecServer,
                                                                                    tmp_path: Path) -> None:
    assert FACTS in ALIASES["edgar"] and FSDS not in ALIASES["edgar"]
    raw = tmp_path / "raw"
    result = run(sec, raw, ["edgar"])
    assert result.failures == [] and result.run is not None
    index = (sec.root / index_path(FRIDAY)).read_bytes()
    filers = report_filers(index)
    assert filers == {APPLE, NVIDIA, MARVELL, SNOWFLAKE, LPA, NO_FACTS}
    # one request per filer, in CIK order, after the lists and the index; a CIK without facts answers 404
    asked = [h.path for h in sec.hits if "companyfacts" in h.path]
    assert asked == [facts_url(cik) for cik in sorted(filers)]
    assert [h.status for h in sec.hits if h.path == facts_url(NO_FACTS)] == [404]
    files = tree(result.run)
    kept = {name for name in files if name.startswith("data.sec.gov/")}
    assert kept == {local(cik) for cik in filers - {NO_FACTS}}
    for cik in filers - {NO_FACTS}:  # the recorded bodies, byte for byte (gzip on the wire, undone on disk)
        assert files[local(cik)] == (sec.root / FACTS_PATH / f"CIK{cik:010d}.json").read_bytes()
    entries = {e["url"].removeprefix(sec.base): e for e in json.loads(files[MANIFEST])["entries"]}
    assert entries[facts_url(NO_FACTS)]["status"] == 404 and entries[facts_url(NO_FACTS)]["path"] == ""
    apple = entries[facts_url(APPLE)]
    assert apple["source"] == FACTS and apple["status"] == 200 and apple["etag"]
    assert apple["sha256"] == hashlib.sha256(files[local(APPLE)]).hexdigest()
    tally = result.tallies[FACTS]
    assert (tally.requests, tally.downloaded, tally.absent) == (6, 5, 1)
    # the import tells them from submissions documents (EDGAR names both CIK##########.json) by what they hold
    steps, _ = plan("auto", [raw])
    assert sorted(str(path.relative_to(result.run)) for name, path in steps if name == "sec-companyfacts") == sorted(
        local(cik) for cik in filers - {NO_FACTS})
    assert all(h.gzip for h in sec.hits if h.status == 200) and tally.bytes < sum(
        len(files[local(cik)]) for cik in filers - {NO_FACTS}) / 8  # companyfacts compress about 14 times


def test_a_later_night_asks_a_held_document_again_conditionally(sec: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    first = run(sec, raw, ["edgar-daily-index", FACTS])
    assert first.run is not None
    # Monday's index names every company again (each one's earlier report); NVIDIA's document changed since
    nvidia = sec.root / FACTS_PATH / f"CIK{NVIDIA:010d}.json"
    nvidia.write_text(json.dumps(json.loads(nvidia.read_bytes()), separators=(",", ":")) + "\n", encoding="utf-8")
    sec.hits.clear()
    second = run(sec, raw, ["edgar-daily-index", FACTS], since=None, until=MONDAY)
    assert second.failures == [] and second.run is not None
    asked = [(h.path, h.status, h.conditional) for h in sec.hits if "companyfacts" in h.path]
    assert asked == [(facts_url(cik), 200 if cik == NVIDIA else 304, True)
                     for cik in sorted({APPLE, NVIDIA, MARVELL, SNOWFLAKE, LPA})]
    assert set(tree(second.run)) == {MANIFEST, f"www.sec.gov/{index_path(MONDAY)}", local(NVIDIA)}
    entries = {e["url"].removeprefix(sec.base): e for e in json.loads((second.run / MANIFEST).read_text())["entries"]}
    assert entries[facts_url(APPLE)]["status"] == 304
    assert entries[facts_url(APPLE)]["path"] == f"{first.run.name}/{local(APPLE)}"
    assert (second.tallies[FACTS].not_modified, second.tallies[FACTS].downloaded) == (4, 1)


def test_companyfacts_retried_on_429_503_and_a_cut_body(sec: SecServer, tmp_path: Path) -> None:
    sec.faults[facts_url(APPLE)] += [Fault(429, retry_after="3"), Fault(503), Fault(short=True)]
    sleeps: list[float] = []
    result = run(sec, tmp_path / "raw", ["edgar-daily-index", FACTS], sleep=sleeps.append)
    assert result.failures == [] and result.run is not None
    assert [(r.url.removeprefix(sec.base), r.reason.split(" (")[0], r.wait) for r in result.retried] == [
        (facts_url(APPLE), "HTTP 429", 3.0), (facts_url(APPLE), "HTTP 503", 1.0),
        (facts_url(APPLE), "body cut short", 2.0)]
    assert result.retried[-1].reason.startswith("body cut short (") and "more expected" in result.retried[-1].reason
    assert sec.paths().count(facts_url(APPLE)) == 4 and [w for w in sleeps if w in (3.0, 1.0, 2.0)] == [3.0, 1.0, 2.0]
    assert (result.run / local(APPLE)).read_bytes() == (RECORDED / f"CIK{APPLE:010d}.json").read_bytes()


def test_a_document_that_is_not_the_companys_facts_fails_the_run_naming_its_url(sec: SecServer,
                                                                                tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    marvell = (RECORDED / f"CIK{MARVELL:010d}.json").read_bytes()
    twice = b'{"cik": 1640147, "cik": 1045810, "entityName": "SNOWFLAKE INC.", "facts": {}}'
    sec.faults[facts_url(APPLE)] += [Fault(200, body=HTML_PAGE)]
    sec.faults[facts_url(NVIDIA)] += [Fault(200, body=marvell, content_type="application/json")]
    sec.faults[facts_url(SNOWFLAKE)] += [Fault(200, body=twice, content_type="application/json")]
    sec.faults[facts_url(LPA)] += [Fault(200, body=b'{"cik": 1997711, "name": "x", "filings": {}}',
                                         content_type="application/json")]
    result = run(sec, raw, ["edgar-daily-index", FACTS])
    assert result.run is None and not (raw / STAGING).exists() and not any(raw.glob("2*"))
    assert [line.removeprefix(sec.base) for line in result.failures] == [
        f"{facts_url(APPLE)}: not a companyfacts document: an HTML page",
        f"{facts_url(NVIDIA)}: cik {MARVELL} is not the CIK asked for ({NVIDIA})",
        f"{facts_url(SNOWFLAKE)}: cik given twice with different values",
        f"{facts_url(LPA)}: a companyfacts document needs the keys cik, entityName, facts (missing entityName, "
        "facts; found cik, name, filings)"]


def test_financial_statement_data_sets_by_quarter(sec: SecServer, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    first = run(sec, raw, [FSDS], since=dt.date(2009, 7, 1), until=dt.date(2010, 7, 15))
    assert first.failures == [] and first.run is not None
    assert sec.paths() == [f"/{STATEMENTS}/{q}.zip" for q in ("2009q3", "2009q4", "2010q1", "2010q2")]
    assert [h.status for h in sec.hits] == [200, 404, 404, 200]  # quarters the fixture does not hold are absent
    for quarter in ("2009q3", "2010q2"):
        kept = first.run / "www.sec.gov" / STATEMENTS / f"{quarter}.zip"
        assert kept.read_bytes() == (SHARED_DATA / "sec-financial-statements" / f"{quarter}.zip").read_bytes()
    # later nights: nothing until a quarter after the newest held has ended; then that quarter (not yet published)
    sec.hits.clear()
    assert run(sec, raw, [FSDS], since=None, until=dt.date(2010, 9, 30)).total.requests == 0
    assert run(sec, raw, [FSDS], since=None, until=dt.date(2010, 10, 2)).total.absent == 1
    assert sec.paths() == [f"/{STATEMENTS}/2010q3.zip"]
    assert statement_quarters(set(), None, dt.date(2025, 4, 2)) == [(2025, 1)]  # a first run: the last quarter
    # a damaged download fails the run
    zipped = (sec.root / STATEMENTS / "2009q3.zip").read_bytes()
    sec.faults[f"/{STATEMENTS}/2009q3.zip"] += [Fault(200, body=zipped[:-5000], content_type="application/zip")]
    broken = run(sec, tmp_path / "other", [FSDS], since=dt.date(2009, 7, 1), until=dt.date(2009, 10, 1))
    assert broken.run is None and len(broken.failures) == 1
    assert broken.failures[0].removeprefix(sec.base).startswith(f"/{STATEMENTS}/2009q3.zip: not a zip (")


def measured_rows() -> list[str]:
    """The figures docs/sources.md gives for the cost of companyfacts, measured on the shared files: each recorded
    document's size as the SEC serves it (compact JSON: the re-indented ones written compact again) and gzipped
    (level 6, as web servers commonly send), and the annual and quarterly reports a day of the shared indexes holds."""
    rows = []
    for path in sorted(RECORDED.glob("CIK*.json")):
        document = json.loads(path.read_bytes())
        compact = path.read_bytes() if ".pretty" not in path.name else json.dumps(
            document, separators=(",", ":"), ensure_ascii=False).encode()
        zipped = len(gzip.compress(compact, 6, mtime=0))
        facts = sum(len(v) for taxonomy in document["facts"].values() for concept in taxonomy.values()
                    for v in concept["units"].values())
        rows.append(f"| {document['entityName']} | {facts:,} | {len(compact):,} | {zipped:,} | "
                    f"{len(compact) / zipped:.1f} |")
    forms = {"10-K", "10-K/A", "10-Q", "10-Q/A", "20-F", "20-F/A", "40-F", "40-F/A", "10-KT", "10-KT/A", "10-QT",
             "10-QT/A"}
    days: dict[str, list[tuple[str, str]]] = {}
    master = (SHARED_DATA / "edgar" / "master.20200103.idx").read_text(encoding="latin-1").splitlines()
    for parts in (line.split("|") for line in master):
        if len(parts) == 5 and parts[2] in forms:
            days.setdefault(f"{parts[3][:4]}-{parts[3][4:6]}-{parts[3][6:]}", []).append((parts[0], parts[2]))
    lines = (SHARED_DATA / "edgar" / "form_2023_QTR2_partial.idx").read_text(encoding="latin-1").splitlines()
    header = next(n for n, line in enumerate(lines) if line.startswith("Form Type"))
    cik_at, date_at = lines[header].index("CIK"), lines[header].index("Date Filed")
    for line in lines[header + 2:]:
        form = line[:lines[header].index("Company Name")].strip()
        if form in forms:
            days.setdefault(line[date_at:date_at + 10].strip(), []).append((line[cik_at:date_at].strip(), form))
    for day, filings in sorted(days.items()):
        annual = sum(form.split("/")[0] in ("10-K", "20-F", "40-F", "10-KT") for _, form in filings)
        rows.append(f"| {day} | {len(filings)} | {annual} | {len(filings) - annual} | {len({c for c, _ in filings})} |")
    return rows


def test_the_cost_figures_in_the_docs_are_the_shared_files_measured() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "sources.md").read_text(encoding="utf-8")
    rows = measured_rows()
    print("\n".join(rows))
    assert len(rows) == 10 and [row for row in rows if row not in doc] == []


def test_a_nested_or_not_a_number_document_fails_in_one_line_naming_its_url(sec: SecServer, tmp_path: Path) -> None:
    """A body nested past any format's depth, or one giving the CIK as NaN, fails the run in one line (no
    traceback, nothing kept)."""
    raw = tmp_path / "raw"
    nested = b'{"cik": 320193, "entityName": "Apple Inc.", "facts": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    not_a_number = b'{"cik": NaN, "entityName": "NVIDIA CORP", "facts": {}}'
    sec.faults[facts_url(APPLE)] += [Fault(200, body=nested, content_type="application/json")]
    sec.faults[facts_url(NVIDIA)] += [Fault(200, body=not_a_number, content_type="application/json")]
    result = run(sec, raw, ["edgar-daily-index", FACTS])
    assert result.run is None and not any(raw.glob("2*"))
    failures = {line.removeprefix(sec.base).split(": ", 1)[0]: line for line in result.failures}
    assert "nested more than 64" in failures[facts_url(APPLE)], failures
    assert "\n" not in failures[facts_url(NVIDIA)] and "cik" in failures[facts_url(NVIDIA)], failures
