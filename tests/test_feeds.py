"""The change feeds validate: Atom against RFC 4287's RELAX NG schema (Appendix B, converted by rnc2rng, checked by
libxml2 through lxml; its two Schematron rules checked here), JSON Feed 1.1 against the JSON Schema of the npm
package jsonfeed-schema (pinned in package.json); feedparser reads the Atom feed back without complaint (6.0 reads
no JSON Feed). Deterministic bytes,
entry ids that never change, links with and without the site's base URL."""

from __future__ import annotations

import json
from pathlib import Path

import feedparser
import jsonschema
import pytest
import rnc2rng
from lxml import etree

from generator.events.feeds import atom, company_feed, entry_id, entry_title, json_feed, site_feed
from tests.test_webhooks import EVENTS, make_event

ROOT = Path(__file__).resolve().parent.parent
ATOM_NS = {"a": "http://www.w3.org/2005/Atom"}
BASE = "https://api.example.com"
NEWEST_FIRST = sorted(EVENTS, key=lambda e: (e["date"], e["id"]), reverse=True)
STRIPE = [e for e in NEWEST_FIRST if (e["company"] or {}).get("slug") == "stripe"]
FEEDS = {
    "site": (NEWEST_FIRST, site_feed("2025-06-30")),
    "site, base URL": (NEWEST_FIRST, site_feed("2025-06-30", BASE)),
    "company": (STRIPE, company_feed("stripe", "Stripe", "2025-06-30")),
    "company, base URL": (STRIPE, company_feed("stripe", "Stripe", "2025-06-30", BASE + "/")),
    "empty": ([], site_feed("2025-07-31", BASE)),
}


@pytest.fixture(scope="module")
def relax_ng() -> etree.RelaxNG:
    rng = rnc2rng.dumps(rnc2rng.load(str(ROOT / "tests" / "fixtures" / "atom" / "rfc4287.rnc")))
    # rnc2rng declares the schema's `namespace local = ""` as xmlns:local="", which XML namespaces forbid; the
    # pattern itself (nsName ns="") does not use the prefix
    return etree.RelaxNG(etree.fromstring(rng.replace('xmlns:local=""', "").encode("utf-8")))


@pytest.fixture(scope="module")
def json_feed_schema() -> dict:
    path = ROOT / "node_modules" / "jsonfeed-schema" / "schema-v1.1.json"
    if not path.is_file():
        pytest.fail(f"{path.relative_to(ROOT)} is missing: run `npm ci` (package.json pins jsonfeed-schema)")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", sorted(FEEDS))
def test_atom_is_valid_rfc_4287(case: str, relax_ng: etree.RelaxNG) -> None:
    events, feed = FEEDS[case]
    root = etree.fromstring(atom(events, feed))
    assert relax_ng.validate(root), str(relax_ng.error_log)
    # Appendix B's Schematron rules: a feed author (or one per entry); each entry an alternate link or content
    assert root.xpath("a:author", namespaces=ATOM_NS)
    for entry in root.xpath("a:entry", namespaces=ATOM_NS):
        assert entry.xpath("a:link[@rel='alternate'] or a:content", namespaces=ATOM_NS)
    assert len(root.xpath("a:entry", namespaces=ATOM_NS)) == len(events)


@pytest.mark.parametrize("case", sorted(FEEDS))
def test_json_feed_is_valid_json_feed_1_1(case: str, json_feed_schema: dict) -> None:
    events, feed = FEEDS[case]
    doc = json.loads(json_feed(events, feed))
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    if feed.base_url is None:
        # links are site paths (relative references): the schema's `format: uri` wants absolute ones
        checker = jsonschema.FormatChecker(["date-time"])
    errors = [f"{list(e.absolute_path)}: {e.message}"
              for e in jsonschema.Draft7Validator(json_feed_schema, format_checker=checker).iter_errors(doc)]
    assert errors == []
    assert list(doc)[0] == "version" and doc["version"] == "https://jsonfeed.org/version/1.1"
    assert [item["_event"] for item in doc["items"]] == events  # the event whole, extra keys included


def test_the_format_checker_does_check_uris(json_feed_schema: dict) -> None:
    doc = json.loads(json_feed(STRIPE, company_feed("stripe", "Stripe", "2025-06-30")))
    doc["feed_url"] = "not a url"
    validator = jsonschema.Draft7Validator(json_feed_schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    assert [e.message for e in validator.iter_errors(doc)]


def test_feedparser_reads_the_atom_feed_back_with_links_resolved() -> None:
    feed = site_feed("2025-06-30")
    url = BASE + feed.atom_path
    headers = {"content-location": url, "content-type": "application/atom+xml"}
    parsed = feedparser.parse(atom(NEWEST_FIRST, feed), response_headers=headers)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert [e.id for e in parsed.entries] == [entry_id(e["id"]) for e in NEWEST_FIRST]
    stripe = next(e for e in parsed.entries if e.title == "Stripe: valuation changed")
    assert stripe.link == BASE + "/api/companies/stripe"  # a site path, resolved against the feed's address
    assert {t.term for t in stripe.tags} >= {"valuation-changed", "company", "stripe", "evt-0000000000000004"}
    assert stripe.published.startswith("2025-06-30T00:00:00")


def test_deterministic_with_updated_from_the_newest_event() -> None:
    feed = site_feed("2025-07-31", BASE)
    for render in (atom, json_feed):
        assert render(NEWEST_FIRST, feed) == render([dict(e) for e in NEWEST_FIRST], feed)
    root = etree.fromstring(atom(NEWEST_FIRST, feed))
    assert root.findtext("a:updated", namespaces=ATOM_NS) == "2025-06-30T00:00:00Z"
    assert etree.fromstring(atom([], feed)).findtext("a:updated", namespaces=ATOM_NS) == "2025-07-31T00:00:00Z"


def test_entry_ids_never_change() -> None:
    # uuid5(NAMESPACE_URL, "urn:company-ipo-api:event:" + id), as docs/feeds.md says: pinned, never to change
    assert entry_id("evt-3f2a9c0d1e4b5a67") == "urn:uuid:6d88df18-fc2a-58be-81df-a0875f7c2ea8"
    ids = []
    feeds = (site_feed("2025-06-30"), site_feed("2025-06-30", BASE), company_feed("stripe", "Stripe", "2025-07-31"))
    for feed in feeds:
        root = etree.fromstring(atom(STRIPE, feed))
        ids.append(root.xpath("a:entry/a:id/text()", namespaces=ATOM_NS))
        ids.append([item["id"] for item in json.loads(json_feed(STRIPE, feed))["items"]])
    assert all(one == ids[0] for one in ids)
    assert len(set(ids[0])) == len(STRIPE) and all(i.startswith("urn:uuid:") for i in ids[0])


def test_links_paths_and_titles() -> None:
    feed = company_feed("stripe", "Stripe", "2025-06-30", BASE)
    assert (feed.atom_path, feed.json_path) == ("/api/feeds/companies/stripe.atom",
                                                "/api/feeds/companies/stripe.json")
    assert (site_feed("2025-06-30").atom_path, site_feed("2025-06-30").json_path) == (
        "/api/feeds/changes.atom", "/api/feeds/changes.json")
    root = etree.fromstring(atom(STRIPE, feed))
    links = {(link.get("rel"), link.get("type")): link.get("href") for link in root.xpath("a:link", namespaces=ATOM_NS)}
    assert links[("self", "application/atom+xml")] == BASE + "/api/feeds/companies/stripe.atom"
    assert links[("alternate", "application/feed+json")] == BASE + "/api/feeds/companies/stripe.json"
    # Atom content only where it adds to the summary: the changed fields (a linked dated fact has none)
    contents = [entry.findtext("a:content", namespaces=ATOM_NS) for entry in root.xpath("a:entry", namespaces=ATOM_NS)]
    changed = "stripe: valuation-changed\nvaluation_usd: 50000000000 -> 65000000000"
    assert contents == [changed if e["changes"] else None for e in STRIPE]
    doc = json.loads(json_feed(STRIPE, feed))
    assert doc["feed_url"] == BASE + "/api/feeds/companies/stripe.json" and doc["home_page_url"] == BASE + "/"
    plain = json.loads(json_feed(STRIPE, company_feed("stripe", "Stripe", "2025-06-30")))
    assert "feed_url" not in plain and plain["items"][0]["url"] == "/api/companies/stripe"
    assert entry_title(EVENTS[3]) == "Stripe: valuation changed"
    assert entry_title(EVENTS[4]) == "API deprecation: api-v1"
    assert "valuation_usd: 50000000000 -> 65000000000" in doc["items"][0]["content_text"]


def test_text_is_escaped(relax_ng: etree.RelaxNG) -> None:
    odd = make_event(9, "company-renamed", "a-b", "2025-05-05", summary='A & B <Ltd> "quoted"\x01 renamed')
    odd["company"]["name"] = "A & B <Ltd>"
    for feed in (site_feed("2025-06-30"), company_feed("a-b", "A & B <Ltd>", "2025-06-30", BASE)):
        root = etree.fromstring(atom([odd], feed))
        assert relax_ng.validate(root), str(relax_ng.error_log)
        assert root.findtext("a:entry/a:title", namespaces=ATOM_NS) == "A & B <Ltd>: renamed"
        assert root.findtext("a:entry/a:summary", namespaces=ATOM_NS) == 'A & B <Ltd> "quoted" renamed'
