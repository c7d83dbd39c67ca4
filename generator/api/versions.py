"""The API's version and what is going away (docs/versions.md).

``API_VERSION`` follows semantic versioning of the API's shape: a compatible change (a new endpoint, filter, sort,
field, enum value or event type) raises the minor number; a breaking one (a field, value, path or parameter removed
or changed in meaning) the major number, and is published beside the old shape for ``DEPRECATION_WINDOW_DAYS`` at
least, the old shape answering with ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594) and ``Link`` headers and an
``api-deprecated`` event in /api/changes and the feeds. The version is the OpenAPI document's ``info.version`` and
every /api/ response's ``API-Version`` header.
"""

from __future__ import annotations

import calendar
import datetime as dt
import email.utils
from dataclasses import dataclass

API_VERSION = "1.1.0"
"""1.1.0: /api/changes, its feeds and the webhooks' payload (compatible: an endpoint added)."""
VERSION_HEADER = "API-Version"
SNAPSHOT_HEADER = "Dataset-Snapshot"
"""Every /api/ response of a build names its snapshot: the as-of date and the first 12 hex digits of the sha256 of
its CSV dataset archive (``exports.snapshot``; the export manifest has the whole digest)."""
DEPRECATION_WINDOW_DAYS = 180
"""The least time a shape that goes away is served beside its replacement, from its announcement to its sunset."""
POLICY = "/api/openapi.json#/info"


@dataclass(frozen=True)
class Deprecation:
    """A path (a Netlify ``[[headers]]`` pattern: ``*`` matches the rest) that goes away."""

    path: str
    announced: dt.date
    sunset: dt.date
    successor: str
    """What replaces it: a path of the API."""
    reason: str

    def __post_init__(self) -> None:
        if (self.sunset - self.announced).days < DEPRECATION_WINDOW_DAYS:
            raise ValueError(f"{self.path}: a sunset {DEPRECATION_WINDOW_DAYS} days after the announcement at least")

    def headers(self) -> tuple[tuple[str, str], ...]:
        """``Deprecation: @<epoch seconds>`` (RFC 9745's structured date), ``Sunset: <HTTP-date>`` (RFC 8594) and the
        successor and the policy as ``Link`` relations."""
        announced = calendar.timegm(self.announced.timetuple())
        sunset = email.utils.formatdate(calendar.timegm(self.sunset.timetuple()), usegmt=True)
        return (("Deprecation", f"@{announced}"), ("Sunset", sunset),
                ("Link", f'<{self.successor}>; rel="successor-version", <{POLICY}>; rel="deprecation"'))

    def summary(self) -> str:
        return (f"{self.path} is deprecated from {self.announced.isoformat()} and goes away on "
                f"{self.sunset.isoformat()}: use {self.successor} ({self.reason})")


DEPRECATIONS: tuple[Deprecation, ...] = ()
"""What goes away, each published beside its successor until its sunset. None yet."""


POLICY_TEXT = (
    f"Versions: `info.version` and every /api/ response's `{VERSION_HEADER}` header follow semantic versioning of "
    "the API's shape. A new endpoint, filter, sort, field, enum value or event type is compatible (the minor "
    "number); a removed or changed one is breaking (the major number) and is published beside the old shape for "
    f"{DEPRECATION_WINDOW_DAYS} days at least, the old shape answering with `Deprecation` (RFC 9745), `Sunset` "
    "(RFC 8594) and `Link` headers and an `api-deprecated` event at /api/changes. Clients ignore fields and values "
    "they do not know.\n\n"
    "Events: /api/changes lists what changed (the same events as /api/changes/events.jsonl, Atom and JSON feeds at "
    "/api/feeds/changes.atom and changes.json, per company /api/feeds/companies/{slug}.atom and .json). Webhooks "
    "POST each "
    "event, signed, as the `ChangeEvent` schema below: OpenAPI 3.0 has no `webhooks` object, so the payload is in "
    "`components.schemas` and described in `x-webhooks` (the shape OpenAPI 3.1 gives `webhooks`)."
)


def webhooks() -> dict[str, object]:
    """The webhook a subscriber receives, in OpenAPI 3.1's ``webhooks`` shape (as the extension ``x-webhooks``)."""
    return {"changeEvent": {"post": {
        "summary": "A change event, delivered to a subscriber (docs/webhooks.md)",
        "description": "One POST per event, oldest first, at least once: the `Webhook-Id` header is the event id "
        "(deduplicate by it). `Webhook-Signature: t=<unix seconds>,v1=<hex>` is HMAC-SHA256 with the subscriber's "
        "secret over `<t>.<body>`.",
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ChangeEvent"}}}},
        "responses": {"2XX": {"description": "Received: the event is not sent again"}},
    }}}
