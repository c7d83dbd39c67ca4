"""The landing page's charts, drawn at build time from the data as inline SVG: no script, no external resource.

Three charts: the IPO pipeline by month and status (stacked bars), current valuations by sector (horizontal bars)
and equity funding by year (bars). Each is an ``<svg role="img">`` with a title and a text alternative, and the
figures it draws as a table (the template puts it under the chart). Sizes are bounded whatever the dataset
(at most ``MONTHS_BACK + MONTHS_AHEAD`` months, ``YEARS`` years, every sector), so the page grows by a few KB
and nothing else is written. Coordinates are integers or fixed decimals: the same data gives the same bytes.

The figures follow the API's own rules: an IPO's month is its ``status_date`` (``sql/ipos.sql``), a sector's
valuation is the sum of current valuations (``industry_rows`` in ``sql/views.sql``), funding is equity rounds
(``round_kinds``).
"""

from __future__ import annotations

import datetime as dt
import typing
from dataclasses import dataclass
from html import escape

import duckdb
from markupsafe import Markup

from generator.api import queries
from generator.dataset.schema import DatasetInfo
from generator.dataset.vocabulary import IpoStatus

STATUSES: tuple[str, ...] = typing.get_args(IpoStatus)
MONTHS_BACK = 24
"""Months of the pipeline up to the as-of month (included)."""
MONTHS_AHEAD = 6
"""Months after it that an expected date may fall in (upcoming IPOs)."""
YEARS = 20
"""Years of funding up to the as-of year (included)."""
WIDTH = 360
"""Every chart's viewBox width: drawn about 350 CSS pixels wide at 390, its 11-unit text stays near 11 px."""


@dataclass(frozen=True)
class Figures:
    """What the charts draw, read from the loaded dataset."""

    pipeline: list[tuple[str, dict[str, int]]]
    """(``YYYY-MM``, IPO records per status whose status date falls in that month), every month of the window."""
    sectors: list[tuple[str, str, int, int]]
    """(slug, name, total current valuation in USD, companies valued), largest first; sectors without any left out."""
    funding: list[tuple[int, int, int]]
    """(year, equity rounds, disclosed USD raised), every year of the window that has rounds."""


def _month(day: dt.date, shift: int) -> str:
    index = day.year * 12 + day.month - 1 + shift
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def pipeline_by_month(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> list[tuple[str, dict[str, int]]]:
    sql = queries.read_sql("ipos")
    found = con.execute(
        f"SELECT strftime(status_date, '%Y-%m') AS month, status, count(*) FROM ({sql}) "
        "WHERE status_date IS NOT NULL GROUP BY ALL ORDER BY month, status", queries.sql_params(sql, info),
    ).fetchall()
    first, now = _month(info.as_of, 1 - MONTHS_BACK), _month(info.as_of, 0)
    last = max([now, *(m for m, _, _ in found if m <= _month(info.as_of, MONTHS_AHEAD))])
    counts: dict[str, dict[str, int]] = {}
    for month, status, count in found:
        if first <= month <= last:
            counts.setdefault(month, {})[status] = int(count)
    months, shift = [], 1 - MONTHS_BACK
    while (month := _month(info.as_of, shift)) <= last:
        months.append((month, counts.get(month, {})))
        shift += 1
    return months


def valuation_by_sector(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int, int]]:
    rows = con.execute(
        "SELECT slug, name, total_valuation_usd, valued_company_count FROM industry_rows "
        "WHERE total_valuation_usd > 0 ORDER BY total_valuation_usd DESC, slug").fetchall()
    return [(slug, name, int(total), int(valued)) for slug, name, total, valued in rows]


def funding_by_year(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> list[tuple[int, int, int]]:
    rows = con.execute(
        "SELECT year(r.announced_date) AS year, count(*), coalesce(sum(r.amount_usd), 0) FROM funding_rounds AS r "
        "JOIN round_kinds AS k ON k.id = r.id WHERE k.\"transaction\" = 'equity' AND year(r.announced_date) "
        "BETWEEN $first AND $last GROUP BY year ORDER BY year",
        {"first": info.as_of.year - YEARS + 1, "last": info.as_of.year}).fetchall()
    return [(int(year), int(rounds), int(raised)) for year, rounds, raised in rows]


def figures(con: duckdb.DuckDBPyConnection, info: DatasetInfo) -> Figures:
    """The charts' figures (needs the views of ``sql/views.sql``)."""
    return Figures(pipeline_by_month(con, info), valuation_by_sector(con), funding_by_year(con, info))


# --- drawing --------------------------------------------------------------------------------------------------


def usd(amount: int) -> str:
    """Compact dollars: ``$4.5T``, ``$977.8B``, ``$3.5M``, ``$500K``."""
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if amount >= size:
            return f"${amount / size:.1f}".removesuffix(".0") + suffix
    return f"${amount}"


def _nice(top: int) -> int:
    """The smallest of 1, 2, 2.5 or 5 times a power of ten at or above ``top`` (the axis' end)."""
    power = 1
    while power * 10 <= top:
        power *= 10
    return next(power * step for step in (1, 2, 2.5, 5, 10) if power * step >= top) if top > 0 else 1


@dataclass(frozen=True)
class Chart:
    id: str
    title: str
    summary: str
    """The text alternative: what the chart shows, in a sentence or two."""
    svg: Markup
    columns: list[str]
    rows: list[list[str]]
    """The figures as table cells (the first column is the row's header)."""


def _svg(chart_id: str, height: int, title: str, body: list[str]) -> Markup:
    """The chart's text alternative is its summary, which the template writes once, under the chart
    (``{id}-s``); the title is the figure's caption too."""
    return Markup(
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="{chart_id}-t" '
        f'aria-describedby="{chart_id}-s"><title id="{chart_id}-t">{escape(title)}</title>' + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str) -> str:
    return f'<text x="{x:g}" y="{y:g}">{escape(text)}</text>'


def _axis(top: int, left: int, right: int, base: int, height: int, label: typing.Callable[[int], str]) -> list[str]:
    """Gridlines at 0, half and the top of a vertical axis, labelled on the left."""
    lines = "".join(f"M{left} {base - height * step // 2}H{right}" for step in (0, 1, 2))
    labels = [_text(left - 4, base - height * step // 2 + 4, label(top * step // 2)) for step in (0, 1, 2)]
    return [f'<path class="grid" d="{lines}"/><g class="tick" text-anchor="end">', *labels, "</g>"]


def pipeline_chart(months: list[tuple[str, dict[str, int]]]) -> Chart | None:
    if not months or not any(counts for _, counts in months):
        return None
    left, right, base, height = 34, WIDTH - 4, 150, 130
    top = _nice(max(sum(c.values()) for _, c in months))
    slot = (right - left) / len(months)
    paths: dict[str, list[str]] = {status: [] for status in STATUSES}
    labels = []
    for index, (month, counts) in enumerate(months):
        x, y = left + index * slot + slot * 0.15, base
        for status in STATUSES:
            if counts.get(status):
                h = counts[status] * height / top
                paths[status].append(f"M{x:.1f} {y - h:.1f}h{slot * 0.7:.1f}V{y:.1f}h-{slot * 0.7:.1f}z")
                y -= h
        if month.endswith("-01") or index == 0:
            labels.append(_text(round(left + index * slot, 1), base + 14, month))
    body = _axis(top, left, right, base, height, str)
    body += [f'<path class="s-{s}" d="{"".join(d)}"/>' for s, d in paths.items() if d]
    present = [s for s in STATUSES if paths[s]]
    for index, status in enumerate(present):  # the legend, in stacking order, three to a line
        x, y = left + index % 3 * ((right - left) // 3), 170 + index // 3 * 15
        body += [f'<rect class="s-{status}" x="{x}" y="{y}" width="10" height="10"/>', _text(x + 13, y + 9, status)]
    totals = {s: sum(c.get(s, 0) for _, c in months) for s in STATUSES}
    title = "IPO pipeline by month and status"
    summary = (f"IPO records per month from {months[0][0]} to {months[-1][0]}, stacked by status (the month of the "
               "date that goes with the status): " + ", ".join(f"{totals[s]} {s}" for s in present) + ".")
    rows = [[month, *(str(counts.get(s, 0)) for s in present)] for month, counts in months if counts]
    svg = _svg("chart-pipeline", 170 + (len(present) + 2) // 3 * 15, title,
               [*body, '<g class="tick">', *labels, "</g>"])
    return Chart("chart-pipeline", title, summary, svg, ["Month", *present], rows)


def sector_chart(sectors: list[tuple[str, str, int, int]]) -> Chart | None:
    if not sectors:
        return None
    left, right, row = 150, WIDTH - 46, 16
    top = sectors[0][2]
    names, bars, values = [], [], []
    for index, (_, name, total, _) in enumerate(sectors):
        y = index * row
        width = max(1, round(total * (right - left) / top))
        names.append(_text(left - 4, y + 12, name))
        bars.append(f"M{left} {y + 3}h{width}v{row - 5}h-{width}z")
        values.append(_text(left + width + 3, y + 12, usd(total)))
    body = ['<g text-anchor="end">', *names, f'</g><path class="bar" d="{"".join(bars)}"/><g class="tick">',
            *values, "</g>"]
    title = "Current valuations by sector"
    biggest = ", ".join(f"{name} {usd(total)}" for _, name, total, _ in sectors[:3])
    summary = (f"The sum of current valuations of the companies in each of {len(sectors)} sectors, largest first: "
               f"{biggest}.")
    rows = [[name, usd(total), f"{valued:,}"] for _, name, total, valued in sectors]
    return Chart("chart-sectors", title, summary, _svg("chart-sectors", len(sectors) * row + 2, title, body),
                 ["Sector", "Current valuations", "Companies valued"], rows)


def funding_chart(years: list[tuple[int, int, int]]) -> Chart | None:
    if not years or not any(raised for _, _, raised in years):
        return None
    left, right, base, height = 46, WIDTH - 4, 150, 130
    first, last = years[0][0], years[-1][0]
    by_year = {year: raised for year, _, raised in years}
    top = _nice(max(by_year.values()))
    slot = (right - left) / (last - first + 1)
    body = _axis(top, left, right, base, height, usd)
    bars, labels = [], []
    for year in range(first, last + 1):
        x = left + (year - first) * slot
        if by_year.get(year):
            h = by_year[year] * height / top
            bars.append(f"M{x + slot * 0.15:.1f} {base - h:.1f}h{slot * 0.7:.1f}V{base}h-{slot * 0.7:.1f}z")
        if year in (first, last) or year % 5 == 0:
            labels.append(_text(round(x + slot / 2, 1), base + 14, str(year)))
    body += [f'<path class="bar" d="{"".join(bars)}"/><g class="tick" text-anchor="middle">', *labels, "</g>"]
    title = "Equity funding by year"
    peak = max(years, key=lambda y: (y[2], y[0]))
    summary = (f"Disclosed equity raised in funding rounds per year, {first} to {last}: "
               f"{usd(sum(by_year.values()))} in {sum(r for _, r, _ in years):,} rounds; the most in {peak[0]} "
               f"({usd(peak[2])}).")
    rows = [[str(year), f"{rounds:,}", usd(raised)] for year, rounds, raised in years]
    return Chart("chart-funding", title, summary, _svg("chart-funding", 160, title, body),
                 ["Year", "Rounds", "Equity raised"], rows)


def charts(found: Figures | None) -> list[Chart]:
    """The charts the figures allow (one without data is left out)."""
    if found is None:
        return []
    drawn = (pipeline_chart(found.pipeline), sector_chart(found.sectors), funding_chart(found.funding))
    return [chart for chart in drawn if chart is not None]
