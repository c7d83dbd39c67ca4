"""The URL table of the front doors, one for both: the queries the SQL oracle checks the Python resolver on
(``ISSUE_TABLE``, ``NATURAL``, ``ISSUE_36``; tests/test_frontdoor.py), the bad ones and the parameters their 400 names
(``BAD``), and more forms (``MORE``: exports, profiles, encodings, Python's repr in problem details). The JavaScript
front door answers every one of them (``ISSUE``) as the Python one does, byte for byte, and a sample generated from
the query space (every listing route, every filter value, every sort, pages 1 and 2)."""

from __future__ import annotations

from urllib.parse import quote

ISSUE_TABLE = [  # the issue's table: query as a person writes it, the status, and the rows the SQL oracle gives
    "/api/companies?minValuation=1500000000", "/api/companies?sector=Fintech", "/api/companies?country=US",
    "/api/companies?country=United%20States", "/api/filings?form=S-1", "/api/ipos?status=Listed",
    "/api/companies?sector=fintech&country=us&sort=valuation", "/api/companies?q=Stripe",
    "/api/companies?q=open%20ai", "/api/companies?q=stripe&sector=fintech", "/api/search?q=stripe",
]
NATURAL = [
    "/api/companies?minValuation=1.5e9&sort=name&page=2", "/api/companies?minValuation=0",
    "/api/companies?minValuation=25000000000&sort=valuation", "/api/companies?country=usa&status=Private",
    "/api/companies?sector=Artificial%20Intelligence&sort=name", "/api/companies?q=META%20platforms",
    "/api/pre-ipos?minValuation=2e10&stage=Series%20E", "/api/pre-ipos?q=open%20ai&sort=name",
    "/api/ipos?status=listed&year=2021&sort=-proceeds", "/api/ipos?exchange=NYSE&year=2020",
    "/api/filings?company=stripe&year=2024", "/api/filings?form=424B4&year=2021", "/api/search?q=st",
    "/api/search?q=s&type=company", "/api/search?q=nvid", "/api/search?q=Open%20AI",
    "/api/funding?stage=Seed&sort=-amount",
    "/api/investors?type=vc&country=us&sort=name", "/api/offerings?kind=tender&sort=-amount&year=2024",
    "/api/calendar?month=2031-01", "/api/companies?sector=e-commerce&",
    "/api/companies?utm_source=news&sector=fintech",
    # values without their separators, initials of a sector's name, other country names and codes
    "/api/companies?country=UK&sector=AI", "/api/companies?country=U.K.", "/api/companies?sector=ecommerce",
    "/api/pre-ipos?sector=HealthTech&stage=seriesE", "/api/funding?stage=SeriesA&sort=-date",
    "/api/calendar?type=Lock-up%20expiry&when=past", "/api/filings?form=S1", "/api/filings?form=424%20B4",
    "/api/companies?country=UAE", "/api/ipos?exchange=xnas&year=2021",
    # legal forms beside a name's words: dropped; alone: words like any other
    "/api/companies?q=Stripe%20Inc.", "/api/companies?q=the%20trade%20desk", "/api/companies?q=group",
    "/api/search?q=nvidia%20corp", "/api/pre-ipos?q=SpaceX%20Corp&sort=name",
    "/api/companies?sector=fintech&sort=%2Bvaluation", "/api/calendar?month=2025-7",
]
ISSUE_36 = [  # the last wrong answers: a company by its id; values the dictionary allows that no row has; the
    # calendar's default on every query; page 1's facets on composed answers
    "/api/filings?company=1", "/api/news?company=539", "/api/news?company=539&tag=funding",
    "/api/filings?company=1&form=S-1", "/api/filings?company=Meta-Platforms&year=2024",
    "/api/pre-ipos?stage=pre-seed", "/api/news?tag=layoffs", "/api/filings?form=RW", "/api/filings?form=424B1",
    "/api/funding?stage=Pre-Seed&sort=-amount", "/api/filings?form=rw&year=2024", "/api/investors?type=bank",
    "/api/calendar?type=listing", "/api/calendar?month=2024-11", "/api/calendar?when=past",
    "/api/calendar?type=listing&when=past", "/api/calendar?when=past&sort=date&page=2",
    "/api/calendar?type=lockup-expiry&sort=-date", "/api/calendar?type=expected-listing",
    "/api/search?q=stripe", "/api/search?q=o", "/api/companies?minValuation=1.5e9",
    "/api/companies?sector=fintech&status=private&sort=name", "/api/funding?stage=seed&sector=fintech&sort=-amount",
    "/api/investors?type=vc&country=us&sort=-leads", "/api/companies?q=%C3%BB",
]
ISSUE_37 = [  # filters and a sort declared front-door-only in the registry alone (docs/adding-a-filter.md): a year, a
    # lower and an upper bound on one column rows do not carry (the query index does), a sort no file publishes
    "/api/companies?founded=2015", "/api/companies?minFounded=2015", "/api/companies?maxFounded=1990",
    "/api/companies?minFounded=2000&maxFounded=2010&sort=name", "/api/companies?founded=2012&sector=fintech",
    "/api/companies?minFounded=2010.5&country=us&sort=-valuation", "/api/companies?maxFounded=2010.5&page=2",
    "/api/companies?founded=1850", "/api/companies?minFounded=1e30", "/api/companies?maxFounded=0",
    "/api/companies?minFounded=2005&minValuation=5e9&status=private", "/api/companies?founded=2015&maxFounded=2020",
    "/api/ipos?sort=-return", "/api/ipos?sort=-return&page=2", "/api/ipos?status=listed&sort=-return",
    "/api/ipos?year=2021&exchange=nasdaq&sort=-return", "/api/ipos?sort=date", "/api/ipos?sort=date&page=2",
    "/api/ipos?status=listed&year=2021&sort=date", "/api/ipos?exchange=nasdaq&sort=date&page=3",
    "/api/ipos?year=2020&sort=date&page=2",
]
UNANSWERABLE = ["/api/companies?q=stripe&founded=2015", "/api/companies?q=open%20ai&maxFounded=2000&sector=fintech"]
"""A filter without files that rows do not carry, with one the query index does not hold: a 404 naming both."""
BAD = {  # query -> the parameters the 400 problem must name
    "/api/companies?minvaluation=1000000000": ["minvaluation"], "/api/companies?min_valuation=1": ["min_valuation"],
    "/api/companies?Sector=fintech": ["Sector"], "/api/companies?page=0": ["page"], "/api/companies?page=abc": ["page"],
    "/api/companies?sector=nowhere": ["sector"], "/api/companies?minValuation=-5": ["minValuation"],
    "/api/companies?sector=fintech&sector=biotech": ["sector"], "/api/ipos?sort=name": ["sort"],
    "/api/companies?limit=10&sector=fintech": ["limit"], "/api/calendar?type=lockup": ["type"],
    "/api/companies?sector=me": ["sector"], "/api/companies?country=sk": ["country"],
    "/api/ipos?status=priced": ["status"], "/api/filings?form=S-2": ["form"],
    "/api/filings?company=no-such-company": ["company"],
    "/api/companies?minFounded=abc": ["minFounded"], "/api/companies?founded=20": ["founded"],
    "/api/companies?maxFounded=-1&founded=x": ["founded", "maxFounded"],
}

MORE = [
    "/api/companies/Stripe",
    "/api/calendar?type=%6C%69%73%74%69%6E%67",
    "/api/companies?utm_source=newsletter&sector=fintech",
    "/api/export?format=CSV&table=Companies",
    # beyond the issue's table: number spellings, bounds between rungs, text and search forms, exports, documents,
    # profiles, pages past the last, encodings and Python's repr in problem details
    "/api/companies?minValuation=1234567890.5&sort=name&page=2",
    "/api/companies?minValuation=1e30", "/api/companies?minValuation=-1",
    "/api/companies?q=%C3%A9t%C3%A9&sector=x'y", "/api/search?q=st&type=company", "/api/search?q=s",
    "/api/search?q=open%20ai", "/api/companies?q=a%20b%20c", "/api/companies?q=Stripe&sort=name&page=2",
    "/api/export", "/api/export?table=companies", "/api/export?format=json&table=dataset",
    "/api/export?format=csv&table=dataset", "/api/export?format=xml", "/api/openapi", "/api/openapi?x=1",
    "/api/companies?sort=NAME", "/api/companies?sort=size", "/api/companies?page=99",
    "/api/companies?sector=fintech&page=99", "/api/companies?sector=fintech&minValuation=5e9&sort=name",
    "/api/companies/1", "/api/companies/nope", "/API/Companies/STRIPE/", "/api/companies?q=%ff%fe",
    "/api/companies?q=%22x%22&country=%E2%80%A8", "/api/companies?sector=C%C3%B4te&country=C%C3%B4te%20d'Ivoire",
    "/api/companies?query=stripe", "/api/companies?sector=", "/api/companies?sector=fintech&&country=us",
    "/api/companies?sector=Health+Tech&status=private&minValuation=2e9&sort=-valuation&page=1",
    "/api/ipos?year=2024&exchange=NASDAQ", "/api/ipos?year=24",
    "/api/companies?sector=Fin%E0%A4%BEtech",  # a spacing mark (Mc)
    "/api/export?format=jsonl&table=companies", "/api/export?format=NDJSON&table=news", "/api/export?format=ndjson",
    "/api/export?format=ndjson&table=dataset",
    # values without separators, a sector's initials, other country names; the hints of a 400
    "/api/companies?sector=consumer", "/api/companies?status=ipo",
    "/api/companies?per_page=10", "/api/companies?pageNumber=2",
    "/api/search?q=nvidia%20corp&type=company",
    "/api/companies/Stripe-Inc", "/api/investors/no%20body", "/api/industries/%E2%80%A8",
    "/api/companies?sort=%2Bvaluation&sector=fintech", "/api/companies?sort=%2B", "/api/companies?sort=+name",
    "/api/calendar?month=2025/07&type=Pricing", "/api/calendar?month=2025-13",
    # issue 36: a company by its id; values the dictionary allows that no row has; the calendar's default on every
    # query (past events newest first); page 1's facets on composed answers; the texts of a 400; q=û
    "/api/calendar?when=past&page=2&sort=date",
    "/api/search?q=stripe&page=1",
    "/api/companies?minValuation=2.5e9",
    "/api/offerings?kind=tender&year=2024&sort=-amount",
    "/api/filings?form=F",
]


ISSUE = list(dict.fromkeys([*ISSUE_TABLE, *NATURAL, *ISSUE_36, *ISSUE_37, *UNANSWERABLE, *BAD, *MORE]))
"""Every URL of the table, once, in order."""


def generated(space: dict) -> list[str]:
    """Every listing route's every filter value (canonical, then a spelling by name or code, upper-cased), with
    every sort and pages 1 and 2."""
    urls: list[str] = []
    for route in space["routes"].values():
        path, sorts = route["path"], list(route["sorts"])
        for flt in route["filters"]:
            name = flt["name"]
            if "rungs" in flt:  # a bound: its rungs and one between them, or (without files) a few numbers
                values = [str(v) for v in flt["rungs"]] + ([str(flt["rungs"][-1] // 3 + 1)] if flt["rungs"]
                                                           else ["1999", "2015.5", "1e30"])
            elif isinstance(flt.get("values"), list):  # a number among values (years), or any
                values = [str(v) for v in flt["values"]] or ["1850", "2015"]
            elif "text_fields" in flt:
                values = ["stripe", "open ai", "Sp", "zzzz"]
            elif "exists" in flt:
                values = ["stripe", "openai", "no-such-company"]
            elif flt["value"] == "date":  # a day: one, another, one that is not a day
                values = ["2025-01-01", "2020-06-30", "2025-02-30"]
            else:
                canonical = sorted(set(flt["values"].values()))
                other = {v: a for a, v in flt["values"].items() if a != v}
                values = canonical + [other[v].upper().replace("-", " ") for v in canonical if v in other][:8]
            for value in values:
                for sort in sorts:
                    for page in (1, 2):
                        urls.append(f"{path}?{name}={quote(value)}&sort={sort}&page={page}")
    return urls
