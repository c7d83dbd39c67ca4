"""The investors of the folder, found by name or made: one record per normalised name, with a slug of its own (a
name that would be a number or a reserved word gets ``-investor``; a taken slug ``-2``, ``-3`` ...)."""

from __future__ import annotations

from typing import Protocol

from generator.importers.base import InvestorFact, Source, slugify
from generator.importers.identity import normalise
from generator.importers.store import Store


class Merging(Protocol):
    """What of ``merge.Merger`` this module uses."""

    store: Store
    reserved: frozenset[str]

    def _new(self, table: str, values: dict[str, str]) -> str: ...

    def assign(self, table: str, key: str, values: dict[str, str], source: Source, basis: str,
               only_empty: bool = False) -> None: ...


class InvestorBook:
    def __init__(self, merger: Merging) -> None:
        self.merger = merger
        investors = merger.store.rows["investors"]
        self.slugs = {r["slug"]: k for k, r in investors.items()}
        self.names = {normalise(r["name"]): k for k, r in investors.items()}

    def investor(self, fact: InvestorFact, source: Source) -> str:
        """The key of the investor the fact names (made if new); its fields fill what is empty."""
        merger = self.merger
        norm = normalise(fact.name)
        key = self.names.get(norm)
        if key is None:
            slug, base, n = slugify(fact.name) or "investor", slugify(fact.name) or "investor", 1
            if base.isdigit() or base in merger.reserved:
                slug = base = f"{base}-investor"
            while slug in self.slugs:
                n += 1
                slug = f"{base}-{n}"
            key = merger._new("investors", {"slug": slug, "name": fact.name})
            self.slugs[slug] = key
            self.names[norm] = key
            merger.store.claim("investors", key, "name", source.name, source.basis)
        merger.assign("investors", key, fact.fields, source, "estimate", only_empty=True)
        return key
