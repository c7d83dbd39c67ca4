"""The inputs of a webhook run: the published events (``{site}/api/changes/events.jsonl``) and the subscriptions
file (TOML), each checked with its file and line or key named, and the subscribers' secrets from the environment."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

EVENTS_FILE = Path("api") / "changes" / "events.jsonl"
"""Where a built site publishes every event of its window, one JSON object a line, oldest first."""

EventType = Literal[
    "company-added", "company-renamed", "company-removed", "company-acquired", "company-delisted",
    "ipo-filed", "ipo-priced", "ipo-listed", "ipo-postponed", "ipo-withdrawn",
    "round-announced", "valuation-changed", "filing-added", "api-deprecated",
]
EntityKind = Literal["company", "ipo", "round", "filing", "api"]
Slug = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _iso_day(value: str) -> str:
    dt.date.fromisoformat(value)
    if len(value) != 10:
        raise ValueError("an ISO day, YYYY-MM-DD")
    return value


IsoDay = Annotated[str, AfterValidator(_iso_day)]


class WebhookError(Exception):
    """A run that cannot start or go on: names the file and line or key, or the environment variable."""


class _Entity(BaseModel):
    kind: str
    id: str | int
    url: str | None


class _Company(BaseModel):
    id: str | int
    slug: str
    name: str


class _Event(BaseModel):
    """What a webhook run reads of an event; the other keys (and any added later) pass through untouched."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1)
    date: IsoDay
    type: str
    entity: _Entity
    company: _Company | None
    changes: list[Any]
    snapshot: IsoDay | None = None


class Subscriber(BaseModel):
    """One ``[[subscriber]]`` table of the subscriptions file."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=100)
    url: str
    secret_env: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    types: tuple[EventType, ...] | None = None
    kinds: tuple[EntityKind, ...] | None = None
    companies: tuple[str, ...] | None = None
    since: dt.date | None = None

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("an http:// or https:// URL with a host")
        return value

    @field_validator("companies")
    @classmethod
    def _slugs(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for slug in value or ():
            if not Slug.match(slug):
                raise ValueError(f"{slug!r} is not a company slug (lowercase a-z, 0-9 and -)")
        return value

    def wants(self, event: Mapping[str, Any]) -> bool:
        """Whether the event passes this subscriber's filters (a filter left out lets every event through)."""
        if self.types is not None and event["type"] not in self.types:
            return False
        if self.kinds is not None and event["entity"]["kind"] not in self.kinds:
            return False
        if self.companies is not None:
            company = event.get("company")
            if not company or company.get("slug") not in self.companies:
                return False
        return self.since is None or dt.date.fromisoformat(event["date"]) >= self.since


class Subscriptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    subscriber: list[Subscriber] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_names(self) -> Subscriptions:
        seen: set[str] = set()
        for one in self.subscriber:
            if one.name in seen:
                raise ValueError(f"two subscribers are named {one.name!r}")
            seen.add(one.name)
        return self


def _where(loc: tuple[Any, ...], raw: Mapping[str, Any]) -> str:
    """A pydantic error location as a key path: ``subscriber[2] ('desk').types[0]``."""
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
            if i == 1 and loc[0] == "subscriber":
                with contextlib.suppress(KeyError, IndexError, TypeError):
                    out += f" ({raw['subscriber'][part]['name']!r})"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def read_subscriptions(path: Path) -> list[Subscriber]:
    """The subscribers of a TOML file; a missing file, bad TOML or a bad key is a WebhookError naming it."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WebhookError(f"{path}: no such subscriptions file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise WebhookError(f"{path}: not valid TOML: {error}") from None
    try:
        return Subscriptions.model_validate(raw).subscriber
    except ValidationError as error:
        problems = "; ".join(f"{_where(e['loc'], raw)}: {e['msg']}" for e in error.errors())
        raise WebhookError(f"{path}: {problems}") from None


def read_secrets(subscribers: list[Subscriber], environ: Mapping[str, str]) -> dict[str, bytes]:
    """Each subscriber's secret from its ``secret_env`` variable; an unset or empty one is an error naming the
    variable (never its value)."""
    secrets: dict[str, bytes] = {}
    for one in subscribers:
        value = environ.get(one.secret_env, "")
        if not value:
            raise WebhookError(f"subscriber {one.name!r}: environment variable {one.secret_env} "
                               f"(its secret_env) is not set or empty")
        secrets[one.name] = value.encode("utf-8")
    return secrets


def read_events(site: Path) -> list[dict[str, Any]]:
    """Every event the site publishes, oldest first (date, then id), each as its JSON object (unknown keys kept).
    A missing file, a line that is not a JSON event, or an id twice is a WebhookError naming file and line."""
    path = site / EVENTS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WebhookError(f"{path}: no such file (is {site} a built site with change events?)") from None
    except UnicodeDecodeError as error:
        raise WebhookError(f"{path}: not UTF-8: {error}") from None
    events: list[dict[str, Any]] = []
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise WebhookError(f"{path}:{number}: not JSON: {error}") from None
        if not isinstance(event, dict):
            raise WebhookError(f"{path}:{number}: not a JSON object")
        try:
            _Event.model_validate(event)
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'event'}: {e['msg']}" for e in error.errors())
            raise WebhookError(f"{path}:{number}: {problems}") from None
        if event["id"] in lines:
            raise WebhookError(f"{path}:{number}: event id {event['id']} again (first on line {lines[event['id']]})")
        lines[event["id"]] = number
        events.append(event)
    return sorted(events, key=lambda e: (e["date"], e["id"]))
