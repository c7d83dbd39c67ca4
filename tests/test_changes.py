"""Change events (issue 38): the embedded data built, then the same data with an IPO priced, a round added, a
valuation changed, a company renamed and one removed, recorded with ``changes record`` and built again, publishes
exactly those events, with the same ids on every rebuild; the front door filters them like every listing."""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from generator.api.queries import read_sql
from generator.api.registry import EXPORT_ROUTE
from generator.cli import main
from generator.dataset.history import WINDOW_DAYS, event_id
from generator.dataset.load import DataError, load, validate
from generator.events import publish
from generator.events.changes import record
from generator.events.publish import EVENTS_FILE
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import QUERY_SPACE_FILE
from generator.pipeline.build import BuildConfig, build
from tests.conftest import EMBEDDED
from tests.test_feeds import json_feed_schema, relax_ng  # noqa: F401  (fixtures)
from tests.test_webhooks import receiver, run, subscriptions  # noqa: F401  (receiver: a fixture)

PRICED_IPO = "529"
"""An upcoming IPO of the embedded data (expected 2025-07-02): priced on the as-of date in the second snapshot."""
RENAMED, REVALUED, REMOVED = "1", "2", "46"
"""Companies renamed, revalued and removed (AST SpaceMobile: one dependent row) in the second snapshot."""


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _edit(folder: Path, table: str, change) -> None:  # noqa: ANN001
    columns, rows = _rows(folder / f"{table}.csv")
    _write(folder / f"{table}.csv", columns, [r for r in (change(dict(row)) for row in rows) if r is not None])


def second_snapshot(first: Path, folder: Path) -> Path:
    """The first snapshot with an IPO priced, a round added, a valuation changed, a company renamed and one removed."""
    shutil.copytree(first, folder)
    as_of = json.loads((folder / "dataset.json").read_text())["as_of"]

    def priced(row: dict) -> dict:
        if row["id"] == PRICED_IPO:
            row.update(priced_date=as_of, offer_price_cents="2100")
        return row
    _edit(folder, "ipos", priced)
    _edit(folder, "companies", lambda r: {**r, "name": "Meta Platforms (renamed)"} if r["id"] == RENAMED else
          {**r, "valuation_usd": str(int(r["valuation_usd"]) + 1_000_000_000)} if r["id"] == REVALUED else r)
    columns, rounds = _rows(folder / "funding_rounds.csv")
    added = {c: "" for c in columns} | {"id": str(max(int(r["id"]) for r in rounds) + 1), "company_id": "3",
                                          "stage": "corporate", "announced_date": as_of, "amount_usd": "5000000",
                                          "basis": "press-report"}
    _write(folder / "funding_rounds.csv", columns, [*rounds, added])
    for table in ("aliases", "financials", "funding_rounds", "ipos", "offerings", "secondary_prices", "filings",
                  "news"):
        _edit(folder, table, lambda r: None if r.get("company_id") == REMOVED else r)
    _edit(folder, "companies", lambda r: None if r["id"] == REMOVED else r)
    validate(folder)  # still a valid dataset
    return folder


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("changes")
    first = root / "first"
    shutil.copytree(EMBEDDED, first)
    second = second_snapshot(first, root / "second")
    done = CliRunner().invoke(main, ["changes", "record", "--previous", str(first), "--data", str(second)])
    assert done.exit_code == 0, done.output
    assert "5 event(s) added" not in done.output  # the dated facts are not recorded: three differences are
    assert "3 event(s) added (1 company-removed, 1 company-renamed, 1 valuation-changed)" in done.output
    for name, data in (("first", first), ("second", second), ("again", second)):
        build(BuildConfig(data, root / f"dist-{name}"))
    return {"first": first, "second": second, "root": root}


def _events(dist: Path) -> dict[str, dict]:
    lines = (dist / EVENTS_FILE.lstrip("/")).read_text().splitlines()
    return {event["id"]: event for event in map(json.loads, lines)}


def test_the_second_snapshot_publishes_exactly_its_events(snapshots: dict[str, Path]) -> None:
    before, after = _events(snapshots["root"] / "dist-first"), _events(snapshots["root"] / "dist-second")
    new = [after[key] for key in after.keys() - before.keys()]
    assert sorted((e["type"], e["entity"]["kind"], e["entity"]["id"]) for e in new) == sorted([
        ("company-removed", "company", REMOVED), ("company-renamed", "company", RENAMED),
        ("ipo-priced", "ipo", PRICED_IPO), ("round-announced", "round", str(max(
            int(e["entity"]["id"]) for e in after.values() if e["entity"]["kind"] == "round"))),
        ("valuation-changed", "company", REVALUED)])
    changed = {e["type"]: e for e in new}
    assert changed["company-renamed"]["changes"] == [{"field": "name", "old": "Meta Platforms",
                                                      "new": "Meta Platforms (renamed)"}]
    old, new_value = (changed["valuation-changed"]["changes"][0][k] for k in ("old", "new"))
    assert isinstance(old, int) and new_value == old + 1_000_000_000
    removed = changed["company-removed"]
    assert removed["company"]["url"] is None and removed["entity"]["url"] is None
    assert removed["company"]["slug"] == "ast-spacemobile" and removed["snapshot"] == removed["date"]
    gone = [before[key] for key in before.keys() - after.keys()]
    assert all(e["company"]["slug"] == "ast-spacemobile" for e in gone)  # its dated facts went with it


def test_ids_never_change_and_a_rebuild_gives_the_same_bytes(snapshots: dict[str, Path]) -> None:
    root = snapshots["root"]
    assert (root / "dist-second" / EVENTS_FILE.lstrip("/")).read_bytes() == (
        root / "dist-again" / EVENTS_FILE.lstrip("/")).read_bytes()
    before, after = _events(root / "dist-first"), _events(root / "dist-second")
    for key in before.keys() & after.keys():  # a renamed company's facts keep their ids
        assert before[key]["date"] == after[key]["date"] and before[key]["type"] == after[key]["type"]
    fact = next(e for e in after.values() if e["type"] == "ipo-priced")  # the SQL's recipe is history.event_id's
    assert fact["id"] == event_id("ipo-priced", "ipo", fact["entity"]["id"], fact["date"])


def test_recording_again_changes_nothing_and_an_archive_is_a_snapshot(snapshots: dict[str, Path],
                                                                      tmp_path: Path) -> None:
    second = snapshots["second"]
    recorded = (second / "changes.csv").read_bytes()
    again = record(snapshots["first"], second)
    assert not again.written and not again.added and (second / "changes.csv").read_bytes() == recorded
    copy = tmp_path / "second"
    shutil.copytree(second, copy)
    (copy / "changes.csv").unlink()
    archive = snapshots["root"] / "dist-first" / EXPORT_ROUTE.dataset_path("csv").lstrip("/")
    assert archive.is_file()
    record(archive, copy)  # the published snapshot instead of the folder: the same events
    assert (copy / "changes.csv").read_bytes() == recorded


def test_the_window_bounds_what_is_kept(snapshots: dict[str, Path], tmp_path: Path) -> None:
    later = tmp_path / "later"
    shutil.copytree(snapshots["second"], later)
    info = json.loads((later / "dataset.json").read_text())
    info["as_of"] = (dt.date.fromisoformat(info["as_of"]) + dt.timedelta(days=WINDOW_DAYS)).isoformat()
    (later / "dataset.json").write_text(json.dumps(info))
    done = record(snapshots["second"], later)
    assert done.dropped == 3 and done.rows == 0 and not done.added
    with pytest.raises(DataError, match="newer than this one"):
        record(later, snapshots["second"])


def test_the_front_door_filters_changes_like_every_listing(snapshots: dict[str, Path]) -> None:
    dist = snapshots["root"] / "dist-second"

    def fetch(path: str) -> bytes | None:
        found = dist / path.lstrip("/")
        return found.read_bytes() if found.is_file() else None

    resolver = Resolver(json.loads((dist / QUERY_SPACE_FILE.lstrip("/")).read_text()), fetch)
    events = _events(dist)
    for query, kept in (
        ("since=2025-06-01", lambda e: e["date"] >= "2025-06-01"),
        ("type=valuation-changed", lambda e: e["type"] == "valuation-changed"),
        ("kind=ipo&since=2025-06-15", lambda e: e["entity"]["kind"] == "ipo" and e["date"] >= "2025-06-15"),
        ("company=airbnb&since=2025-04-01", lambda e: (e["company"] or {}).get("slug") == "airbnb"
         and e["date"] >= "2025-04-01"),
        ("type=Company%20Renamed", lambda e: e["type"] == "company-renamed"),
    ):
        answer = resolver.resolve("/api/changes", query)
        assert answer is not None and answer.status == 200, query
        body = json.loads(answer.body)
        wanted = sorted((e for e in events.values() if kept(e)),  # newest first, ties by id (the listing's key)
                        key=lambda e: (-dt.date.fromisoformat(e["date"]).toordinal(), e["id"]))
        assert body["meta"]["total"] == len(wanted) > 0, query
        assert [row["id"] for row in body["data"]] == [e["id"] for e in wanted][:body["meta"]["per_page"]], query
    for bad in ("since=2025-02-30", "since=yesterday", "type=priced"):
        answer = resolver.resolve("/api/changes", bad)
        assert answer is not None and answer.status == 400 and bad.split("=")[0] in answer.body.decode(), bad


def test_the_built_feeds_validate(snapshots: dict[str, Path], relax_ng, json_feed_schema) -> None:  # noqa: F811
    import jsonschema
    from lxml import etree

    dist = snapshots["root"] / "dist-second"
    feeds = sorted((dist / "api" / "feeds").glob("**/*.*"))
    assert len(feeds) > 20
    for path in feeds:
        if path.suffix == ".atom":
            assert relax_ng.validate(etree.parse(str(path))), (path, relax_ng.error_log)
        else:
            jsonschema.validate(json.loads(path.read_bytes()), json_feed_schema)
    company = json.loads((dist / "api" / "feeds" / "companies" / "meta-platforms.json").read_bytes())
    slugs = [item["_event"]["company"]["slug"] for item in company["items"]]
    assert slugs and set(slugs) == {"meta-platforms"}


def test_a_deprecation_is_announced_by_headers_and_an_event(monkeypatch: pytest.MonkeyPatch,
                                                             snapshots: dict[str, Path], tmp_path: Path) -> None:
    from generator.api import versions
    from generator.events import changes

    with pytest.raises(ValueError, match="180 days"):
        versions.Deprecation("/api/trending*", dt.date(2025, 6, 1), dt.date(2025, 7, 1), "/api/changes", "short")
    gone = versions.Deprecation("/api/trending*", dt.date(2025, 6, 1), dt.date(2026, 1, 1), "/api/changes",
                                "movers are change events now")
    assert dict(gone.headers()) == {"Deprecation": "@1748736000", "Sunset": "Thu, 01 Jan 2026 00:00:00 GMT",
                                    "Link": '</api/changes>; rel="successor-version", </api/openapi.json#/info>; '
                                            'rel="deprecation"'}
    monkeypatch.setattr(changes, "DEPRECATIONS", (gone,))
    copy = tmp_path / "second"
    shutil.copytree(snapshots["second"], copy)
    done = record(snapshots["first"], copy)
    assert done.added["api-deprecated"] == 1
    _, rows = _rows(copy / "changes.csv")
    (row,) = [r for r in rows if r["type"] == "api-deprecated"]
    assert row["entity_id"] == "/api/trending*" and row["date"] == "2025-06-01" and not row["company_id"]


def test_every_api_response_names_its_snapshot(snapshots: dict[str, Path]) -> None:
    """The export manifest names the snapshot (as-of date, sha256 of the CSV archive); serve, the build's _headers
    file and the nginx config name it in every /api/ response (the JavaScript hosts: tests/test_frontdoor_js.py)."""
    import hashlib
    import urllib.request

    from generator.hosts.configs import nginx_conf
    from generator.hosts.serve import make_server

    dist = snapshots["root"] / "dist-second"
    manifest = json.loads((dist / "api" / "export" / "index.json").read_bytes())["data"]["snapshot"]
    archive = (dist / EXPORT_ROUTE.dataset_path("csv").lstrip("/")).read_bytes()
    assert manifest["sha256"] == hashlib.sha256(archive).hexdigest()
    assert manifest["id"] == f"2025-06-30.{manifest['sha256'][:12]}"
    first = json.loads((snapshots["root"] / "dist-first" / "api" / "export" / "index.json").read_bytes())
    assert first["data"]["snapshot"]["id"] != manifest["id"]  # another dataset, another snapshot
    assert f"  Dataset-Snapshot: {manifest['id']}\n" in (dist / "_headers").read_text()
    assert f'"~^/api/" "{manifest["id"]}";' in nginx_conf(dist, 8080)
    server = make_server(dist, "127.0.0.1", 0, quiet=True)
    import threading
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        for path in ("/api/changes?since=2025-06-01", "/api/companies/alphabet.json", "/api/export"):
            with urllib.request.urlopen(base + path, timeout=10) as response:
                assert response.headers["Dataset-Snapshot"] == manifest["id"], path
                assert response.headers["API-Version"] == "1.1.0", path
        with urllib.request.urlopen(base + "/", timeout=10) as response:
            assert response.headers["Dataset-Snapshot"] is None  # the landing page is not the API
    finally:
        server.shutdown()
        server.server_close()


def test_webhooks_deliver_the_new_snapshots_events_once(snapshots: dict[str, Path], tmp_path: Path,
                                                        receiver) -> None:  # noqa: ANN001, F811  (a fixture)
    """After the first build every event goes out; after the second, exactly its new events; a re-run sends none."""
    root = snapshots["root"]
    subs = subscriptions(tmp_path / "webhooks.toml", receiver, research={}, ipos={"types": ["ipo-priced"]})
    state = tmp_path / "state.json"
    first = _events(root / "dist-first")
    assert run(root / "dist-first", subs, state).exit_code == 0
    assert sorted(receiver.delivered("research")) == sorted(first)
    done = run(root / "dist-second", subs, state)
    assert done.exit_code == 0, done.output
    new = _events(root / "dist-second").keys() - first.keys()
    assert sorted(receiver.delivered("research")) == sorted([*first, *new])
    assert [receiver.bodies[i]["type"] for i in receiver.delivered("ipos")].count("ipo-priced") == len(
        receiver.delivered("ipos")) > 0
    assert run(root / "dist-second", subs, state).exit_code == 0 and not receiver.bad
    assert sorted(receiver.delivered("research")) == sorted([*first, *new])  # nothing twice


def test_a_site_url_makes_the_feeds_links_absolute(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["build", "--data", str(EMBEDDED), "--out", str(tmp_path / "x"), "--site-url", "ftp:/x"])
    assert bad.exit_code != 0 and "--site-url" in bad.output and not (tmp_path / "x").exists()
    done = runner.invoke(main, ["build", "--data", str(EMBEDDED), "--out", str(tmp_path / "dist"), "--quiet",
                                "--site-url", "https://api.example.com/"])
    assert done.exit_code == 0, done.output
    feed = json.loads((tmp_path / "dist" / "api" / "feeds" / "changes.json").read_bytes())
    assert feed["feed_url"] == "https://api.example.com/api/feeds/changes.json"
    assert all(item["url"].startswith("https://api.example.com/api/companies/") for item in feed["items"])
    atom = (tmp_path / "dist" / "api" / "feeds" / "changes.atom").read_text()
    assert 'rel="self" type="application/atom+xml" href="https://api.example.com/api/feeds/changes.atom"' in atom
    again = runner.invoke(main, ["build", "--data", str(EMBEDDED), "--out", str(tmp_path / "dist"),
                                 "--site-url", "https://mirror.example.org"])  # another site: not a no-op
    assert again.exit_code == 0 and "build skipped" not in again.output
    assert "https://mirror.example.org/api/feeds/changes.json" in (
        tmp_path / "dist" / "api" / "feeds" / "changes.json").read_text()


class _Files:
    """``publish.Files`` in memory."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, path: str, data: bytes) -> None:
        assert path not in self.files, f"two writes to {path}"
        self.files[path] = data

    @contextlib.contextmanager
    def create(self, path: str) -> Iterator[io.BytesIO]:
        with io.BytesIO() as out:
            yield out
            self.files[path] = out.getvalue()


def test_the_events_are_the_same_files_a_batch_at_a_time(snapshots: dict[str, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """events.jsonl and every feed, written an event at a time (a company's events across batches, a removed
    company's left out of the company feeds), are the files the build wrote."""
    con = duckdb.connect()
    info = load(snapshots["second"], con)
    con.execute(read_sql("views"))
    monkeypatch.setattr(publish, "BATCH_ROWS", 1)
    written = _Files()
    publish.write_events(con, info, written)
    dist = snapshots["root"] / "dist-second"
    assert written.files == {path: (dist / path.lstrip("/")).read_bytes() for path in written.files}
    feeds = {p for p in written.files if p.startswith("/api/feeds/companies/")}
    assert feeds == {"/" + p.relative_to(dist).as_posix() for p in (dist / "api/feeds/companies").iterdir()}
    assert len(written.files[EVENTS_FILE].splitlines()) > 2 and len(feeds) > 2
