"""``changes.csv`` (optional, written by ``python -m generator changes record``): the differences one snapshot of the
dataset showed against the one before it (a company added, renamed, removed; a valuation changed), kept with the
dataset so that a rebuild on a fresh machine publishes them again with the same ids. The dated facts of the dataset
(an IPO's dates, a round, a filing, an acquisition) are events by themselves and are not recorded here. Part of the
schema (``schema.py`` lists the tables)."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated

from pydantic import Field, field_validator

from generator.dataset.cells import Date, Integer
from generator.dataset.vocabulary import EVENT_ID_PATTERN, ChangeType, EntityKind, Row, Slug, Text

FIELD_CHANGE_KEYS = ("field", "old", "new")


class Change(Row):
    id: Annotated[str, Field(pattern=EVENT_ID_PATTERN)] = Field(
        description="the event's id: evt- and 16 hex digits of a digest of what the event is (never changes)")
    date: Date = Field(description="the as-of date of the snapshot that showed the difference")
    type: ChangeType
    entity_kind: EntityKind
    entity_id: Text = Field(description="the record's key in its table (a company's id)")
    company_id: Integer | None = Field(
        None, description="the company the event is about (no reference is checked: a removed company is gone)")
    company_slug: Slug | None = Field(None, description="its slug when the event was recorded")
    company_name: Text | None = Field(None, description="its name when the event was recorded")
    summary: Text
    changes: Text | None = Field(
        None, description='JSON list of the fields that changed, each {"field", "old", "new"} (values as in the '
        "table: whole USD, text)")
    snapshot: Date = Field(description="the as-of date of the snapshot that recorded the event")

    @field_validator("changes")
    @classmethod
    def _field_changes(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            found = json.loads(value)
        except ValueError as error:
            raise ValueError(f"not JSON: {error}") from None
        if not isinstance(found, list) or not all(
                isinstance(item, dict) and tuple(item) == FIELD_CHANGE_KEYS and isinstance(item["field"], str)
                for item in found):
            raise ValueError('a JSON list of {"field", "old", "new"} objects')
        return value


WINDOW_DAYS = 90
"""The events published (``/api/changes``, feeds, webhooks) and kept in ``changes.csv``: those dated within this many
days up to the dataset's as-of date."""


def event_id(*parts: object) -> str:
    """An event's id: ``evt-`` and the first 16 hex digits of sha256 over its parts joined by ``|`` (what the event
    is: its type, its record's kind and key, its date, and for a change the field's old and new values). The SQL
    of the dated facts (``generator/api/sql/changes.sql``) writes the same recipe; a test holds them together."""
    text = "|".join("" if part is None else str(part) for part in parts)
    return "evt-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
