"""SEC EDGAR: ``company_tickers.json``, ``company_tickers_exchange.json``, the submissions documents
(``CIK##########.json``), full-index ``form.idx`` and daily ``master.idx``.

The ticker lists give public companies (CIK, ticker, name; the exchange list adds the venue); a CIK with several
tickers (share classes) keeps the first one listed, which is the SEC's primary line. The indexes give filings
(form, CIK, date, EDGAR path; the accession number is read off the path). Only the forms the canonical
``filings`` table knows are kept; the others are counted as skipped. A filing creates its company only for
forms that belong to a private company or an IPO (Form D, S-1, F-1, DRS, 424B, RW); a 10-K or 8-K of a CIK that
no company list named is skipped and counted. A submissions document gives its company (CIK, name, the sector of
its SIC code where none is known) and the names it had before, with the dates EDGAR gives (``formerNames``,
kept in ``aliases``: searching and matching find the company by them); its tickers and filings are left to the
ticker lists and the indexes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

from generator.dataset.schema import FilingForm
from generator.importers import edgar_submissions, jsondoc
from generator.importers.base import (
    CompanyFact,
    Context,
    Fact,
    FilingFact,
    Source,
    SourceError,
    clean,
    display_name,
    read_text,
    ticker,
)

SOURCE = Source("edgar", "sec-filing", "SEC EDGAR company ticker lists and filing indexes (sec.gov)",
                current_tickers=True)
FORMS = frozenset(get_args(FilingForm))
CREATES_COMPANY = frozenset({"D", "D/A", "S-1", "S-1/A", "F-1", "F-1/A", "DRS", "424B4", "424B1", "RW"})
_FORM_IDX_HEADER = ("Form Type", "Company Name", "CIK", "Date Filed", "File Name")
_MASTER_HEADER = "CIK|Company Name|Form Type|Date Filed|File Name"
_ACCESSION = re.compile(r"(\d{10}-\d{2}-\d{6})\.txt$")


def detect(path: Path) -> int | None:
    """By what a file holds, not only its name: EDGAR names submissions and companyfacts documents alike."""
    name = path.name
    if name.startswith("company_tickers") and name.endswith(".json"):
        keys = jsondoc.top_keys(path)
        empty = jsondoc.head(path).rstrip() == b"{}"
        return 0 if empty or (keys and (keys[:2] == ["fields", "data"] or keys[0].isdigit())) else None
    if name.endswith(".idx") and (name.startswith("form") or name.startswith("master")):
        start = jsondoc.head(path, 8192)
        return 90 if b"Form Type" in start or b"CIK|Company Name" in start else None
    return edgar_submissions.detect(path)


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    if edgar_submissions.detect(path) is not None:
        yield from edgar_submissions.read(path, ctx, FORMS)
    elif path.suffix == ".json":
        yield from _tickers(path, ctx)
    elif path.name.startswith("master"):
        yield from _master(path, ctx)
    else:
        yield from _form_idx(path, ctx)


def _ticker_rows(path: Path, ctx: Context) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, {cik, name, ticker[, exchange]}) of a ticker list in either layout; a record of the wrong shape is
    skipped and reported (the layout itself being wrong fails the file)."""
    data = jsondoc.read(path)
    if isinstance(data, dict) and "fields" in data:
        fields = data["fields"]
        if fields != ["cik", "name", "ticker", "exchange"] or not isinstance(data.get("data"), list):
            raise SourceError(path, 1, f"fields must be [cik, name, ticker, exchange] with a list of data (found "
                              f"{fields!r})")
        for n, values in enumerate(data["data"]):
            if not isinstance(values, list) or len(values) != len(fields):
                ctx.skip("edgar: ticker-list records of the wrong shape (skipped)", where=f"{path.name}: data[{n}]")
                continue
            ctx.at(f"data[{n}]")
            yield f"{path.name}: data[{n}]", dict(zip(fields, values, strict=True))
    elif isinstance(data, dict):
        for index, entry in jsondoc.items(data):
            if not isinstance(entry, dict) or set(entry) != {"cik_str", "ticker", "title"} or entry.repeated:
                ctx.skip("edgar: ticker-list records of the wrong shape (skipped)", where=f"{path.name}: {index!r}")
                continue
            if index in data.repeated:
                ctx.skip("edgar: ticker-list keys given twice (each record read)", where=f"{path.name}: {index!r}")
            row = {"cik": entry["cik_str"], "name": entry["title"], "ticker": entry["ticker"]}
            ctx.at(index)
            yield f"{path.name}: {index!r}", row
    else:
        raise SourceError(path, 1, "expected an object of {cik_str, ticker, title} or {fields, data}")


def _cik(value: Any) -> str:
    """A CIK from a number or a digit string ('' for anything else: NaN, null, a fraction, a word)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    number = jsondoc.number(value)
    return str(int(number)) if number is not None and number == int(number) and 0 < number < 10**10 else ""


def _tickers(path: Path, ctx: Context) -> Iterator[Fact]:
    seen: set[str] = set()
    for where, row in _ticker_rows(path, ctx):
        cik, name = _cik(row["cik"]), clean(row["name"]) if isinstance(row["name"], str) else ""
        if not cik or not name or not isinstance(row["ticker"], str | None):
            ctx.skip("edgar: ticker-list records without a CIK, name or ticker (skipped)", where=where)
            continue
        if cik in seen:
            ctx.skip("edgar: further tickers of a CIK (share classes)")
            continue
        seen.add(cik)
        symbol = ticker(clean(row["ticker"] or ""), ctx)
        fields = {"status": "public"}
        if "exchange" in row:
            exchange = ctx.mapper.exchange(row["exchange"] if isinstance(row["exchange"], str) else "")
            if exchange:
                fields["exchange"] = exchange
        yield CompanyFact(display_name(name), cik=cik, ticker=symbol, fields=fields)


def _filing(ctx: Context, form: str, name: str, cik: str, date: str, file_name: str) -> Fact | None:
    if form not in FORMS:
        ctx.skip("edgar: filings of forms the filings table does not list")
        return None
    match = _ACCESSION.search(file_name)
    company = CompanyFact(display_name(name), cik=str(int(cik)),
                          create=form in CREATES_COMPANY)
    if form in CREATES_COMPANY:
        company.defaults["status"] = "private"
    return FilingFact(company, {
        "form": form, "filed_date": date, "accession_number": match.group(1) if match else "",
        "description": f"EDGAR {file_name}",
    })


def _form_idx(path: Path, ctx: Context) -> Iterator[Fact]:
    lines = read_text(path, "latin-1").splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.startswith("Form Type")), None)
    if header_at is None or header_at + 1 >= len(lines) or not lines[header_at + 1].startswith("---"):
        raise SourceError(path, 1, "expected a header line 'Form Type  Company Name  CIK  Date Filed  File Name'")
    header = lines[header_at]
    starts = [header.find(title) for title in _FORM_IDX_HEADER]
    if -1 in starts or starts != sorted(starts):
        raise SourceError(path, header_at + 1, f"header must name, in order: {', '.join(_FORM_IDX_HEADER)}")
    for number, line in enumerate(lines[header_at + 2:], start=header_at + 3):
        if not line.strip():
            continue
        form, name, cik, date = (line[a:b].strip() for a, b in zip(starts, starts[1:], strict=False))
        file_name = line[starts[4]:].strip()
        if not cik.isdigit() or len(date) != 10 or not file_name:
            raise SourceError(path, number, f"expected fixed-width columns at {starts} (found {line.strip()!r})")
        ctx.at(number)
        fact = _filing(ctx, form, name, cik, date, file_name)
        if fact is not None:
            yield fact


def _master(path: Path, ctx: Context) -> Iterator[Fact]:
    lines = read_text(path, "latin-1").splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.startswith("CIK|")), None)
    if header_at is None or lines[header_at].strip() != _MASTER_HEADER:
        raise SourceError(path, (header_at or 0) + 1, f"expected a header line {_MASTER_HEADER!r}")
    for number, line in enumerate(lines[header_at + 1:], start=header_at + 2):
        if not line.strip() or line.startswith("---"):
            continue
        parts = line.split("|")
        if len(parts) != 5 or not parts[0].isdigit() or not (len(parts[3]) == 8 and parts[3].isdigit()):
            raise SourceError(path, number, f"expected {_MASTER_HEADER} with the date as YYYYMMDD (found {line!r})")
        cik, name, form, date, file_name = parts
        ctx.at(number)
        fact = _filing(ctx, form, name, cik, f"{date[:4]}-{date[4:6]}-{date[6:]}", file_name)
        if fact is not None:
            yield fact
