"""The change events as feeds: an Atom 1.0 document (RFC 4287) and a JSON Feed 1.1, site-wide and per company.

Pure functions from events (newest first, already cut to what the feed holds) to bytes: the same events and feed
give the same bytes (no wall clock: a feed's ``updated`` is its newest event's date, or the feed's as-of date when
it has no events). Entry ids never change: ``urn:uuid:`` + uuid5 of the event id (``entry_id``), the same in both
formats, with or without a base URL. Links are site paths unless the build knows the site's absolute base URL;
relative references resolve against the feed's own address (RFC 3986), so an Atom feed needs no ``xml:base``.
docs/feeds.md is the reference.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

__all__ = ["Feed", "site_feed", "company_feed", "atom", "json_feed", "entry_id", "entry_title", "SITE_FEED_STEM",
           "COMPANY_FEED_STEM", "ATOM_TYPE", "JSON_FEED_TYPE"]

SITE_FEED_STEM = "/api/feeds/changes"
"""The site-wide feeds: this path + ``.atom`` and + ``.json``."""
COMPANY_FEED_STEM = "/api/feeds/companies/{slug}"
"""A company's feeds (the feeds have a folder of their own: a listing's folder holds its pages only)."""
SITE_EVENTS = "/api/changes/all/sort=-date,page=1.json"
COMPANY_EVENTS = "/api/changes/company={slug}/sort=-date,page=1.json"
"""The first page of the listing a feed follows (its ``related`` link)."""
ATOM_TYPE = "application/atom+xml"
JSON_FEED_TYPE = "application/feed+json"
SCHEME = "urn:company-ipo-api:"
"""Atom category schemes: ``urn:company-ipo-api:event-type``, ``...:entity-kind``, ``...:company``, ``...:event``."""
LABELS = {
    "company-added": "added", "company-renamed": "renamed", "company-removed": "removed",
    "company-acquired": "acquired", "company-delisted": "delisted", "ipo-filed": "IPO filed",
    "ipo-priced": "IPO priced", "ipo-listed": "IPO listed", "ipo-postponed": "IPO postponed",
    "ipo-withdrawn": "IPO withdrawn", "round-announced": "funding round announced",
    "valuation-changed": "valuation changed", "filing-added": "filing added", "api-deprecated": "API deprecation",
}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class Feed:
    """What a feed is about and where it lives (paths on the site; ``base_url`` makes them absolute)."""

    title: str
    description: str
    stem: str
    """The feed's path without its extension: ``.atom`` and ``.json`` are added."""
    related: str
    """The JSON resource the feed follows (the changes listing, a company's profile)."""
    as_of: str
    """The snapshot's as-of day: the feed's ``updated`` when it has no events."""
    base_url: str | None = None
    """The site's absolute base URL (``https://api.example.com``), or None: links are then site paths."""
    author: str = "company-ipo-api"
    home: str = "/"
    """The HTML page of the site (the landing page)."""

    @property
    def atom_path(self) -> str:
        return self.stem + ".atom"

    @property
    def json_path(self) -> str:
        return self.stem + ".json"

    def url(self, path: str) -> str:
        return path if self.base_url is None else self.base_url.rstrip("/") + path


def site_feed(as_of: str, base_url: str | None = None, *, site_name: str = "company-ipo-api") -> Feed:
    """The site-wide feed, at ``/api/feeds/changes.atom`` and ``/api/feeds/changes.json``."""
    return Feed(title=f"{site_name}: changes", stem=SITE_FEED_STEM, related=SITE_EVENTS, as_of=as_of,
                description="What changed in the company and IPO data: IPOs filed, priced, listed or withdrawn, "
                "rounds, valuations, companies added, renamed or removed, filings, and changes of the API itself.",
                base_url=base_url, author=site_name)


def company_feed(slug: str, name: str, as_of: str, base_url: str | None = None, *,
                 site_name: str = "company-ipo-api") -> Feed:
    """One company's feed, at ``/api/feeds/companies/{slug}.atom`` and ``.json``; its related link is the listing of
    its events."""
    return Feed(title=f"{name}: changes ({site_name})", stem=COMPANY_FEED_STEM.format(slug=slug),
                related=COMPANY_EVENTS.format(slug=slug), as_of=as_of, base_url=base_url, author=site_name,
                description=f"What changed about {name} in the company and IPO data.")


def entry_id(event_id: str) -> str:
    """The entry's id in both formats: ``urn:uuid:`` + uuid5(NAMESPACE_URL, ``urn:company-ipo-api:event:{id}``)."""
    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"{SCHEME}event:{event_id}"))


def _feed_id(feed: Feed) -> str:
    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, feed.url(feed.stem)))


def entry_title(event: Mapping[str, Any]) -> str:
    """``Stripe: IPO priced``; an event without a company: ``API deprecation: {entity id}``."""
    label = LABELS.get(event["type"], event["type"].replace("-", " "))
    company = event.get("company")
    if company:
        return f"{company['name']}: {label}"
    return f"{label[:1].upper()}{label[1:]}: {event['entity']['id']}"


def _text(event: Mapping[str, Any]) -> str:
    """The summary, then one line per changed field: ``valuation_usd: 50000000000 -> 65000000000``."""
    lines = [str(event.get("summary") or entry_title(event))]
    for change in event.get("changes") or []:
        old, new = (json.dumps(change.get(k), ensure_ascii=False) for k in ("old", "new"))
        lines.append(f"{change.get('field')}: {old} -> {new}")
    return "\n".join(lines)


def _instant(day: str) -> str:
    return f"{day}T00:00:00Z"


def _updated(events: Sequence[Mapping[str, Any]], feed: Feed) -> str:
    return _instant(max((e["date"] for e in events), default=feed.as_of))


def _x(text: str) -> str:
    return escape(_NOT_XML.sub("", text))


def _a(text: str) -> str:
    return quoteattr(_NOT_XML.sub("", text))


def _link(rel: str, type_: str, href: str) -> str:
    return f"<link rel={_a(rel)} type={_a(type_)} href={_a(href)}/>"


def _category(kind: str, term: str, label: str | None = None) -> str:
    extra = "" if label is None else f" label={_a(label)}"
    return f"<category scheme={_a(SCHEME + kind)} term={_a(term)}{extra}/>"


def _atom_entry(event: Mapping[str, Any], feed: Feed) -> list[str]:
    day = _instant(event["date"])
    out = ["<entry>", f"<id>{entry_id(event['id'])}</id>", f"<title type=\"text\">{_x(entry_title(event))}</title>",
           f"<published>{day}</published>", f"<updated>{day}</updated>"]
    url = event["entity"].get("url")
    if url:
        # no type: feed readers (feedparser among them) take an alternate link typed other than HTML for no link
        out.append(f"<link rel=\"alternate\" href={_a(feed.url(url))}/>")
    label = LABELS.get(event["type"], event["type"].replace("-", " "))
    out.append(_category("event-type", event["type"], label))
    out.append(_category("entity-kind", event["entity"]["kind"]))
    if event.get("company"):
        out.append(_category("company", event["company"]["slug"], event["company"]["name"]))
    out.append(_category("event", event["id"]))
    out.append(f"<summary type=\"text\">{_x(str(event.get('summary') or entry_title(event)))}</summary>")
    if event.get("changes") or not url:  # the changed fields; or, with no link, the content an entry must have
        out.append(f"<content type=\"text\">{_x(_text(event))}</content>")
    out.append("</entry>")
    return out


def atom(events: Sequence[Mapping[str, Any]], feed: Feed) -> bytes:
    """The Atom 1.0 document of ``events`` (newest first), UTF-8."""
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
           f"<id>{_feed_id(feed)}</id>", f"<title type=\"text\">{_x(feed.title)}</title>",
           f"<subtitle type=\"text\">{_x(feed.description)}</subtitle>", f"<updated>{_updated(events, feed)}</updated>",
           f"<author><name>{_x(feed.author)}</name></author>", f"<generator>{_x(feed.author)}</generator>",
           _link("self", ATOM_TYPE, feed.url(feed.atom_path)), _link("alternate", "text/html", feed.url(feed.home)),
           _link("alternate", JSON_FEED_TYPE, feed.url(feed.json_path)),
           _link("related", "application/json", feed.url(feed.related))]
    for event in events:
        out += _atom_entry(event, feed)
    out.append("</feed>")
    return ("\n".join(out) + "\n").encode("utf-8")


def _json_item(event: Mapping[str, Any], feed: Feed) -> dict[str, Any]:
    item: dict[str, Any] = {"id": entry_id(event["id"])}
    url = event["entity"].get("url")
    if url:
        item["url"] = feed.url(url)
    tags = [event["type"], event["entity"]["kind"]] + ([event["company"]["slug"]] if event.get("company") else [])
    item.update(title=entry_title(event), summary=str(event.get("summary") or entry_title(event)),
                content_text=_text(event), date_published=_instant(event["date"]), tags=tags, _event=dict(event))
    return item


def json_feed(events: Sequence[Mapping[str, Any]], feed: Feed) -> bytes:
    """The JSON Feed 1.1 document of ``events`` (newest first), UTF-8; each item carries its event whole as the
    extension object ``_event``. ``home_page_url`` and ``feed_url`` only with a base URL (they must be absolute)."""
    doc: dict[str, Any] = {"version": "https://jsonfeed.org/version/1.1", "title": feed.title}
    if feed.base_url is not None:
        doc.update(home_page_url=feed.url(feed.home), feed_url=feed.url(feed.json_path))
    doc.update(description=feed.description, authors=[{"name": feed.author}], language="en",
               items=[_json_item(e, feed) for e in events])
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
