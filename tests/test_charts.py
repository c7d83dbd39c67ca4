"""The landing page's charts (``generator/hosts/charts.py``): their figures against the CSV files, read here without
DuckDB or the API's SQL; their markup (a title, a text alternative and a table of the figures each); the same
bytes for the same data; what they add to the page, bounded whatever the dataset."""

from __future__ import annotations

import csv
import html
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from generator.dataset.load import read_dataset_info
from generator.hosts import charts
from generator.hosts.landing import landing_page

from .conftest import EMBEDDED, TINY
from .test_landing import figures_of

STATUS_DATE = {"pipeline": "announced_date", "filed": "filed_date", "upcoming": "expected_date",
               "listed": "listing_date", "withdrawn": "withdrawn_date", "postponed": "postponed_date"}
"""The date that goes with an IPO record's status (the API's ``status_date``)."""
PAGE_GROWTH = 12_000
"""Bytes the charts may add to the embedded build's landing page."""


def _rows(folder: Path, table: str) -> list[dict[str, str]]:
    with open(folder / f"{table}.csv", encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _shift(month: str, by: int) -> str:
    year, number = int(month[:4]), int(month[5:7]) - 1 + by
    return f"{year + number // 12:04d}-{number % 12 + 1:02d}"


def expected(folder: Path) -> charts.Figures:
    """The figures from the CSV files: IPO records per month of their status date (24 months to the as-of month,
    and on to the last within 6 months after it), current valuations (public or private, not marked stale) per
    sector, equity rounds (the stage's default unless ``transaction`` says otherwise) per year of the last 20."""
    as_of = read_dataset_info(folder).as_of
    now = as_of.strftime("%Y-%m")
    per_month: dict[str, Counter[str]] = defaultdict(Counter)
    for ipo in _rows(folder, "ipos"):
        day = ipo[STATUS_DATE[ipo["status"]]]
        if day:
            per_month[day[:7]][ipo["status"]] += 1
    last = max([now, *(m for m in per_month if m <= _shift(now, 6))])
    months, month = [], _shift(now, -23)
    while month <= last:
        months.append((month, dict(sorted(per_month.get(month, Counter()).items()))))
        month = _shift(month, 1)
    names = {row["slug"]: row["name"] for row in _rows(folder, "sectors")}
    totals: Counter[str] = Counter()
    valued: Counter[str] = Counter()
    for company in _rows(folder, "companies"):
        if company["valuation_usd"] and company["status"] in ("public", "private") \
                and company["valuation_is_current"] != "false":
            totals[company["sector"]] += int(company["valuation_usd"])
            valued[company["sector"]] += 1
    sectors = sorted(((s, names[s], t, valued[s]) for s, t in totals.items() if t > 0), key=lambda r: (-r[2], r[0]))
    rounds: Counter[int] = Counter()
    raised: Counter[int] = Counter()
    for row in _rows(folder, "funding_rounds"):
        kind = row["transaction"] or ("debt" if row["stage"] == "debt" else "equity")
        year = int(row["announced_date"][:4])
        if kind == "equity" and as_of.year - 20 < year <= as_of.year:
            rounds[year] += 1
            raised[year] += int(row["amount_usd"] or 0)
    return charts.Figures(months, sectors, [(y, rounds[y], raised[y]) for y in sorted(rounds)])


@pytest.mark.parametrize("folder", [TINY, EMBEDDED], ids=["tiny", "embedded"])
def test_figures_are_those_of_the_csv_files(folder: Path) -> None:
    found, wanted = figures_of(folder), expected(folder)
    assert [(m, dict(sorted(c.items()))) for m, c in found.pipeline] == wanted.pipeline
    assert found.sectors == wanted.sectors
    assert found.funding == wanted.funding
    assert wanted.pipeline and wanted.sectors and wanted.funding  # the checks compared something


def test_each_chart_has_a_title_a_text_alternative_and_its_table() -> None:
    info = read_dataset_info(EMBEDDED)
    figures = figures_of(EMBEDDED)
    drawn = charts.charts(figures)
    assert [c.id for c in drawn] == ["chart-pipeline", "chart-sectors", "chart-funding"]
    page = landing_page(info, {}, figures).decode("utf-8")
    for chart in drawn:
        figure = re.search(rf'<figure id="{chart.id}".*?</figure>', page, re.S)
        assert figure is not None, chart.id
        body = figure.group(0)
        svg = re.search(r"<svg [^>]*>", body).group(0)  # type: ignore[union-attr]
        assert 'role="img"' in svg
        labelled = re.search(r'aria-labelledby="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
        described = re.search(r'aria-describedby="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
        assert f'<title id="{labelled}">{html.escape(chart.title)}</title>' in body
        assert f'id="{described}">{html.escape(chart.summary)}</' in body
        table = body[body.index("<table>"):body.index("</table>")]
        assert [html.unescape(c) for c in re.findall(r'<th scope="col">([^<]*)</th>', table)] == chart.columns
        cells = [re.findall(r"<t[hd]>([^<\n]*)", row) for row in re.findall(r"<tr><th>[^\n]*", table)]
        assert [[html.unescape(c) for c in row] for row in cells] == chart.rows
    pipeline = drawn[0]
    assert sum(int(c) for row in pipeline.rows for c in row[1:]) == sum(
        sum(counts.values()) for _, counts in figures.pipeline)


def test_same_figures_same_bytes_and_plain_numbers() -> None:
    figures = figures_of(EMBEDDED)
    first = [c.svg for c in charts.charts(figures)]
    assert first == [c.svg for c in charts.charts(figures_of(EMBEDDED))]
    for svg in first:
        numbers = re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.sub(r">[^<]*<", "><", str(svg)))
        assert all(re.fullmatch(r"-?\d+(\.\d)?", n) for n in numbers), [n for n in numbers if "e" in n or
                                                                          len(n.partition(".")[2]) > 1]


def test_what_the_charts_add_to_the_page_is_bounded() -> None:
    """The embedded build's page grows by less than PAGE_GROWTH bytes; figures of any size draw a bounded
    number of bars (months, sectors and years are windows or vocabularies, not rows)."""
    info = read_dataset_info(EMBEDDED)
    figures = figures_of(EMBEDDED)
    growth = len(landing_page(info, {}, figures)) - len(landing_page(info, {}))
    print(f"charts: {growth:,} bytes of the landing page")
    assert 0 < growth < PAGE_GROWTH
    many = charts.Figures(
        [(f"20{y:02d}-{m:02d}", {s: 10**6 for s in charts.STATUSES}) for y in range(23, 26) for m in range(1, 11)],
        [(f"s{i}", f"Sector {i}", 10**15 - i, 10**5) for i in range(30)],
        [(year, 10**6, 10**15) for year in range(2006, 2026)])
    big = sum(len(str(c.svg)) + len(str(c.rows)) for c in charts.charts(many))
    assert big < 3 * PAGE_GROWTH, big


def test_no_chart_without_data_and_text_is_escaped() -> None:
    assert charts.charts(None) == []
    assert charts.charts(charts.Figures([("2025-01", {})], [], [])) == []
    (chart,) = charts.charts(charts.Figures([], [("x", "<b>R&D</b>", 10**9, 1)], []))
    assert "<b>" not in chart.svg and "&lt;b&gt;R&amp;D&lt;/b&gt;" in chart.svg
    assert charts.usd(4_529_750_000_000) == "$4.5T" and charts.usd(24_000_000) == "$24M"
    assert charts.usd(500) == "$500"
