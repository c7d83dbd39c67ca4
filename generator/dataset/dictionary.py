"""The data dictionary (``data/README.md``), generated from the input-table models so it cannot drift."""

from __future__ import annotations

import typing

from pydantic.fields import FieldInfo

from generator.dataset.cells import leaf_types
from generator.dataset.database import duckdb_type
from generator.dataset.schema import CHANGES, IPO_STATUS_DATE, PROVENANCE, TABLES, DatasetInfo, Table

INTRO = """# Data dictionary

The canonical dataset: one CSV file per table (UTF-8, header row, comma-separated, RFC 4180 quoting) plus
`dataset.json`. `python -m generator check --data data` validates it; the build refuses anything invalid and
names file, line, column and reason for every problem.

This file is generated from `generator/dataset/schema.py` by `python -m generator data-dictionary`; a test fails when it
is out of date.

Conventions:
- money is whole US dollars in `*_usd` integer columns; per-share prices are US cents in `*_cents` integers;
- ratios are decimals (0.25 = 25 %); dates are ISO 8601 `YYYY-MM-DD`;
- an empty cell is null; `required` columns may not be empty;
- columns appear in the order listed; optional columns at the end of a table may be left out of the file
  altogether (a file written before they were added still loads, with nulls or their default);
- categorical values are lowercase slugs `[a-z0-9-]`; countries are ISO 3166-1 alpha-2, lowercase (`us`);
- `basis` says where a figure comes from: `sec-filing`, `company-report`, `exchange-data`, `market-cap` (a listed
  company's market value on `valuation_date`: price times shares, from an exchange's list), `press-report`, or
  `estimate` for anything that is not a disclosed number;
- no date may lie after `as_of` in `dataset.json`, except `ipos.expected_date` and `offerings.close_date`;
- a figure converted from another currency names that currency in `currency_converted_from`.

Derived figures:
- **Current valuation**: a public company's market capitalisation and a private company's latest valuation are
  current unless `companies.valuation_is_current` is false; an acquired company's figure (acquisition price or
  last private mark), a closed company's last mark and a delisted company's last figure are history; `delisted`
  is a company listed once (an IPO on record) that holds no current listing. An import makes history of a public
  company's imported valuation that is no market value (`market-cap`: a private mark, a press report) when it is
  dated before the company's listing or no list of market values describes the company. The API's `valuation_usd`
  in listings, `sort=valuation`, `minValuation`, sector ranks and industry totals use current valuations only; the
  last known figure stays in the profile (`valuation_usd` with `valuation_is_current` false).
- **Funding totals**: `total_raised_usd` sums rounds of new equity (`transaction` equity, convertible notes
  included); stake purchases of existing shares, buyouts and debt are summed apart as `other_transactions_usd`.
- **Secondary marks** (`secondary_prices.csv`) are observed transactions only: a tender offer or secondary sale
  (`offering_id`) in the month of its announcement (`observed_date`), `method` observed. A point between
  transactions, if any, may only carry forward the latest mark dated on or before it (`method` carried-forward);
  nothing is interpolated towards a later figure.

The figures are compiled from public sources for research use and are estimates: check primary filings before
relying on them. The only URLs stored are news items' `article_url` (the article, as its feed gives it); every other
link in the API is built from public identifiers (SEC CIK, accession number) or is the company's own domain.

News: every item says where it comes from (`news.origin`): `feed`, an item of a news feed (`publisher` and
`article_url`); `compiled`, written from the dataset's own records (the IPO, round, filing or offering it links in
`ipo_id`, `round_id`, `filing_id` or `offering_id`, a record of the same company; none linked: the company
record itself, its acquisition or valuation). The embedded sample names a source for every item: 172 compiled;
19 items written from press coverage that no record of the dataset carries were removed (nothing let a reader trace
them).
"""


def _annotated_field_infos(annotation: object) -> list[FieldInfo]:
    """Field infos of ``Annotated[...]`` aliases inside an annotation (e.g. ``UsdAmount | None``)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return [a for a in typing.get_args(annotation)[1:] if isinstance(a, FieldInfo)]
    return [i for arg in typing.get_args(annotation) for i in _annotated_field_infos(arg)]


def _allowed(info: FieldInfo) -> str:
    notes = []
    for leaf in leaf_types(info.annotation):
        args = typing.get_args(leaf)
        if typing.get_origin(leaf) is list and args:
            leaf = args[0]
            args = typing.get_args(leaf)
        if typing.get_origin(leaf) is typing.Literal:
            notes.append(", ".join(f"`{a}`" for a in args))
    constraints, descriptions = list(info.metadata), [info.description]
    for inner in _annotated_field_infos(info.annotation):
        constraints += inner.metadata
        descriptions.append(inner.description)
    for constraint in constraints:
        for name in ("ge", "le", "pattern", "min_length", "max_length"):
            value = getattr(constraint, name, None)
            if value is not None:
                notes.append(f"{name} {value}")
    notes += [d for d in dict.fromkeys(descriptions) if d]
    return "; ".join(notes).replace("|", "\\|")


def _table(table: Table) -> str:
    lines = [f"## `{table.file_name}`", ""]
    if table.optional:
        lines.append("Optional: a folder without the file has no rows of it.")
    lines.append(f"Primary key: {', '.join(f'`{k}`' for k in table.key)}.")
    if table.unique:
        lines.append(f"Unique when present: {', '.join(f'`{u}`' for u in table.unique)}.")
    for fk in table.foreign_keys:
        lines.append(f"`{fk.column}` references `{fk.table}.{fk.target}`.")
    if table is PROVENANCE:
        lines.append("Written by `python -m generator import` (docs/provenance.md): the build publishes it as a table "
                     "of the exports and as each company profile's `sources`.")
    if table is CHANGES:
        lines.append("Written by `python -m generator changes record` (docs/changes.md): the build publishes its "
                     "events within the window at /api/changes beside the dated facts of the other tables.")
    if table.name == "ipos":
        lines.append("The date that goes with each status is required: " + ", ".join(
            f"{status} -> `{column}`" for status, column in IPO_STATUS_DATE.items()) + ".")
    lines += ["", "| column | type | required | allowed values, units, notes |", "|---|---|---|---|"]
    for name, info in table.model.model_fields.items():
        kind = duckdb_type(info.annotation).lower()
        required = "yes" if type(None) not in leaf_types(info.annotation) and info.is_required() else "no"
        lines.append(f"| `{name}` | {kind} | {required} | {_allowed(info)} |")
    return "\n".join(lines) + "\n"


def data_dictionary() -> str:
    info_fields = "\n".join(f"- `{name}`: {field.description or name}" for name, field in
                            DatasetInfo.model_fields.items())
    parts = [INTRO, "## `dataset.json`\n\n" + info_fields + "\n", *(_table(t) for t in TABLES)]
    return "\n".join(parts)
