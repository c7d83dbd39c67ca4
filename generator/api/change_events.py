"""The change event (``/api/changes``, the feeds, the webhooks' body): what happened, when, to which record, and
for a difference between snapshots the fields with their old and new values. Re-exported by ``responses``."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated

from pydantic import Field, WithJsonSchema, field_validator

from generator.api.response_base import Out
from generator.dataset.schema import ChangeType, EntityKind

EVENT_ID = "never changes: evt- and 16 hex digits of sha256 over what the event is (docs/changes.md)"


class EventEntity(Out):
    kind: EntityKind
    id: str = Field(description="the record's key in its table (an IPO's, a round's, a filing's or a company's id)")
    url: str | None = Field(description="path of the company profile that holds the record; null once it is removed")


class EventCompany(Out):
    id: int
    slug: str
    name: str = Field(description="its name now (a removed company: its last name)")
    url: str | None = Field(description="path of the company profile; null once the company is removed")


ANY_VALUE = WithJsonSchema({"description": "an integer, a string or null, as the column holds it"})
"""A column's value: any JSON scalar (OpenAPI 3.0 cannot say 'integer or string or null' without a type beside
``nullable``, which linters refuse, so the schema leaves the type open)."""


class FieldChange(Out):
    field: str = Field(description="the column that changed, as the dataset's table names it")
    old: Annotated[int | str | None, ANY_VALUE] = Field(
        description="its value in the previous snapshot (whole USD for *_usd)")
    new: Annotated[int | str | None, ANY_VALUE] = Field(description="its value in this snapshot")


class ChangeEvent(Out):
    id: str = Field(description=EVENT_ID)
    date: dt.date = Field(description="the day it happened; for a difference between snapshots, the as-of date of "
                          "the snapshot that showed it")
    type: ChangeType
    entity: EventEntity
    company: EventCompany | None
    summary: str
    changes: list[FieldChange] = Field(description="for a difference between snapshots, the fields that changed; "
                                       "empty for a dated fact")
    snapshot: dt.date | None = Field(description="the as-of date of the snapshot that recorded a difference; null "
                                     "for a dated fact of the dataset")

    @field_validator("changes", mode="before")
    @classmethod
    def _recorded(cls, value: object) -> object:
        """The table keeps the fields as JSON text (``changes.csv``)."""
        return json.loads(value) if isinstance(value, str) else value
