"""The news-feed importer (issue 27): files in the shape of news-headlines-sample (headline, url, publisher, date,
ticker). ``tests/fixtures/news-feed/headlines.csv`` is made up in that shape (its URLs are example.com's); the
shared sample is read from ../shared for its shape (its headlines' digits are corrupted at the source)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from generator.importers import import_files, plan, skip_reason
from generator.importers.base import Context
from generator.importers.identity import held_on
from generator.importers.report import render
from tests.conftest import SHARED_DATA, TINY

FEED = Path(__file__).resolve().parent / "fixtures" / "news-feed"
SAMPLE = SHARED_DATA / "news-headlines-sample" / "raw_partner_headlines_sample.csv"
QUIET = lambda _: None  # noqa: E731


def rows(folder: Path, table: str) -> list[dict[str, str]]:
    with (folder / f"{table}.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def canonical(tmp_path: Path) -> Path:
    """The tiny dataset (Airbnb listed ABNB 2020-12-10, Arm ARM 2023-09-14, Spotify SPOT 2018-04-03), with a former
    ticker of Spotify's dated in aliases.csv."""
    folder = tmp_path / "canonical"
    shutil.copytree(TINY, folder)
    with (folder / "aliases.csv").open("a", encoding="utf-8", newline="") as handle:
        handle.write("3,ticker,SPOTX,2015-01-01,2017-12-31,test fixture\n")
    return folder


@pytest.mark.parametrize(("day", "listings", "holder", "since", "dated", "expected"), [
    ("2021-01-01", [], "7", "", [], ("7", "current holder")),  # a ticker list's holder, listing not on record
    ("2019-01-01", [], "7", "2020-12-10", [], (None, "its holder listed later")),
    ("2019-01-01", [], None, "", [], (None, "no company held the ticker on that date")),
    ("2019-01-01", [("2006-11-17", "2")], "9", "2020-08-14", [], ("2", "listing")),  # DCT: the 2006 listing's
    ("2021-01-01", [("2006-11-17", "2")], "9", "2020-08-14", [], ("9", "current holder")),  # ... then Duck Creek
    ("2021-01-01", [("2006-11-17", "2"), ("2020-08-14", "9")], "9", "2020-08-14", [], ("9", "listing")),
    ("2019-01-01", [("2006-11-17", "2")], "9", "", [], (None, "two companies held the ticker; the date does not "
                                                         "say which")),
    ("2016-06-30", [], "5", "", [("2015-01-01", "2017-12-31", "3")], ("3", "dated alias")),
    ("2018-06-30", [], "5", "", [("2015-01-01", "2017-12-31", "3")], ("5", "current holder")),
])
def test_a_ticker_belongs_to_the_company_that_held_it_on_the_day(
        day: str, listings: list, holder: str | None, since: str, dated: list, expected: tuple) -> None:
    assert held_on(day, listings, holder, since, dated) == expected


def test_auto_recognises_a_feed_and_imports_it_last(tmp_path: Path) -> None:
    (tmp_path / "ipos.csv").write_bytes((SHARED_DATA / "iposcoop-ipos-2000-2018" / "ipos.csv").read_bytes()
                                        if SHARED_DATA.exists() else b"Trade Date,Issuer,Symbol\n")
    shutil.copy(FEED / "headlines.csv", tmp_path / "headlines.csv")
    steps, unknown = plan("auto", [tmp_path])
    assert [(name, path.name) for name, path in steps] == [("iposcoop", "ipos.csv"), ("news-feed", "headlines.csv")]
    assert unknown == []


def test_a_feed_lands_on_the_companies_that_held_its_tickers(canonical: Path) -> None:
    result = import_files("auto", [FEED], canonical, QUIET)
    news = [r for r in rows(canonical, "news") if r["origin"] == "feed"]
    by_ticker = {(r["company_id"], r["article_url"].rsplit("/", 1)[1]) for r in news}
    assert by_ticker == {("1", "airbnb-first-quarter"), ("1", "three-listings"), ("2", "three-listings"),
                         ("2", "arm-prices"), ("3", "spotify-opens"), ("3", "old-symbol")}
    first = next(r for r in news if r["article_url"].endswith("airbnb-first-quarter"))
    assert (first["publisher"], first["published_date"], first["tags"], first["ipo_id"]) == (
        "Example Wire", "2021-02-17", "", "")
    assert dict(result.report.news) == {"listing": 6, "dated alias": 1} and result.report.repeated["news"] == 1
    assert dict(result.report.unmatched) == {"its holder listed later": 1,
                                             "no company held the ticker on that date": 1}
    text = render(result, canonical)
    assert f"{FEED / 'headlines.csv'}:8: ABNB on 2019-05-01: its holder listed later" in text
    assert f"{FEED / 'headlines.csv'}:9: XYZQ on 2020-01-02: no company held the ticker on that date" in text
    provenance = [r for r in rows(canonical, "provenance") if r["table"] == "news"]
    assert {r["source"] for r in provenance} == {"news-feed"} and len(provenance) == len(news)
    assert import_files("auto", [FEED], canonical, QUIET).changed == []  # byte-identical re-import


def test_the_imported_feed_builds_and_each_item_names_its_source(canonical: Path, tmp_path: Path) -> None:
    from generator.pipeline.build import BuildConfig, build

    import_files("news-feed", [FEED / "headlines.csv"], canonical, QUIET)
    build(BuildConfig(canonical, tmp_path / "dist", workers=0))
    body = json.loads((tmp_path / "dist" / "api" / "news" / "company=arm-holdings" / "sort=-date,page=1.json")
                      .read_text(encoding="utf-8"))
    item = next(i for i in body["data"] if i["headline"] == "Arm prices its Nasdaq IPO")
    assert {k: item[k] for k in ("publisher", "article_url", "origin", "compiled_from", "tags")} == {
        "publisher": "Example Markets", "article_url": "https://example.com/news/arm-prices", "origin": "feed",
        "compiled_from": None, "tags": []}


@pytest.mark.parametrize(("line", "expected"), [
    ("9,Bad link,ftp://example.com/x,Example Wire,1/2/2020 0:00,ARM",
     ":11: column url: expected an http or https URL (got 'ftp://example.com/x')"),
    ("9,Bad date,https://example.com/x,Example Wire,2020/13/45,ARM",
     ":11: column date: expected a date"),
    ("9,,https://example.com/x,Example Wire,1/2/2020 0:00,ARM", ":11: column headline: expected a value"),
    ("9,No publisher,https://example.com/x,,1/2/2020 0:00,ARM", ":11: column publisher: expected a value"),
    ("9,Short row,https://example.com/x,Example Wire", ":11: expected 6 fields, found 4"),
])
def test_a_bad_row_is_skipped_naming_file_line_and_column(canonical: Path, tmp_path: Path, line: str,
                                                          expected: str) -> None:
    """The feed's odd row is listed with its file, line and column; every other item imports as without it."""
    feed = tmp_path / "feed.csv"
    feed.write_text((FEED / "headlines.csv").read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    clean = tmp_path / "clean"
    shutil.copytree(canonical, clean)
    without = import_files("news-feed", [FEED / "headlines.csv"], clean, QUIET)
    result = import_files("news-feed", [feed], canonical, QUIET)
    shown = result.context.where[Context.BAD_RECORDS]
    assert len(shown) == 1 and shown[0].startswith(f"feed.csv{expected}"), shown
    assert (canonical / "news.csv").read_bytes() == (clean / "news.csv").read_bytes()
    assert result.rows == without.rows


@pytest.mark.skipif(not SAMPLE.exists(), reason="needs ../shared/data")
def test_the_shared_sample_is_read_for_its_shape_and_left_out_of_auto(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    steps, unknown = plan("auto", [SAMPLE.parent])
    assert steps == [] and unknown == [SAMPLE] and "corrupted" in skip_reason(SAMPLE)
    src = tmp_path / "src"
    src.mkdir()
    tickers = json.loads((SHARED_DATA / "edgar" / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "company_tickers.json").write_text(json.dumps({k: v for k, v in tickers.items() if v["ticker"] == "A"}))
    into = tmp_path / "into"
    import_files("auto", [src], into, QUIET)
    result = import_files("news-feed", [SAMPLE], into, QUIET)
    with SAMPLE.open(encoding="utf-8", newline="") as handle:
        sample = list(csv.DictReader(handle))
    news = rows(into, "news")
    (agilent,) = rows(into, "companies")
    with capsys.disabled():
        print(f"\nshared news sample: {len(sample)} rows, {len(news)} items on {agilent['name']} "
              f"({result.report.repeated['news']} repeated rows), unmatched {sum(result.report.unmatched.values())}")
    assert agilent["cik"] == "1090872" and {r["company_id"] for r in news} == {agilent["id"]}
    assert len(news) == len({r["url"] for r in sample}) and len(news) + result.report.repeated["news"] == 500
    assert {r["publisher"] for r in news} == {r["publisher"] for r in sample}
    assert all(r["origin"] == "feed" and r["article_url"].startswith("http") for r in news)
