"""News feeds of headlines by ticker: ``headline,url,publisher,date,stock`` (the shape of the "Massive Stock News
Analysis DB" files such as ``raw_partner_headlines.csv``, whose first column is an unnamed index; a file without
that column is read the same).

Each row is a news item of the company that held the ticker (``stock``) on the row's date (``news`` finds it);
the item keeps the feed's publisher and URL, so it names its source (``origin`` feed). The date's time of day is
dropped. A feed gives no topic: the item has no tags. A row without a headline, a publisher or an http(s) URL, or
with a date that cannot be read, fails the import naming file, line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from generator.importers.base import Cells, Context, Fact, NewsFact, Source, csv_rows, ticker

SOURCE = Source("news-feed", "press-report", "News feeds of headlines by ticker (publisher and URL of each item)")
COLUMNS = ["headline", "url", "publisher", "date", "stock"]
INDEXED = ["", *COLUMNS]
"""The same with the unnamed index column the Kaggle files start with."""
DATES = ("%m/%d/%Y %H:%M", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y", "%Y-%m-%d %H:%M:%S%z", "%Y-%m-%d %H:%M:%S",
         "%Y-%m-%d")
_URL = re.compile(r"^https?://\S+$")


def _header(path: Path) -> list[str] | None:
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline().lstrip("\ufeff").strip()
    return next((columns for columns in (COLUMNS, INDEXED) if first == ",".join(columns)), None)


def detect(path: Path) -> int | None:
    return 95 if path.suffix == ".csv" and _header(path) is not None else None


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    columns = _header(path) or COLUMNS  # a header that is neither fails naming what it should be
    for line, row in csv_rows(path, columns, ctx=ctx):
        with ctx.record(path, line):
            cells = Cells(path, line, row)
            fields = {"headline": cells.text("headline"), "publisher": cells.text("publisher"),
                      "article_url": row["url"].strip(), "published_date": cells.date("date", DATES)}
            for column, value in (("headline", fields["headline"]), ("publisher", fields["publisher"]),
                                  ("date", fields["published_date"])):
                if not value:
                    raise cells.fail(column, "expected a value")
            if not _URL.match(fields["article_url"]):
                raise cells.fail("url", "expected an http or https URL")
            if len(fields["headline"]) > 2000:
                raise cells.fail("headline", "expected at most 2000 characters")
            yield NewsFact(ticker(cells.text("stock"), ctx), fields, f"{path}:{line}")
