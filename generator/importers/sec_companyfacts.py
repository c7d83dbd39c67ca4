"""SEC XBRL company facts: ``data.sec.gov/api/xbrl/companyfacts/CIK##########.json``, every fact a company reported,
``{"cik", "entityName", "facts": {taxonomy: {concept: {"units": {unit: [fact, ...]}}}}}``.

Recognised by what the document holds (first-level keys ``facts`` and ``entityName``), not its name: EDGAR names
submissions documents alike. Only the concepts of ``sec_financials.CONCEPTS`` are read; the fiscal years are made
by ``sec_financials.annual_rows`` (see there for the rules). Each fact is ``{"start"?, "end", "val", "accn", "fy",
"fp", "form", "filed", "frame"?}``; ``fy``/``fp`` describe the filing, not the period.

``cik`` is an integer in some bodies and a zero-padded string in others. The facts enrich a company a company list
made (``create=False``): a CIK no imported list named is counted in the report, not created.

A fact a body gets wrong (a NaN or text ``val``, no ``end`` or ``accn``, a date that is not one, a field given twice
with two values) is skipped and counted with its place (``CIK....json: us-gaap/Revenues/USD[12]``); a document
without ``cik``, ``entityName`` and ``facts`` fails the file. JSON is read only through ``jsondoc`` (repeated keys,
NaN, depth and size).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from generator.dataset.schema import ACCESSION_PATTERN
from generator.importers import jsondoc
from generator.importers.base import CompanyFact, Context, Fact, FinancialFact, Source, SourceError, display_name
from generator.importers.sec_financials import CONCEPTS, Filing, Observation, annual_rows, figures_filing

SOURCE = Source("sec-companyfacts", "sec-filing", "SEC XBRL company facts (data.sec.gov companyfacts API)")
DETECT_RANK = 50
"""After the company lists: the facts enrich companies they made."""
ACCESSION = re.compile(ACCESSION_PATTERN)
_TAXONOMIES = frozenset(t for t, _ in CONCEPTS)
BAD_VALUE = "sec-companyfacts: facts whose val is not a number (NaN, text, null) (skipped)"
INCOMPLETE = "sec-companyfacts: facts missing end, accn, form or filed, or with a date that is not one (skipped)"
TWICE = "sec-companyfacts: facts giving a field twice with two values (skipped)"
SHAPE = "sec-companyfacts: concepts or units that are not what the format says (skipped)"


def detect(path: Path) -> int | None:
    if path.suffix != ".json":
        return None
    keys = set(jsondoc.top_keys(path))
    return DETECT_RANK if {"facts", "entityName"} <= keys else None


def _cik(value: Any) -> str:
    """The CIK as the companies table writes it ('' when it is none): an integer or a zero-padded digit string."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    number = jsondoc.number(value)
    return str(int(number)) if number is not None and number == int(number) and 0 < number < 10**10 else ""


def _day(value: Any) -> str:
    if not isinstance(value, str) or len(value) != 10:
        return ""
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        return ""


def _field(value: Any, key: str) -> Any:
    """A field of a fact; ``...`` when the fact gives it twice with two values."""
    if (isinstance(value, jsondoc.JsonObject) and key in value.repeated
            and len({repr(v) for k, v in value.pairs if k == key}) > 1):
        return ...
    return value.get(key)


def company(path: Path) -> tuple[str, str, Any]:
    """(cik, name, facts) of a document; fails when it has none of them."""
    document = jsondoc.read(path)
    if not isinstance(document, dict):
        raise SourceError(path, 1, "expected a JSON object {cik, entityName, facts}")
    cik, name, facts = _cik(_field(document, "cik")), _field(document, "entityName"), document.get("facts")
    if not cik or not isinstance(name, str) or not name.strip() or not isinstance(facts, dict):
        raise SourceError(path, 1, "expected a companyfacts document: cik (a number or digit string), entityName "
                          f"and an object of facts (found keys {', '.join(map(str, document)) or 'none'})")
    return cik, display_name(name), facts


def observations(path: Path, facts: Any, ctx: Context) -> tuple[list[Observation], dict[str, Filing]]:
    """The observations of the concepts read, of every form, and the filings they come from."""
    found: list[Observation] = []
    filings: dict[str, Filing] = {}
    for taxonomy, concepts in jsondoc.items(facts):
        if taxonomy not in _TAXONOMIES:
            continue
        if not isinstance(concepts, dict):
            ctx.skip(SHAPE, where=f"{path.name}: {taxonomy}")
            continue
        for concept, body in jsondoc.items(concepts):
            if (taxonomy, concept) not in CONCEPTS:
                continue
            units = body.get("units") if isinstance(body, dict) else None
            if not isinstance(units, dict):
                ctx.skip(SHAPE, where=f"{path.name}: {taxonomy}/{concept}")
                continue
            for unit, records in jsondoc.items(units):
                if not isinstance(records, list):
                    ctx.skip(SHAPE, where=f"{path.name}: {taxonomy}/{concept}/{unit}")
                    continue
                for n, record in enumerate(records):
                    where = f"{path.name}: {taxonomy}/{concept}/{unit}[{n}]"
                    obs = _observation(record, taxonomy, concept, unit, where, filings, ctx)
                    if obs is not None:
                        found.append(obs)
    return found, filings


def _observation(record: Any, taxonomy: str, concept: str, unit: str, where: str, filings: dict[str, Filing],
                 ctx: Context) -> Observation | None:
    if not isinstance(record, dict):
        ctx.skip(INCOMPLETE, where=where)
        return None
    fields = {k: _field(record, k) for k in ("start", "end", "val", "accn", "fy", "form", "filed")}
    if any(v is ... for v in fields.values()):
        ctx.skip(TWICE, where=where)
        return None
    number = jsondoc.number(fields["val"])
    if number is None:
        ctx.skip(BAD_VALUE, where=where)
        return None
    end, filed, start = _day(fields["end"]), _day(fields["filed"]), _day(fields["start"])
    accession, form = fields["accn"], fields["form"]
    if (not end or not filed or not isinstance(accession, str) or not ACCESSION.match(accession)
            or not isinstance(form, str) or not form.strip() or (fields["start"] is not None and not start)
            or (start and start > end)):
        ctx.skip(INCOMPLETE, where=where)
        return None
    fy = jsondoc.number(fields["fy"])
    filing = filings.setdefault(accession, Filing(accession, form.strip(), filed, None))
    if filing.fy is None and fy is not None and fy == int(fy):
        filing.fy = int(fy)
    days = (dt.date.fromisoformat(end) - dt.date.fromisoformat(start)).days + 1 if start else None
    return Observation(taxonomy, concept, unit, end, days, Decimal(str(number)), accession, where)


def read(path: Path, ctx: Context) -> Iterator[Fact]:
    cik, name, facts = company(path)
    found, filings = observations(path, facts, ctx)
    for fields in annual_rows(found, filings, ctx, path.name):
        ctx.at(figures_filing(fields))
        yield FinancialFact(CompanyFact(name, cik=cik, create=False), fields)
