"""Filters whose allowed values the data dictionary declares (``generator/dataset/vocabulary.py``) where the
registry takes the values it publishes from the rows: every declared value is valid (a value without rows is an
empty answer, ``stage=pre-seed``), and OpenAPI and the front door name them as the dictionary writes them."""

from __future__ import annotations

import typing

from generator.dataset.vocabulary import FilingForm, InvestorType, NewsTag, RoundStage

VOCABULARIES: dict[tuple[str, str], object] = {
    ("pre-ipos", "stage"): RoundStage, ("funding", "stage"): RoundStage, ("news", "tag"): NewsTag,
    ("filings", "form"): FilingForm, ("investors", "type"): InvestorType,
}
"""(route, filter) -> the Literal of its declared values."""


def vocabulary(literal: object) -> dict[str, str]:
    """A dictionary's values as the files spell them (``S-1/A`` -> ``s-1-a``, as the SQL's ``form_slug``) -> as
    written (EDGAR's ``S-1/A``)."""
    return {str(v).lower().replace("/", "-"): str(v) for v in typing.get_args(literal)}
