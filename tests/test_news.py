"""Every news item names its source: a feed's publisher and URL, or the record it was compiled from (issue 27).
The embedded items, their checks in the loader, and what the API publishes of them."""

from __future__ import annotations

import csv
import shutil
from collections import Counter
from pathlib import Path

import pytest

from generator.dataset.load import DataError, validate
from generator.dataset.schema import NEWS_RECORDS

from .conftest import EMBEDDED, Served

"""Embedded items that summarise press coverage the sample does not record: no record of the company carries
their event on their date (an S&P 500 inclusion, a bankruptcy, a deal called off...), and the sample kept no
publisher or URL. 88: DoorDash's 8-K of that day is its earnings release, not the Deliveroo offer."""
RECORD_DATES = {
    "ipos": ("announced_date", "filed_date", "priced_date", "listing_date", "withdrawn_date", "postponed_date"),
    "funding_rounds": ("announced_date",),
    "filings": ("filed_date",),
    "offerings": ("announced_date", "close_date"),
    "companies": ("acquired_date", "valuation_date"),
}


def link_problems(folder: Path) -> tuple[list[str], Counter[str]]:
    """Compiled items whose record is not of their company or not dated their day; and the items per source
    (``ipos`` ... ``companies`` for compiled ones, ``feed``)."""
    _, parsed = validate(folder)
    tables = {name: {row.get("id"): row for row in p.rows} for name, p in parsed.items()}
    problems, counts = [], Counter()
    for item in parsed["news"].rows:
        if item["origin"] != "compiled":
            counts[str(item["origin"])] += 1
            continue
        column = next((c for c in NEWS_RECORDS if item[c] is not None), None)
        table = NEWS_RECORDS[column] if column else "companies"
        record = tables[table][item[column] if column else item["company_id"]]
        counts[table] += 1
        owner = record["id"] if table == "companies" else record["company_id"]
        if owner != item["company_id"]:
            problems.append(f"news {item['id']}: {table} {record['id']} is company {owner}'s")
        elif item["published_date"] not in {record[c] for c in RECORD_DATES[table]}:
            problems.append(f"news {item['id']}: {table} {record['id']} has no date {item['published_date']}")
    return problems, counts


def test_every_embedded_news_item_names_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    problems, counts = link_problems(EMBEDDED)
    with capsys.disabled():
        print(f"\nembedded news by source: {dict(sorted(counts.items()))}")
    assert problems == []
    _, parsed = validate(EMBEDDED)
    compiled = sum(n for source, n in counts.items() if source in RECORD_DATES)
    assert compiled == 172 == len(parsed["news"].rows)  # the 19 items no record carried were removed
    assert all(item["publisher"] is None and item["article_url"] is None for item in parsed["news"].rows)


def _rewrite_news(folder: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = folder / "news.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    change(rows)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, rows[0].keys(), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def test_a_link_to_another_company_s_record_or_day_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(EMBEDDED, folder)

    def change(rows: list[dict[str, str]]) -> None:
        rows[0]["ipo_id"] = "1"  # Alphabet's 2004 debut linked to Facebook's IPO
        rows[1]["published_date"] = "2010-06-30"  # Tesla's debut a day after its IPO record's date

    _rewrite_news(folder, change)
    problems, _ = link_problems(folder)
    assert problems == ["news 1: ipos 1 is company 1's", "news 2: ipos 5 has no date 2010-06-30"]


@pytest.mark.parametrize(("change", "expected"), [
    ({"origin": "feed"}, "news.csv:2: column origin: origin feed needs publisher and article_url (got 'feed')"),
    ({"origin": "feed", "publisher": "Reuters", "article_url": "reuters.com/x", "ipo_id": ""},
     "news.csv:2: column article_url: String should match pattern '^https?://\\S+$' (got 'reuters.com/x')"),
    ({"origin": "", "article_url": ""}, "news.csv:2: column ipo_id: a linked record needs origin compiled (got '2')"),
    ({"round_id": "3"}, "news.csv:2: column round_id: an item is compiled from one record at most (ipo_id is set) "
                        "(got '3')"),
    ({"ipo_id": "9999"}, "news.csv:2: column ipo_id: 9999 does not exist in ipos.csv column id"),
    ({"origin": "uncited"}, "news.csv:2: column origin: Input should be 'feed' or 'compiled' (got 'uncited')"),
])
def test_a_news_item_without_a_proper_source_fails_naming_line_and_column(
        tmp_path: Path, change: dict[str, str], expected: str) -> None:
    folder = tmp_path / "data"
    shutil.copytree(EMBEDDED, folder)
    _rewrite_news(folder, lambda rows: rows[0].update(change))
    with pytest.raises(DataError) as error:
        validate(folder)
    assert [str(issue) for issue in error.value.issues] == [expected]


def test_the_news_feed_publishes_each_item_s_source(site: Served) -> None:
    status, body = site.get_json("/api/news?company=alphabet")
    assert status == 200
    google = next(item for item in body["data"] if item["id"] == 1)
    assert {k: google[k] for k in ("publisher", "article_url", "origin", "compiled_from")} == {
        "publisher": None, "article_url": None, "origin": "compiled", "compiled_from": {"table": "ipos", "id": 2}}
    _, body = site.get_json("/api/news?company=anaplan")
    (sold,) = [item for item in body["data"] if item["id"] == 52]
    assert sold["compiled_from"] == {"table": "companies", "id": 143}  # the company record's acquisition
    _, body = site.get_json("/api/news")  # every published item names its source
    pages = [body, *(site.get_json(f"/api/news?page={n}")[1] for n in range(2, body["meta"]["pages"] + 1))]
    items = [item for page in pages for item in page["data"]]
    assert len(items) == 172 and all(item["origin"] == "compiled" and item["compiled_from"] for item in items)
