"""SEC EDGAR submissions documents, read whole: ``data.sec.gov/submissions/CIK##########.json`` (one filer) and
its older pages ``CIK##########-submissions-NNN.json`` (bare column arrays of further filings).

From a filer's document:

- **Who:** ``entityType`` tells filers apart. An ``individual`` is a person, not a company; so is an ``other``
  filer that has no EIN, reports insider transactions as an owner only, and files nothing but ownership forms
  (3, 4, 5, 144, 13D/13G, 13F: Warren Buffett, Reed Hastings). People are skipped and counted.
- **The listing:** ``tickers`` and ``exchanges`` are parallel lists; the first ticker on an exchange is the
  company's listing (the SEC lists the primary line first; preferreds such as ``TWO-PA`` come after). A company
  with a listing is public, with its ticker and exchange.
- **Where:** the business address (the mailing address when the business one is empty): a US state or territory
  code is the United States; otherwise the country EDGAR names (``country``, or ``stateOrCountryDescription`` for
  EDGAR's own codes such as ``M0`` Japan). Its city is the headquarters city.
- **What:** SIC, mapped to a sector where none is known; ``fiscalYearEnd`` (``MMDD``) as ``fiscal_year_end``.
- **Names it had:** ``formerNames`` with their dates (kept in ``aliases``). A name whose dates are reversed (``from``
  after ``to``, which real records have) keeps the name without dates; a date that is not a date is dropped;
  both are reported.
- **Filings:** ``filings.recent`` and the pages, of the forms the ``filings`` table knows.

A value of the wrong type in one field (a NaN, a number where a name goes) skips that field or record and is
reported; a document without ``cik`` and ``name`` fails the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generator.dataset.schema import ACCESSION_PATTERN
from generator.importers import jsondoc
from generator.importers.base import (
    CompanyFact,
    Context,
    Fact,
    FilingFact,
    SourceError,
    clean,
    display_name,
    ticker,
)

FILER = re.compile(r"^CIK(\d{10})\.json$")
PAGE = re.compile(r"^CIK(\d{10})-submissions-\d{3}\.json$")
FILER_KEYS = frozenset({"cik", "name"})
"""A filer's document opens with these (then ``entityType``, or ``filings`` further down)."""
OWNERSHIP_FORMS = re.compile(r"^(3|4|5|144|13F-(HR|NT)|SC 13[DG]|SCHEDULE 13[DG]|13[DG])(/A)?$")
"""Forms a person files: insider reports, sales notices, beneficial ownership, a manager's holdings."""
PERIODIC_FORMS = re.compile(r"^(10-K|10-Q|20-F|40-F|10-KT)(/A)?$")
US_CODES = frozenset({
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
    "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
    "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "PR", "VI", "GU", "AS", "MP", "X1",
})
"""EDGAR's codes of US states and territories (``X1``: "United States", unspecified)."""
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
_FISCAL_YEAR_END = re.compile(r"^(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$")
PEOPLE = "edgar: submissions of individual filers (people, not companies)"


def detect(path: Path) -> int | None:
    """A filer's document (rank 12, after the ticker lists and the sector table, whose finer industries its SIC code
    only fills in where they say nothing) or one of its pages (13), by the keys it holds."""
    if path.suffix != ".json":
        return None
    first = jsondoc.top_keys(path)  # a page's first array may hide its other keys past the first bytes
    keys = set(first)
    if keys & {"facts", "entityName"}:
        return None  # a companyfacts document, which EDGAR names the same way
    if (keys >= FILER_KEYS and keys & {"entityType", "filings"}) or (FILER.match(path.name) and first[:1] == ["cik"]):
        return 12
    if PAGE.match(path.name) and jsondoc.top_keys(path)[:1] == ["accessionNumber"]:
        return 13
    return None


def read(path: Path, ctx: Context, forms: frozenset[str]) -> Iterator[Fact]:
    document = jsondoc.read(path)
    if not isinstance(document, dict):
        raise SourceError(path, 1, "expected a JSON object")
    if PAGE.match(path.name) and "cik" not in document:
        cik = str(int(PAGE.match(path.name).group(1)))  # type: ignore[union-attr]
        yield from _filings(path, ctx, document, CompanyFact("", cik=cik, create=False), forms)
        return
    company = filer(path, ctx, document)
    if company is not None:
        ctx.at("")
        yield company
        yield from _filings(path, ctx, (document.get("filings") or {}).get("recent") or {},
                            CompanyFact(company.name, cik=company.cik, create=False), forms)


def _text(value: Any) -> str:
    return clean(value) if isinstance(value, str) else ""


def is_person(document: dict[str, Any]) -> bool:
    kind = _text(document.get("entityType")).lower()
    if kind == "individual":
        return True
    if kind not in ("other", "") or _text(document.get("ein")) or document.get("insiderTransactionForOwnerExists") != 1:
        return False
    forms = _forms(document)
    return bool(forms) and all(OWNERSHIP_FORMS.match(f) for f in forms)


def filer(path: Path, ctx: Context, document: dict[str, Any]) -> CompanyFact | None:
    raw_cik, name = document.get("cik"), _text(document.get("name"))
    cik = str(raw_cik).strip() if isinstance(raw_cik, int | str) and not isinstance(raw_cik, bool) else ""
    if not cik.isdigit() or int(cik) == 0 or not name:
        raise SourceError(path, 1, f"a submissions document needs a CIK and a name (found {raw_cik!r}, "
                          f"{document.get('name')!r})")
    twice = sorted(k for k in getattr(document, "repeated", ()) if len({repr(v) for key, v in document.pairs
                                                                        if key == k}) > 1)
    if twice:
        ctx.skip("edgar: submissions documents giving a key twice with two values (skipped)",
                 where=f"{path.name}: {', '.join(twice)}")
        return None
    if is_person(document):
        ctx.skip(PEOPLE, where=f"{path.name} ({name})")
        return None
    fact = CompanyFact(display_name(name), cik=str(int(cik)), former_names=_former_names(path, ctx, document))
    fact.fields["name"] = fact.name  # the filer's own record names it as it is now (a SPAC renamed by its merger)
    listing = _listing(ctx, document)
    if listing:
        fact.ticker, fact.fields["exchange"] = listing
        fact.fields["status"] = "public"
    elif any(PERIODIC_FORMS.match(form) for form in _forms(document)):
        fact.defaults["status"] = "delisted"  # it reported as a listed company, and holds no listing now
    country, city = _address(ctx, document)
    if country:
        fact.country = country
    if city:
        fact.defaults["headquarters_city"] = city
    sic = _text(document.get("sic"))
    sector = ctx.mapper.sic(sic) if sic else None
    if sector:
        fact.defaults["sector"] = sector
    year_end = _text(document.get("fiscalYearEnd"))
    if _FISCAL_YEAR_END.match(year_end):
        fact.fields["fiscal_year_end"] = f"{year_end[:2]}-{year_end[2:]}"
    elif year_end:
        ctx.skip("edgar: fiscal year ends that are no month and day (dropped)", where=f"{path.name}: {year_end!r}")
    return fact


def _forms(document: dict[str, Any]) -> list[str]:
    recent = (document.get("filings") or {}).get("recent") or {}
    return [f for f in recent.get("form") or [] if isinstance(f, str)] if isinstance(recent, dict) else []


def _listing(ctx: Context, document: dict[str, Any]) -> tuple[str, str] | None:
    tickers, exchanges = document.get("tickers") or [], document.get("exchanges") or []
    if not isinstance(tickers, list) or not isinstance(exchanges, list):
        return None
    for symbol, venue in zip(tickers, exchanges, strict=False):
        exchange = ctx.mapper.exchange(venue) if isinstance(venue, str) and venue else None
        code = ticker(symbol, ctx) if isinstance(symbol, str) else ""
        if exchange and code:
            return code, exchange
    return None


def _address(ctx: Context, document: dict[str, Any]) -> tuple[str, str]:
    addresses = document.get("addresses") or {}
    for kind in ("business", "mailing"):
        address = addresses.get(kind) if isinstance(addresses, dict) else None
        if not isinstance(address, dict):
            continue
        code = _text(address.get("stateOrCountry")).upper()
        named = _text(address.get("country")) or _text(address.get("stateOrCountryDescription"))
        city = display_name(_text(address.get("city")))
        if code in US_CODES:
            return "us", city
        if named and not re.fullmatch(r"[A-Z0-9]{2}", named):
            return ctx.mapper.country(named) or "", city
        if city:
            return "", city
    return "", ""


def _former_names(path: Path, ctx: Context, document: dict[str, Any]) -> list[tuple[str, str, str]]:
    former = []
    entries = document.get("formerNames") or []
    for n, entry in enumerate(entries if isinstance(entries, list) else []):
        name = _text(entry.get("name")) if isinstance(entry, dict) else ""
        if not name:
            ctx.skip("edgar: former names without a name (dropped)", where=f"{path.name}: formerNames[{n}]")
            continue
        dates = []
        for key in ("from", "to"):
            value = entry.get(key)
            if value and not (isinstance(value, str) and _DAY.match(value)):
                ctx.skip("edgar: former-name dates that are no dates (dropped)",
                         where=f"{path.name}: formerNames[{n}].{key}")
                value = ""
            dates.append(value[:10] if value else "")
        if dates[0] and dates[1] and dates[0] > dates[1]:
            ctx.skip("edgar: former names whose dates are reversed (name kept, dates dropped)",
                     where=f"{path.name}: formerNames[{n}] {dates[0]} > {dates[1]}")
            dates = ["", ""]
        former.append((display_name(name), dates[0], dates[1]))
    return former


def _filings(path: Path, ctx: Context, columns: dict[str, Any], company: CompanyFact,
             forms: frozenset[str]) -> Iterator[Fact]:
    """The filings of the column arrays ``columns`` (accessionNumber, filingDate, form, primaryDocument)."""
    if not isinstance(columns, dict):
        return
    accessions, dates, kinds = (columns.get(k) or [] for k in ("accessionNumber", "filingDate", "form"))
    documents = columns.get("primaryDocument") or []
    if not all(isinstance(c, list) for c in (accessions, dates, kinds, documents)) or not (
            len(accessions) == len(dates) == len(kinds)):
        ctx.skip("edgar: submissions filing columns of unequal lengths (not read)", where=path.name)
        return
    for i, (accession, date, form) in enumerate(zip(accessions, dates, kinds, strict=True)):
        if form not in forms:
            continue
        if not (isinstance(accession, str) and re.fullmatch(ACCESSION_PATTERN, accession)
                and isinstance(date, str) and _DAY.fullmatch(date)):
            ctx.skip("edgar: submissions filings without an accession number or date (skipped)",
                     where=f"{path.name}: filings[{i}]")
            continue
        document = documents[i] if i < len(documents) and isinstance(documents[i], str) else ""
        ctx.at(accession)
        yield FilingFact(company, {
            "form": form, "filed_date": date, "accession_number": accession,
            "description": f"EDGAR {form} {document}".strip() if document else f"EDGAR {form}",
        })
