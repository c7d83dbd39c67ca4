"""A listing route's pages and a detail route's files are the same bytes whatever the batches they are made in
(``listing.BATCH``, ``listing.BATCH_BYTES``, ``combinations.COMBINATIONS``, ``details.BATCH``,
``details.SERIALIZED``) and however a detail route is sharded: tiny batches and shards against the defaults, on the
embedded dataset."""

from __future__ import annotations

import pytest

from generator.api import combinations, details, listing
from generator.api.registry import DETAIL_ROUTES, LIST_ROUTES
from generator.api.routes import DetailRoute, ListRoute

from .test_details import _Chosen


def _pages(con, route: ListRoute, info) -> list[tuple[str, bytes]]:  # type: ignore[no-untyped-def]
    listing.materialize(con, route, info)
    domains: dict[str, list[str]] = {}
    pages = [(page.path, page.body) for page in listing.render(con, route, info, domains)]
    return [*pages, ("domains", repr(sorted(domains.items())).encode())]


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_tiny_batches_give_the_same_pages(embedded_db, route: ListRoute, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    con, info = embedded_db
    made = _pages(con, route, info)
    assert len(made) > 1
    monkeypatch.setattr(listing, "BATCH", 40)
    monkeypatch.setattr(listing, "FIRST_BATCH", 3)  # then as many rows as fit 5 KB: batches of varying sizes
    monkeypatch.setattr(listing, "BATCH_BYTES", 5_000)
    monkeypatch.setattr(combinations, "COMBINATIONS", 10)
    assert _pages(con, route, info) == made


@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=lambda r: r.name)
def test_tiny_batches_and_shards_give_the_same_files(
    embedded_db, route: DetailRoute, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    con, info = embedded_db
    names = {f"{route.name}/{keys[0]}" for keys, _ in details.bodies(con, route, info)}
    whole = _Chosen(names)
    examples = details.detail_files(con, route, info, whole)  # type: ignore[arg-type]
    monkeypatch.setattr(details, "BATCH", 5)  # each batch's parts staged on their own (company_profiles.sql)
    monkeypatch.setattr(details, "SERIALIZED", 2)  # and serialized in three pieces
    sharded = _Chosen(names)
    found = [details.detail_files(con, route, info, sharded, (i, 3)) for i in range(3)]  # type: ignore[arg-type]
    assert found[0] == examples and not found[1] and not found[2]
    assert sharded.written == whole.written and sharded.aliases == whole.aliases and sharded.keys == whole.keys
    assert len(whole.written) == len(names)
