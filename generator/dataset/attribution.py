"""The tables that say where a fact comes from or what else a company is called: news items with the source each
names (``news.csv``), the former names and tickers of companies (``aliases.csv``), and the provenance of imported
values (``provenance.csv``). Part of the schema (``schema.py`` lists the tables)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator, model_validator

from generator.dataset.cells import Date, Integer
from generator.dataset.vocabulary import (
    NEWS_RECORDS,
    TICKER_PATTERN,
    AliasKind,
    Basis,
    NewsOrigin,
    NewsTag,
    Row,
    Slug,
    Text,
    Url,
)


class NewsItem(Row):
    """A news item names its source (``origin``): a feed's publisher and URL, or the record it was compiled from."""

    id: Integer = Field(ge=1)
    company_id: Integer
    published_date: Date
    headline: Text
    summary: Text | None = None
    publisher: Text | None = Field(None, description="who published the item (a feed's publisher)")
    tags: Annotated[list[NewsTag], Field(min_length=1)] | None = Field(
        None, description="semicolon-separated in the CSV, e.g. ipo;pricing; empty: the source gives no topic (a feed)")
    article_url: Url | None = Field(None, description="the article's address, as its feed gives it")
    origin: NewsOrigin | None = Field(
        None, description="feed = publisher and article_url name the article; compiled = written from the "
        "dataset's own records (the one linked in ipo_id, round_id, filing_id or offering_id; none linked: the "
        "company record itself, its acquisition or valuation); empty = not stated")
    ipo_id: Integer | None = Field(None, description="compiled from this IPO record (of the same company)")
    round_id: Integer | None = Field(None, description="compiled from this funding round (of the same company)")
    filing_id: Integer | None = Field(None, description="compiled from this filing (of the same company)")
    offering_id: Integer | None = Field(None, description="compiled from this offering (of the same company)")

    @field_validator("tags", mode="before")
    @classmethod
    def _split_tags(cls, value: object) -> object:
        return value.split(";") if isinstance(value, str) else value

    @field_validator("origin")
    @classmethod
    def _origin_named(cls, value: str | None, info: ValidationInfo) -> str | None:
        if "publisher" not in info.data or "article_url" not in info.data:
            return value  # a publisher or URL that is not valid is reported on its own column
        if value == "feed" and not (info.data.get("publisher") and info.data.get("article_url")):
            raise ValueError("origin feed needs publisher and article_url")
        return value

    @field_validator(*NEWS_RECORDS)
    @classmethod
    def _one_record(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is None:
            return value
        if info.data.get("origin", "compiled") != "compiled":
            raise ValueError("a linked record needs origin compiled")
        linked = [c for c in NEWS_RECORDS if c != info.field_name and info.data.get(c) is not None]
        if linked:
            raise ValueError(f"an item is compiled from one record at most ({linked[0]} is set)")
        return value


class Alias(Row):
    """A name or ticker a company is also known by: a former name (with the dates it was used, as EDGAR's
    submissions give them), a name a source calls it (a translated name, the name it listed under), a ticker it
    held. Searching finds the company by it, and ``import`` matches a source that uses it to the company."""

    company_id: Integer
    kind: AliasKind
    alias: Text = Field(description="the name, or the ticker (as the companies table writes tickers)")
    from_date: Date | None = Field(None, description="first day the company used it, when a source dates it")
    to_date: Date | None = Field(None, description="last day the company used it; empty: not known to have ended "
                                 "(a translated name, a name a source still uses)")
    source: Text | None = Field(None, description="where it is known from, e.g. SEC EDGAR submissions formerNames")

    @field_validator("alias")
    @classmethod
    def _ticker_shape(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("kind") == "ticker" and not re.fullmatch(TICKER_PATTERN, value):
            raise ValueError(f"a ticker alias must match {TICKER_PATTERN}")
        return value

    @model_validator(mode="after")
    def _dates_in_order(self) -> Alias:
        if self.from_date and self.to_date and self.from_date > self.to_date:
            raise ValueError("from_date is after to_date")
        return self


class Provenance(Row):
    """``provenance.csv`` (optional, written by ``import``): which source gave which values of a record, and where."""

    table: Annotated[str, Field(pattern=r"^[a-z][a-z_]*$")] = Field(
        description="canonical table of the record, e.g. companies, funding_rounds")
    record: Text = Field(description="the record's primary key; the values of a composite key joined by |")
    source: Slug = Field(description="importer that gave the values, e.g. edgar-submissions, nasdaq-calendar")
    basis: Basis
    fields: Text = Field(description="semicolon-separated columns whose current value comes from this source; "
                         "`*`: the source describes the record (it may have given no value that stayed); "
                         "`repeated-rows:N`: N further rows of the source repeated it and were merged into it")
    places: Text | None = Field(None, description="semicolon-separated places the source gives the record: a file "
                                "and line (`crunchbase-2013/crunchbase-rounds.csv:812`) or a document and the key "
                                "in it (`nasdaq-calendar-api/2024-06.json#data.priced.rows[3]`, "
                                "`sec-companyfacts/CIK0000320193.json#0000320193-23-000106`), the first five; "
                                "`+`: it gives the record in more places")
