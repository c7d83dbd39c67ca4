"""What the query front door promises, in one place: the OpenAPI document's description and the landing page render
these rules, and a test holds the README to their examples (``tests/test_docs.py``). Backticks mark code.

The front door is ``generator/frontdoor/`` (Python for ``serve`` and the Python client, its JavaScript translation
for the Netlify Edge Function, the Cloudflare Pages worker and the JavaScript client); hosts with rewrite rules
alone answer only the published spelling (``REWRITE_ONLY``).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.api.routes import FACET_LIMIT


@dataclass(frozen=True)
class Rule:
    label: str
    text: str
    examples: tuple[str, ...]
    """Spellings the README shows too (each in backticks there)."""


FRONT_DOOR_RULES = (
    Rule("Names", "Parameter names as declared. A case variant (`Sector`), an alias (`min_valuation`, `limit`), an "
         "unknown name or a parameter given twice answers `400`, an RFC 9457 problem whose `invalid-params` names "
         "each one and its right spelling. Tracking parameters (`utm_*`, `fbclid`, `gclid`, `msclkid`, `mc_cid`, "
         "`mc_eid`) are ignored; empty pieces (`?sector=fintech&`, `&&`) are skipped.",
         ("Sector", "min_valuation", "invalid-params", "utm_*")),
    Rule("Values", "Any case and accents; a value as its slug, display name or code: `sector=Fintech`, "
         "`country=US`, `country=usa`, `country=United%20States`, `country=UK`, `form=S-1`, `status=Listed`; without "
         "its separators (`sector=ecommerce`, `stage=seriesA`, `form=S1`); a sector by the initials of its name "
         "(`sector=AI`); a company by its id or slug (`company=1`). "
         "`minValuation` is any non-negative JSON number (`1500000000`, `1.5e9`), an exact inclusive "
         "bound; `sort` in any case, a leading `-` descending (`+` may say ascending); `page` a positive integer; "
         "`year` four digits; `month` `YYYY-MM` (`2025-7` too). Anything else is a `400` naming the parameter, with "
         "the values it may have meant (another source's word too: `status=priced`, did you mean `listed`), every "
         "value when they are few, as the data dictionary writes them (`S-1/A`), and where they are listed "
         "(`/api/query-space.json`, `/api/openapi`).",
         ("sector=Fintech", "country=UK", "form=S-1", "sector=ecommerce", "sector=AI", "company=1", "1.5e9",
          "status=priced", "S-1/A")),
    Rule("Every combination", "Every filter with every other, every sort and `page`; `q` with the other filters "
         "and sorts. The rows are those SQL over the dataset gives, in the asked order with the route's tie-break, "
         "paged by the route's page size, with `meta` and `links` to match.",
         ()),
    Rule("Text", "`q` on `/api/companies` and `/api/pre-ipos` is one or several words in any case, each a whole "
         "word of the name, the ticker or a former name or ticker (glued together they may match one word: "
         "`q=open ai` finds OpenAI); words of a legal form beside them are dropped (`q=Stripe Inc.` finds "
         "Stripe). `/api/search` takes any prefix of any length of a word, several words, with `type`.",
         ("q=open ai", "q=Stripe Inc.")),
    Rule("Defaults", "A route's default filter applies to every query that does not name it, and `meta.filters` "
         "shows it: `/api/calendar` and `/api/calendar?type=listing` list upcoming events, soonest first; "
         "`when=past` lists past events, newest first (unless `sort` says otherwise).",
         ("when=past",)),
    Rule("Facets", "Page 1 of every answer carries `meta.facets`, as the files' first pages do: for each filter "
         "(but text) that the route combines with the query's own, the values that have rows in the answer, each "
         f"with its exact count and the URL of that refinement, most rows first (at most {FACET_LIMIT}; "
         "`meta.facets_truncated` names a facet cut short).",
         ("meta.facets",)),
    Rule("Empty results", "A valid query without rows answers `200` with an empty `data` and `meta.total: 0`, "
         "a value the data dictionary allows that no row has too (`stage=pre-seed`, `form=RW`); "
         "`404` is for what does not exist (an unknown profile, a page past the last).",
         ("meta.total: 0", "stage=pre-seed")),
    Rule("Profiles", "By id or slug in any case (`/api/companies/Stripe`), with the canonical URL in "
         "`links.self`.",
         ("/api/companies/Stripe",)),
)

WHERE = ("These hold through the front door: `python -m generator serve`, the Netlify Edge Function, the Cloudflare "
         "Pages worker, and the Python and JavaScript clients over any static host.")
REWRITE_ONLY = ("A host with rewrite rules alone (nginx, Netlify with edge functions off, `serve --rewrite-only`) "
                "answers only the published spelling: lowercase slugs, ladder values, one filter with a sort; any "
                "other query answers `404`, and a parameter it does not know is ignored.")


def markdown() -> str:
    """The rules as a Markdown list, with where they hold (the OpenAPI document's description)."""
    lines = [f"- **{rule.label}.** {rule.text}" for rule in FRONT_DOOR_RULES]
    return "Queries as people write them. " + WHERE + "\n\n" + "\n".join(lines) + "\n\n" + REWRITE_ONLY
