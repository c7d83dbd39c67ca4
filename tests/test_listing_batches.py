"""A listing route's pages and a detail route's files are the same bytes whatever the batches they are made in
(``listing.BATCH``, ``listing.BATCH_BYTES``, ``combinations.COMBINATIONS``, ``details.BATCH``,
``details.SERIALIZED``) and however a detail route is sharded: tiny batches and shards against the defaults, on the
embedded dataset."""

from __future__ import annotations

import duckdb
import pytest

from generator.api import combinations, details, listing
from generator.api.registry import DETAIL_ROUTES, LIST_ROUTES
from generator.api.routes import DetailRoute, ListRoute

from .test_details import _Chosen


def _pages(con, route: ListRoute, info) -> list[tuple[str, bytes]]:  # type: ignore[no-untyped-def]
    listing.materialize(con, route, info)
    domains: combinations.Domains = {}
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


@pytest.mark.parametrize("route", LIST_ROUTES, ids=lambda r: r.name)
def test_a_routes_filter_values_are_its_one_filter_folders(embedded_db, route: ListRoute) -> None:  # type: ignore[no-untyped-def]
    """The values DuckDB lists for each filter (``combinations.domains``) are, in the same order, those a rebuild
    that carries the route's files over reads back from their paths (``listing.domains_of``)."""
    con, info = embedded_db
    listing.materialize(con, route, info)
    found: combinations.Domains = {}
    paths = [page.path.lstrip("/") for page in listing.render(con, route, info, found)]
    assert found == listing.domains_of(route, paths)
    assert set(found) == {f.name for f in route.filters}
    assert any(count > 1 for count, _ in found.values()) or not route.filters


def test_number_values_are_listed_in_number_order() -> None:
    """A number filter's values in number order, a word filter's in text order, the same from DuckDB as from paths."""
    route = next(r for r in LIST_ROUTES if r.name == "companies")
    names = [f.name for f in route.filters]
    number, word = names.index("minValuation"), names.index("country")
    con = duckdb.connect()
    columns = ", ".join(f"NULL::VARCHAR AS _v{j}" for j in range(len(names)))
    con.execute(f"CREATE TEMP TABLE _combos AS SELECT {columns} WHERE false")
    for j, value in [(number, "100"), (number, "5"), (number, "20"), (word, "us"), (word, "de"), (word, "us")]:
        con.execute(f"INSERT INTO _combos (_v{j}) VALUES (?)", [value])
    con.execute(f"INSERT INTO _combos (_v{number}, _v{word}) VALUES ('7', 'fr')")  # two filters: not a domain value
    found = combinations.domains(con, route)
    assert combinations.unpack(found["minValuation"]) == ["5", "20", "100"]
    assert combinations.unpack(found["country"]) == ["de", "us"]
    assert combinations.unpack(found["q"]) == []
    paths = [f"{route.path.lstrip('/')}/{f}={v}/1.json" for f, v in [("minValuation", "100"), ("minValuation", "5"),
             ("minValuation", "20"), ("country", "us"), ("country", "de")]]
    assert listing.domains_of(route, paths) == found
