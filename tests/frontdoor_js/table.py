"""The conformance table the JavaScript front door runs: the issue's queries as a person writes them, and a
sample generated from the query space (every listing route, every filter value, every sort, pages 1 and 2)."""

from __future__ import annotations

from urllib.parse import quote

ISSUE = [
    "/api/companies?minValuation=1500000000", "/api/companies?sector=Fintech", "/api/companies?country=US",
    "/api/companies?country=United%20States", "/api/filings?form=S-1", "/api/ipos?status=Listed",
    "/api/companies?sector=fintech&country=us&sort=valuation", "/api/companies?q=Stripe",
    "/api/companies?q=open%20ai", "/api/companies?q=stripe&sector=fintech", "/api/search?q=stripe",
    "/api/companies/Stripe", "/api/companies?minvaluation=1000000000", "/api/companies?min_valuation=1",
    "/api/companies?Sector=fintech", "/api/companies?page=0", "/api/companies?page=abc",
    "/api/companies?sector=e-commerce&", "/api/calendar?type=%6C%69%73%74%69%6E%67",
    "/api/companies?utm_source=newsletter&sector=fintech", "/api/companies?sector=fintech&sector=biotech",
    "/api/export?format=CSV&table=Companies",
    # beyond the issue's table: number spellings, bounds between rungs, text and search forms, exports, documents,
    # profiles, pages past the last, encodings and Python's repr in problem details
    "/api/companies?minValuation=1.5e9", "/api/companies?minValuation=1234567890.5&sort=name&page=2",
    "/api/companies?minValuation=1e30", "/api/companies?minValuation=-1", "/api/companies?minValuation=0",
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
    "/api/ipos?year=2024&exchange=NASDAQ", "/api/ipos?year=24", "/api/calendar?month=2031-01",
    "/api/pre-ipos?q=open%20ai&sort=name", "/api/companies?sector=Fin%E0%A4%BEtech",  # a spacing mark (Mc)
    "/api/export?format=jsonl&table=companies", "/api/export?format=NDJSON&table=news", "/api/export?format=ndjson",
    "/api/export?format=ndjson&table=dataset",
    # values without separators, a sector's initials, other country names; the hints of a 400
    "/api/companies?country=UK&sector=AI", "/api/companies?country=U.K.", "/api/companies?sector=ecommerce",
    "/api/funding?stage=SeriesA&sort=-date", "/api/calendar?type=Lock-up%20expiry&when=past",
    "/api/filings?form=S1", "/api/calendar?type=lockup", "/api/companies?sector=consumer", "/api/companies?status=ipo",
    "/api/companies?per_page=10", "/api/companies?pageNumber=2", "/api/companies?sector=me",
    "/api/companies?q=Stripe%20Inc.", "/api/companies?q=group", "/api/search?q=nvidia%20corp&type=company",
    "/api/companies/Stripe-Inc", "/api/investors/no%20body", "/api/industries/%E2%80%A8",
    "/api/companies?sort=%2Bvaluation&sector=fintech", "/api/companies?sort=%2B", "/api/companies?sort=+name",
    "/api/calendar?month=2025-7", "/api/calendar?month=2025/07&type=Pricing", "/api/calendar?month=2025-13",
    # issue 36: a company by its id; values the dictionary allows that no row has; the calendar's default on every
    # query (past events newest first); page 1's facets on composed answers; the texts of a 400; q=û
    "/api/filings?company=1", "/api/news?company=539", "/api/news?company=539&tag=funding",
    "/api/filings?company=1&form=S-1", "/api/filings?company=Meta-Platforms&year=2024",
    "/api/filings?company=no-such-company", "/api/pre-ipos?stage=pre-seed", "/api/news?tag=layoffs",
    "/api/filings?form=RW", "/api/filings?form=424B1", "/api/funding?stage=Pre-Seed&sort=-amount",
    "/api/filings?form=rw&year=2024", "/api/calendar?type=listing", "/api/calendar?month=2024-11",
    "/api/calendar?when=past", "/api/calendar?type=listing&when=past", "/api/calendar?when=past&page=2&sort=date",
    "/api/calendar?type=lockup-expiry&sort=-date", "/api/search?q=o", "/api/search?q=stripe&page=1",
    "/api/companies?minValuation=2.5e9", "/api/companies?sector=fintech&status=private&sort=name",
    "/api/offerings?kind=tender&year=2024&sort=-amount", "/api/ipos?status=listed&year=2021&sort=-proceeds",
    "/api/ipos?status=priced", "/api/filings?form=S-2", "/api/filings?form=F", "/api/companies?q=%C3%BB",
]


def generated(space: dict) -> list[str]:
    """Every listing route's every filter value (canonical, then a spelling by name or code, upper-cased), with
    every sort and pages 1 and 2."""
    urls: list[str] = []
    for route in space["routes"].values():
        path, sorts = route["path"], list(route["sorts"])
        for flt in route["filters"]:
            name = flt["name"]
            if flt["kind"] == "ladder":
                values = [str(v) for v in flt["rungs"]] + [str(flt["rungs"][-1] // 3 + 1)]
            elif flt["kind"] == "year":
                values = [str(v) for v in flt["values"]]
            elif flt["kind"] == "text":
                values = ["stripe", "open ai", "Sp", "zzzz"]
            elif "exists" in flt:
                values = ["stripe", "openai", "no-such-company"]
            else:
                canonical = sorted(set(flt["values"].values()))
                other = {v: a for a, v in flt["values"].items() if a != v}
                values = canonical + [other[v].upper().replace("-", " ") for v in canonical if v in other][:8]
            for value in values:
                for sort in sorts:
                    for page in (1, 2):
                        urls.append(f"{path}?{name}={quote(value)}&sort={sort}&page={page}")
    return urls
