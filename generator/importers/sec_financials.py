"""The SEC's XBRL financial facts made into fiscal years: the concept behind each figure and the rules both readers
share (``sec_companyfacts``: the companyfacts API's documents; ``sec_datasets``: the Financial Statement Data Sets).

Both readers turn their records into ``Observation`` s (a concept's value for a period, in a filing) and the
``Filing`` s they come from; ``annual_rows`` makes one ``financials`` row per fiscal year of a company:

- **Annual reports only:** forms ``ANNUAL_FORMS`` (10-K, 20-F, 40-F, 10-KT and their amendments). A fiscal year
  is a duration of ``YEAR_DAYS`` (350-380 days; the data sets' ``qtrs`` 4); of several durations a filing gives
  with one end, the one closest to a year. Instants (shares) are taken at the period end.
- **The concept of each figure** is the first of ``FIGURES[figure]`` a filing reports for the period: exact names,
  never a loose match (``ContractWithCustomerLiabilityRevenueRecognized`` is revenue *recognised from deferred
  revenue*, not revenue). Each filing is read with its own best concept, so a company that switched concept (Apple:
  ``SalesRevenueNet`` until fiscal 2018, ``RevenueFromContractWithCustomerExcludingAssessedTax`` after) has every
  year, and a year that two filings report under two concepts is one figure.

  ========================  ====================================================================================
  revenue_usd               us-gaap ``Revenues``, ``RevenueFromContractWithCustomerExcludingAssessedTax``,
                            ``RevenueFromContractWithCustomerIncludingAssessedTax``, ``SalesRevenueNet``,
                            ``SalesRevenueGoodsNet``, ``SalesRevenueServicesNet``, ``RevenuesNetOfInterestExpense``;
                            ifrs-full ``Revenue``, ``RevenueFromContractsWithCustomers``
  net_income_usd            us-gaap ``NetIncomeLoss``, ``ProfitLoss``; ifrs-full
                            ``ProfitLossAttributableToOwnersOfParent``, ``ProfitLoss``
  operating_income_usd      us-gaap ``OperatingIncomeLoss``; ifrs-full ``ProfitLossFromOperatingActivities``
  gross_profit_usd          us-gaap ``GrossProfit``; ifrs-full ``GrossProfit``
  shares_outstanding        us-gaap ``CommonStockSharesOutstanding`` at the period end; else dei
                            ``EntityCommonStockSharesOutstanding`` of the year's own report (its cover page; share
                            classes reported on one date summed)
  ========================  ====================================================================================

  ``gross_margin`` = gross profit / revenue, rounded to 4 places.
- **Latest filing wins:** of the filings that report a figure for a period, the latest (filed date, then accession)
  gives it. When it differs from the first-reported value, the filing that brought the value in is the row's
  ``restated_accession_number`` (the latest such filing over the row's figures): a restatement, a recast, a split
  applied to the share count, or a figure given again rounded to millions all make the row's figures other than
  its original report's, and the row says so. ``accession_number`` is the year's own annual report (the
  original, not an amendment; for a year seen only as a comparative, the first report that gave it). A record
  repeated exactly (the same concept, unit, period, value and filing) counts once.
- **Fiscal years as the company labels them:** a filing's ``fy`` describes the filing, not each period in it. A
  period is labelled with the ``fy`` of the annual report whose own period it is (the latest year-long period
  that report holds). Reports are read in runs whose period ends are whole years apart (a change of fiscal year
  end starts a new run); within a run the labels must step by one a year, and the ``fy`` most of the run's reports
  agree with wins over a report tagged off by one (NVIDIA's 10-Ks of 2011-2014), which is counted. A period seen
  only as a comparative is labelled by its offset in years from the nearest labelled period.
- **Currencies:** only USD values fill the ``*_usd`` columns. A figure a year has only in another currency is
  left out and counted with the currency (no exchange-rate source is read here; no rate is made up). A filer
  reporting in another currency that also gives the figure in USD in the same filing for the same period (a
  convenience translation at the rate it states, ORIX's JPY or LG Display's KRW) has its USD figure taken, and
  the row says ``currency_converted_from`` that currency.
- **Out of step:** a comparative year-long period whose end is not a whole number of years from a labelled one
  (a fiscal-year-end change) is left out and counted rather than given a guessed label; so is one whose label a
  labelled period holds.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from generator.dataset.schema import MAX_USD
from generator.importers.base import Context

ANNUAL_FORMS = frozenset({"10-K", "10-K/A", "10-KT", "10-KT/A", "20-F", "20-F/A", "40-F", "40-F/A"})
YEAR_DAYS = (350, 380)
"""A duration this long (in days, both ends included) is a fiscal year; 52-53-week years are 364 or 371."""
STEP_DAYS = 20
"""How far (days) period ends may stray from whole years apart and still be one rhythm of fiscal years."""
YEAR = 365.2425

FIGURES: dict[str, tuple[tuple[str, str], ...]] = {
    "revenue_usd": (
        ("us-gaap", "Revenues"),
        ("us-gaap", "RevenueFromContractWithCustomerExcludingAssessedTax"),
        ("us-gaap", "RevenueFromContractWithCustomerIncludingAssessedTax"),
        ("us-gaap", "SalesRevenueNet"),
        ("us-gaap", "SalesRevenueGoodsNet"),
        ("us-gaap", "SalesRevenueServicesNet"),
        ("us-gaap", "RevenuesNetOfInterestExpense"),
        ("ifrs-full", "Revenue"),
        ("ifrs-full", "RevenueFromContractsWithCustomers"),
    ),
    "net_income_usd": (
        ("us-gaap", "NetIncomeLoss"),
        ("us-gaap", "ProfitLoss"),
        ("ifrs-full", "ProfitLossAttributableToOwnersOfParent"),
        ("ifrs-full", "ProfitLoss"),
    ),
    "operating_income_usd": (
        ("us-gaap", "OperatingIncomeLoss"),
        ("ifrs-full", "ProfitLossFromOperatingActivities"),
    ),
    "gross_profit_usd": (
        ("us-gaap", "GrossProfit"),
        ("ifrs-full", "GrossProfit"),
    ),
}
"""The fallback list of each money figure, in order of preference: the one place both readers take concepts from."""
SHARES = ("us-gaap", "CommonStockSharesOutstanding")
COVER_SHARES = ("dei", "EntityCommonStockSharesOutstanding")
CONCEPTS: frozenset[tuple[str, str]] = frozenset({c for chain in FIGURES.values() for c in chain} |
                                                 {SHARES, COVER_SHARES})
"""Every (taxonomy, concept) read; the readers leave all others out."""
MONEY = "USD"
SHARE_UNIT = "shares"
FIGURE_COLUMNS = (*FIGURES, "shares_outstanding")
_CURRENCY = re.compile(r"^[A-Z]{3}$")

FY_DISAGREES = "sec financials: annual reports whose fy disagrees with the company's other reports (labelled by " \
               "their period)"
LABEL_TAKEN = "sec financials: year-long periods whose fiscal-year label another period of the company has (skipped)"
NO_LABEL = "sec financials: year-long periods of a company none of whose annual reports gives its fy (skipped)"
OUT_OF_STEP = "sec financials: year-long periods out of step with the company's fiscal years (skipped)"
OUT_OF_RANGE = "sec financials: figures out of range (negative revenue or shares, beyond 10^15) (left out)"
MARGIN_OUT = "sec financials: gross margins outside -10..1 (left out)"
TWO_VALUES = "sec financials: filings giving one concept two values for one period (the first kept)"


@dataclass(frozen=True)
class Observation:
    """One value of a concept as one filing reports it."""

    taxonomy: str
    concept: str
    unit: str
    end: str
    days: int | None
    """Length of the period in days; None for an instant."""
    value: Decimal
    accession: str
    where: str
    """The record's place (file and record, or file:line), for the import report."""


@dataclass
class Filing:
    accession: str
    form: str
    filed: str
    fy: int | None

    @property
    def order(self) -> tuple[str, str]:
        return self.filed, self.accession


def margin(gross_profit: str, revenue: str) -> str:
    """Gross profit / revenue as a decimal string to 4 places; '' when either is missing, revenue is not > 0 or the
    ratio is outside what the column takes (-10 to 1)."""
    if not gross_profit or not revenue or int(revenue) <= 0:
        return ""
    ratio = (Decimal(gross_profit) / Decimal(revenue)).quantize(Decimal("0.0001"), ROUND_HALF_EVEN)
    return str(ratio) if -10 <= ratio <= 1 else ""


def _date(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def _years(start: str, end: str) -> float:
    return (_date(end) - _date(start)).days / YEAR


def _in_step(start: str, end: str) -> bool:
    """Whether two period ends are a whole number of years (at least one) apart, give or take ``STEP_DAYS``."""
    years = _years(start, end)
    return round(years) >= 1 and abs(years - round(years)) * YEAR <= STEP_DAYS


def _whole(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), ROUND_HALF_EVEN))


def label_periods(own: dict[str, int | None], ends: Iterable[str], ctx: Context, where: str) -> dict[str, int]:
    """Fiscal-year label of every period end: ``own`` maps the own period of each annual report to its fy."""
    labels: dict[str, int] = {}
    runs: list[list[str]] = []
    for end in sorted(e for e, fy in own.items() if fy is not None):
        if runs and _in_step(runs[-1][-1], end):
            runs[-1].append(end)
        else:
            runs.append([end])
    for run in runs:
        anchors = [(own[end] or 0) - round(_years(run[0], end)) for end in run]
        votes = Counter(anchors)
        best = max(votes.values())
        anchor = next(a for a in reversed(anchors) if votes[a] == best)  # a tie: the newest report's
        for end in run:
            labels[end] = anchor + round(_years(run[0], end))
            if labels[end] != own[end]:
                ctx.skip(FY_DISAGREES, where=f"{where}: period ending {end}: fy {own[end]}, labelled {labels[end]}")
    taken = set(labels.values())
    if not labels:
        rest = sorted(set(ends))
        if rest:
            ctx.skip(NO_LABEL, len(rest), where=f"{where}: periods ending {rest[0]} to {rest[-1]}")
        return labels
    guesses = []
    for end in sorted(set(ends) - set(labels)):
        near = min(labels, key=lambda e: (abs((_date(e) - _date(end)).days), e))
        years = _years(near, end)
        guesses.append((abs(years - round(years)), end, labels[near] + round(years)))
    for off, end, label in sorted(guesses):
        if off * YEAR > STEP_DAYS:
            ctx.skip(OUT_OF_STEP, where=f"{where}: period ending {end}")
            continue
        if label in taken:
            ctx.skip(LABEL_TAKEN, where=f"{where}: period ending {end} (fiscal {label})")
            continue
        labels[end] = label
        taken.add(label)
    return labels


class _Period:
    """The observations of one period end across a company's annual filings."""

    def __init__(self) -> None:
        self.durations: dict[tuple[str, str, str], Observation] = {}
        """(accession, taxonomy, concept) -> its year-long USD observation (the one closest to a year)."""
        self.currencies: dict[tuple[str, str, str], set[str]] = {}
        """(accession, taxonomy, concept) -> the other units it was reported in."""
        self.shares: dict[str, Observation] = {}
        """accession -> its CommonStockSharesOutstanding at the period end."""


def _keep(table: dict, key: tuple | str, obs: Observation, ctx: Context) -> None:
    old = table.get(key)
    if old is None or (obs.days is not None and old.days is not None
                       and abs(obs.days - YEAR) < abs(old.days - YEAR)):
        table[key] = obs
    elif old.value != obs.value and old.days == obs.days:
        ctx.skip(TWO_VALUES, where=obs.where)


def _history(values: list[tuple[Filing, int]]) -> tuple[int, Filing | None]:
    """The latest value, and the filing that brought it in when it differs from the first-reported one."""
    final = values[-1][1]
    if final == values[0][1]:
        return final, None
    i = len(values) - 1
    while values[i - 1][1] == final:
        i -= 1
    return final, values[i][0]


def figures_filing(fields: dict[str, str]) -> str:
    """The accession of the filing whose figures a fiscal year gives: the restating one, or the year's own."""
    return fields.get("restated_accession_number") or fields.get("accession_number", "")


def annual_rows(observations: Iterable[Observation], filings: dict[str, Filing], ctx: Context,
                where: str) -> list[dict[str, str]]:
    """One company's ``financials`` rows (canonical cells, ``fiscal_year`` included), oldest first."""
    annual = {a: f for a, f in filings.items() if f.form in ANNUAL_FORMS}
    periods: dict[str, _Period] = {}
    cover: dict[str, list[Observation]] = {}
    seen: set[tuple[object, ...]] = set()
    for obs in observations:
        identity = (obs.taxonomy, obs.concept, obs.unit, obs.end, obs.days, obs.value, obs.accession)
        if obs.accession not in annual or identity in seen:  # a record repeated as it is: counted once
            continue
        seen.add(identity)
        concept = (obs.taxonomy, obs.concept)
        if concept == COVER_SHARES:
            if obs.days is None and obs.unit == SHARE_UNIT:
                cover.setdefault(obs.accession, []).append(obs)
        elif concept == SHARES:
            if obs.days is None and obs.unit == SHARE_UNIT:
                _keep(periods.setdefault(obs.end, _Period()).shares, obs.accession, obs, ctx)
        elif obs.days is not None and YEAR_DAYS[0] <= obs.days <= YEAR_DAYS[1]:
            period = periods.setdefault(obs.end, _Period())
            key = (obs.accession, *concept)
            if obs.unit == MONEY:
                _keep(period.durations, key, obs, ctx)
            elif _CURRENCY.match(obs.unit):
                period.currencies.setdefault(key, set()).add(obs.unit)
    year_ends = {e for e, p in periods.items() if p.durations or p.currencies}
    own_end: dict[str, str] = {}
    for end in year_ends:
        for accession, *_ in [*periods[end].durations, *periods[end].currencies]:
            own_end[accession] = max(own_end.get(accession, ""), end)
    originals: dict[str, Filing] = {}
    for accession, end in own_end.items():
        if end not in originals or annual[accession].order < originals[end].order:
            originals[end] = annual[accession]
    labels = label_periods({e: f.fy for e, f in originals.items()}, year_ends, ctx, where)
    rows = [_row(end, labels[end], periods[end], annual, originals.get(end), cover, ctx, where)
            for end in sorted(year_ends) if end in labels]
    return [row for row in rows if any(row.get(c) for c in FIGURE_COLUMNS)]


def _row(end: str, label: int, period: _Period, annual: dict[str, Filing], own: Filing | None,
         cover: dict[str, list[Observation]], ctx: Context, where: str) -> dict[str, str]:
    row = {"fiscal_year": str(label), "period_end": end, "basis": "sec-filing"}
    changed: list[Filing] = []
    contributors: list[Filing] = []
    converted: set[str] = set()
    for column, chain in FIGURES.items():
        values: list[tuple[Filing, int]] = []
        others: set[str] = set()
        translated: set[str] = set()
        for accession in sorted({a for a, *_ in period.durations} | {a for a, *_ in period.currencies},
                                key=lambda a: annual[a].order):
            key = next((k for c in chain if (k := (accession, *c)) in period.durations), None)
            if key is not None:
                values.append((annual[accession], _whole(period.durations[key].value)))
                translated = period.currencies.get(key, set())  # the filer's own translation of these
            else:
                others |= {u for c in chain for u in period.currencies.get((accession, *c), ())}
        if not values:
            if others:
                ctx.skip(f"sec financials: figures reported only in {', '.join(sorted(others))}, not USD (no "
                         "exchange-rate source; left out)", where=f"{where}: {column} fiscal {label}")
            continue
        value, restated = _history(values)
        contributors += [f for f, _ in values]
        if abs(value) > MAX_USD or (column == "revenue_usd" and value < 0):
            ctx.skip(OUT_OF_RANGE, where=f"{where}: {column} fiscal {label}: {value}")
            continue
        row[column] = str(value)
        converted |= translated
        if restated is not None:
            changed.append(restated)
    if converted:
        row["currency_converted_from"] = min(converted)
    shares = [(annual[a], _whole(o.value)) for a, o in sorted(period.shares.items(), key=lambda i: annual[i[0]].order)]
    if shares:
        value, restated = _history(shares)
        contributors += [f for f, _ in shares]
        if restated is not None:
            changed.append(restated)
    else:
        value = _cover_shares(end, own, annual, cover)
    if value is not None and 0 <= value <= MAX_USD:
        row["shares_outstanding"] = str(value)
    elif value is not None:
        ctx.skip(OUT_OF_RANGE, where=f"{where}: shares_outstanding fiscal {label}: {value}")
    gross_margin = margin(row.get("gross_profit_usd", ""), row.get("revenue_usd", ""))
    if gross_margin:
        row["gross_margin"] = gross_margin
    elif row.get("gross_profit_usd") and int(row.get("revenue_usd") or 0) > 0:
        ctx.skip(MARGIN_OUT, where=f"{where}: fiscal {label}")
    first = own or min(contributors, key=lambda f: f.order, default=None)
    if first is not None:
        row |= {"accession_number": first.accession, "filed_date": first.filed}
        later = [f for f in changed if f.order > first.order]
        if later:
            last = max(later, key=lambda f: f.order)
            row |= {"restated_accession_number": last.accession, "restated_date": last.filed}
    return row


def _cover_shares(end: str, own: Filing | None, annual: dict[str, Filing],
                  cover: dict[str, list[Observation]]) -> int | None:
    """The shares on the cover of the year's own report (its amendments' when it has none): the classes of the
    latest date given, summed."""
    if own is None:
        return None
    reports = [own] + sorted((f for f in annual.values() if f.order > own.order and f.form.endswith("/A")
                              and f.fy == own.fy and f.accession in cover), key=lambda f: f.order)
    for report in reports:
        dated = [o for o in cover.get(report.accession, []) if o.end >= end]
        if dated:
            latest = max(o.end for o in dated)
            return sum(_whole(o.value) for o in dated if o.end == latest)
    return None
