"""Company identity: when two descriptions are one company, and the decisions a person made where the evidence
was not enough.

The evidence, in the order ``merge.find_company`` weighs it:

1. the CIK;
2. the same listing: a ticker listed within ``SAME_LISTING_DAYS`` of a listing of that ticker already on record
   is the same IPO, whatever the sources call the company (a translated name, a SPAC renamed after its merger);
3. the current holder of the ticker, when the names agree and the listing dates are not years apart (tickers
   are reused); whatever the names when both the holder's ticker and the fact's come from ticker lists (current
   listings: a company renamed or translated since one list was made) and no other record has the fact's name (a
   list older than the other may still name a company whose ticker has since gone to another);
4. the current holder of the ticker, or for a SPAC's unit ticker (``FACTU``) of its share ticker (``FACT``), when
   the names differ but the holder has a CIK assigned in the years just before the listing (``cik_era``) and no
   listing date of its own: a company that registered with the SEC for that IPO. A holder whose CIK is much
   older or newer is a later user of the ticker and stays apart; so is a holder that listed after the date of
   the list giving the fact's ticker, or a holder of another country;
5. the slug a source suggests (a Crunchbase permalink);
6. the name within the country; a candidate whose headquarters city differs from the one the source gives is
   another company with the same name: the two stay apart and the pair is listed for review;
7. a name the company had (``aliases``: EDGAR's former names with their dates, names sources called it by, the
   name at its listing), within the country and the alias's dates, when no record has the name as its current
   one.

Facts of another era or listing never join by slug or name (``other_era``): a unicorn list's company
founded more than a year from the fact's founding year, or after the fact's activity (a 2013 Crunchbase round on a
2018 company: two companies of one name); a blank check's listing years after the record's, under another ticker
(a blank check lists once); a record holding another ticker of the same list of current listings (Blue Owl
Capital Corporation is not Blue Owl Capital Inc.). Names never agree across numbered vehicles (``series``:
Hennessy Capital Acquisition Corp and Corp II). A Nasdaq deal's ID is a strong key (``deal_book``): its filing,
pricing and withdrawal are one IPO of one company, and a record the deal's filing made under a later name joins the
company its pricing finds. Status follows the record's own events (``finalize.derive_status``): an acquired
company listed again later is public.

News items name no company, only a ticker: ``held_on`` gives the company that held it on the item's date.

Every import writes the pairs it kept apart to ``identity-review.csv`` in the canonical folder (``REVIEW``): the
same name in two headquarters cities, and a record called by a name another record had (``aliases``). A
person decides them in ``identities.csv`` beside it (``DECISIONS``, same columns): ``decision`` ``same`` (a source's
company called ``name`` in ``city`` is the one called ``other_name`` in ``other_city``: a move, a former or
translated name) or ``different`` (not listed again). Every import honours the file: a ``same`` decision joins
the two as they are imported, and folds the two records into one when the folder holds both (``fold``).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from generator.importers.base import CompanyFact, SourceError

SAME_LISTING_DAYS = 5
REVIEW = "identity-review.csv"
DECISIONS = "identities.csv"
REVIEW_COLUMNS = ["name", "city", "slug", "other_name", "other_city", "other_slug", "reason", "decision"]
_SUFFIXES = frozenset(
    ["inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "plc", "sa", "ag",
     "nv", "se", "lp", "the", "holdings", "holding", "group", "de"]
)
_WORD = re.compile(r"[a-z0-9]+")

CIK_ERAS: tuple[tuple[int, int], ...] = (
    (1_050_000, 1998), (1_100_000, 2000), (1_150_000, 2001), (1_200_000, 2002), (1_250_000, 2003),
    (1_300_000, 2004), (1_350_000, 2006), (1_400_000, 2007), (1_450_000, 2009), (1_500_000, 2010),
    (1_550_000, 2012), (1_600_000, 2014), (1_650_000, 2015), (1_700_000, 2017), (1_750_000, 2018),
    (1_800_000, 2020), (1_850_000, 2021), (1_900_000, 2022), (1_950_000, 2023),
)
"""CIKs are assigned in sequence: (lowest CIK, year the SEC was assigning it). Calibrated on the real files:
the 5th percentile of the IPO year of the companies whose CIK and listing two sources agree on, per 50,000 CIKs
(a registrant gets its CIK when it first files, usually within a year or two before its IPO)."""
CIK_ERA_YEARS = 3
"""A listing joins a ticker holder with another name only if the holder's CIK era is at most this many years
before the listing year (and not after it)."""


def normalise(name: str) -> str:
    """A name for comparison: lowercase words, ``&`` as ``and``, ``holding`` as ``holdings`` anywhere (DIH Holding
    US and DIH Holdings US), legal forms at the end and a leading ``the`` dropped."""
    words = ["holdings" if w == "holding" else w for w in _WORD.findall(name.lower().replace("&", " and "))]
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    while len(words) > 1 and words[0] == "the":
        words.pop(0)
    return " ".join(words)


_SERIES = re.compile(r"^(i{1,3}|iv|vi{0,3}|ix|x|[1-9])$")
_SERIES_SUFFIXES = _SUFFIXES | {"acquisition", "capital", "merger", "fund", "trust", "partners"}


def series(name: str) -> str:
    """The number of a numbered vehicle (``Hennessy Capital Acquisition Corp II`` -> ``ii``, ``Quinpario
    Acquisition Corp 2`` -> ``2``); ``1`` for a name without one (the first of a series carries none)."""
    words = _WORD.findall(name.lower())
    while words and words[-1] in _SUFFIXES:
        words.pop()
    last = words[-1] if len(words) > 1 else ""
    roman = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
    return str(roman.get(last, last)) if _SERIES.match(last) and words[-2] in _SERIES_SUFFIXES else "1"


def names_agree(a: str, b: str) -> bool:
    """The names may be one company's: equal once normalised, or one a prefix of the other, or the same first
    word; never two numbered vehicles of one sponsor (I and II are two companies)."""
    na, nb = normalise(a), normalise(b)
    if not na or not nb or series(a) != series(b):
        return False
    return na == nb or na.split()[0] == nb.split()[0] or na.startswith(nb) or nb.startswith(na)


def days_apart(a: str, b: str) -> int:
    """Days between two ISO dates."""
    return abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days)


def other_era(fact: CompanyFact, row: dict[str, str]) -> str:
    """The fact is about another company of the record's name: a unicorn list's company founded more than a year
    from the fact's founding, or after the fact's activity (a round); a blank check's listing years after the
    record's, under another ticker (a blank check lists once); a record holding another ticker of the fact's list
    of current listings. Why, in words ('' when it is not). (Only a unicorn list's founding year counts: the lists
    import before the sources they are weighed against, so a re-import weighs the same.)"""
    founded = row["founded_year"] if row["unicorn_date"] else ""
    listed = row["listing_date"]
    blank_check = row["sector"] == "blank-check" or "acquisition" in row["name"].lower()
    relisted = bool(blank_check and fact.date and listed and fact.ticker != row["ticker"]
                    and days_apart(fact.date, listed) > 365)
    listed_apart = row["ticker"] != fact.ticker and row["ticker"] in fact.others_listed
    if founding_differs(fact.fields.get("founded_year", ""), founded):
        return "founding years more than a year apart"
    if fact.active and founded and fact.active[:4] < founded:
        return "a round or investment before the company's founding"
    if relisted:
        return "a blank check listed again years later under another ticker"
    return "another ticker of the same list of current listings" if listed_apart else ""


def founding_differs(a: str, b: str) -> bool:
    """Both founding years are known and more than a year apart: two companies of one name (a 2013 Crunchbase
    company and a 2020s unicorn), whose facts must not join."""
    return bool(a and b and abs(int(a) - int(b)) > 1)


def city_key(city: str) -> str:
    """A headquarters city for comparison: letters only, lowercase, ``Saint`` as ``St``."""
    return re.sub(r"[^a-z]", "", city.lower().replace("saint", "st"))


def cities_differ(a: str, b: str) -> bool:
    """Both cities are known and they are not the same place as written."""
    ka, kb = city_key(a), city_key(b)
    return bool(ka and kb and ka != kb)


def cik_era(cik: str) -> int | None:
    """The year a CIK was being assigned (``CIK_ERAS``); None below the table's range (assigned before 1998)."""
    if not cik.isdigit():
        return None
    era = None
    for lowest, year in CIK_ERAS:
        if int(cik) >= lowest:
            era = year
    return era


def registered_for(cik: str, listing_date: str) -> bool:
    """The CIK was assigned in the years just before a listing on ``listing_date`` (``CIK_ERA_YEARS``)."""
    era = cik_era(cik)
    return era is not None and 0 <= int(listing_date[:4]) - era <= CIK_ERA_YEARS


def assigned_after(cik: str, day: str) -> bool:
    """The SEC assigned the CIK more than a year after ``day``: its registrant did not exist then. Under another
    name it is another company that reused the ticker (Cogent Biosciences, CIK 1622229 of 2014, is not Cogent
    Systems, COGT in 2004); under the same name, a reorganised or re-domiciled one (Accenture plc)."""
    era = cik_era(cik)
    return era is not None and bool(day) and era > int(day[:4]) + 1


def share_ticker(ticker: str) -> str:
    """The share ticker of a SPAC's unit ticker (``FACTU``, ``AAC.U``, ``HZON-UN`` -> ``FACT``, ``AAC``, ``HZON``);
    '' for a ticker that does not look like units."""
    for suffix in (".U", "-UN", "-U", "U"):
        if ticker.endswith(suffix) and len(ticker) - len(suffix) >= 3:
            return ticker[: -len(suffix)]
    return ""


def held_on(day: str, listings: list[tuple[str, str]], holder: str | None, holder_since: str,
            dated: list[tuple[str, str, str]]) -> tuple[str | None, str]:
    """The company that held a ticker on ``day``, and the evidence ('' with the reason when none is known).

    ``dated``: (from, to, company) of the ticker as a dated alias (a former ticker with its dates); ``listings``:
    (listing date, company) of its listed IPOs; ``holder``: the company that holds it now, listed on
    ``holder_since`` ('' when its listing is not on record: a ticker list's holder). A dated alias covering the
    day decides; else the latest listing on or before the day, unless the holder listed between the two (it took
    the ticker over); a holder whose listing date is unknown decides alone, and against an older listing of
    another company it cannot be told apart (the ticker may have changed hands before or after the day)."""
    for start, end, company in sorted(dated, reverse=True):
        if (not start or start <= day) and (not end or day <= end):
            return company, "dated alias"
    earlier = [(listed, company) for listed, company in listings if listed <= day]
    latest = max(earlier, key=lambda e: (e[0], int(e[1])), default=None)
    if latest is None:
        if holder is not None and (not holder_since or holder_since <= day):
            return holder, "current holder"
        return None, "no company held the ticker on that date" if holder is None else "its holder listed later"
    if holder is None or holder == latest[1] or (holder_since and holder_since > day):
        return latest[1], "listing"
    if holder_since:
        return (holder, "current holder") if holder_since >= latest[0] else (latest[1], "listing")
    return None, "two companies held the ticker; the date does not say which"


@dataclass(frozen=True)
class Pair:
    """Two records that may be one company (same name, different headquarters cities): for a person to decide."""

    name: str
    city: str
    slug: str
    other_name: str
    other_city: str
    other_slug: str
    reason: str


def review_pairs(companies: dict[str, dict[str, str]], decisions: Decisions,
                 aliases: dict[str, dict[str, str]] | None = None) -> list[Pair]:
    """Records that may be one company, less the pairs ``identities.csv`` decided: those that share a normalised
    name and a country (or one of them gives none) but name different headquarters cities, in id order; then
    those of which one is called by a name the other had (``aliases``: a source called the other record so), by
    id."""
    groups: dict[str, list[dict[str, str]]] = {}
    for row in companies.values():
        groups.setdefault(normalise(row["name"]), []).append(row)
    pairs = []
    for rows in groups.values():
        rows.sort(key=lambda r: int(r["id"]))
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                if a["country"] not in ("", "xx", b["country"]) and b["country"] not in ("", "xx"):
                    continue
                if cities_differ(a["headquarters_city"], b["headquarters_city"]) and not decisions.decided(a, b):
                    pairs.append(Pair(a["name"], a["headquarters_city"], a["slug"], b["name"],
                                      b["headquarters_city"], b["slug"], "same name, headquarters cities differ"))
    named: set[tuple[int, int]] = set()
    for alias in (aliases or {}).values():
        owner = companies[alias["company_id"]]
        for other in groups.get(normalise(alias["alias"]), []) if alias["kind"] == "name" else []:
            if other["id"] != owner["id"] and (other["country"] in ("", "xx", owner["country"])
                                               or owner["country"] in ("", "xx")):
                named.add((int(other["id"]), int(owner["id"])))
    for other_id, owner_id in sorted(named):
        a, b = companies[str(other_id)], companies[str(owner_id)]
        if not decisions.decided(a, b):
            pairs.append(Pair(a["name"], a["headquarters_city"], a["slug"], b["name"], b["headquarters_city"],
                              b["slug"], "a name the other record had (aliases.csv)"))
    return pairs


@dataclass
class Decisions:
    """``identities.csv``: rows of ``identity-review.csv`` (or written by hand) with a decision. ``same``: a source's
    company called ``name`` (in ``city``; empty = any city) is the company called ``other_name`` (in
    ``other_city``), e.g. a former name or a move; ``different``: the pair is not listed for review again."""

    same: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    different: set[frozenset[tuple[str, str]]] = field(default_factory=set)

    @classmethod
    def load(cls, folder: Path) -> Decisions:
        decisions = cls()
        path = folder / DECISIONS
        if not path.exists():
            return decisions
        reader = csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline=""), strict=True)
        header = next(reader, None)
        if header != REVIEW_COLUMNS:
            raise SourceError(path, 1, f"header must be {','.join(REVIEW_COLUMNS)} (found {','.join(header or [])})")
        for values in reader:
            if not values:
                continue
            if len(values) != len(REVIEW_COLUMNS) or values[-1] not in ("same", "different"):
                raise SourceError(path, reader.line_num, f"expected {len(REVIEW_COLUMNS)} fields and a decision "
                                  "same or different", "decision")
            row = dict(zip(REVIEW_COLUMNS, values, strict=True))
            one = (normalise(row["name"]), city_key(row["city"]))
            other = (normalise(row["other_name"]), city_key(row["other_city"]))
            if row["decision"] == "same":
                decisions.same[one] = (row["other_name"], row["other_city"])
            else:
                decisions.different.add(frozenset((one, other)))
        return decisions

    def resolve(self, name: str, city: str) -> tuple[str, str]:
        """The name and city to match a source's company on: those of the company a decision says it is."""
        found = self.same.get((normalise(name), city_key(city))) or self.same.get((normalise(name), ""))
        if found is None:
            return name, city
        return found[0], found[1] or city

    def decided(self, a: dict[str, str], b: dict[str, str]) -> bool:
        keys = [(normalise(r["name"]), city_key(r["headquarters_city"] or "")) for r in (a, b)]
        if frozenset(keys) in self.different:
            return True
        return any(self.resolve(r["name"], r["headquarters_city"]) != (r["name"], r["headquarters_city"])
                   for r in (a, b))


def render_review(pairs: list[Pair]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(REVIEW_COLUMNS)
    for pair in pairs:
        writer.writerow([pair.name, pair.city, pair.slug, pair.other_name, pair.other_city, pair.other_slug,
                         pair.reason, ""])
    return buffer.getvalue()
