"""The front door's rules that issue 36 found answered wrong, each held on its own (the rows are also in the
oracle's table, ``tests/test_frontdoor.py``'s ``ISSUE_36``, and the JavaScript runtimes' table,
``tests/frontdoor_js/table.py``):
a company by its id; a value the data dictionary allows that no row has; the calendar's default on every query;
page 1's facets on every answer; the texts of a 400 and the OpenAPI document's ``q``."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

import pytest

from generator.api.declared import VOCABULARIES
from generator.api.semantics import markdown
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import slugify


def _get(resolver: Resolver, url: str) -> tuple[int, dict]:
    path, _, query = url.partition("?")
    answer = resolver.resolve(path, query)
    assert answer is not None, url
    return answer.status, json.loads(answer.body)


@pytest.mark.parametrize(("route", "key", "slug"), [("/api/news", "539", "stripe"),
                                                    ("/api/filings", "1", "meta-platforms")])
def test_a_company_by_its_id_answers_as_by_its_slug(route: str, key: str, slug: str, resolver: Resolver) -> None:
    """``company=1`` (Meta's id) was a 200 without rows: it is that company, by id or by slug in any case."""
    answers = {k: _get(resolver, f"{route}?company={k}") for k in (slug, slug.upper(), key, slug.title())}
    assert {status for status, _ in answers.values()} == {200}
    assert len({json.dumps(body) for _, body in answers.values()}) == 1
    assert answers[key][1]["meta"]["filters"] == {"company": slug} and answers[key][1]["data"]
    status, body = _get(resolver, f"{route}?company=999999")
    assert status == 400 and [p["name"] for p in body["invalid-params"]] == ["company"]


@pytest.mark.parametrize(("route", "name"), sorted(VOCABULARIES))
def test_every_value_the_dictionary_allows_is_a_200(route: str, name: str, resolver: Resolver) -> None:
    """Each value of the dictionary's vocabulary, as it writes it (``S-1/A``, ``pre-seed``), answers 200; one that no
    row has, an empty list (it was a 400 "unknown value")."""
    path = resolver.space["routes"][route]["path"]
    empty = 0
    for value in typing.get_args(VOCABULARIES[route, name]):
        status, body = _get(resolver, f"{path}?{name}={value}")
        assert status == 200, (value, body)
        empty += body["meta"]["total"] == 0
        assert body["meta"]["total"] or (body["data"] == [] and body["meta"]["facets"] == {})
    if (route, name) != ("investors", "type"):
        assert empty, "the embedded data has a declared value without rows"


def test_the_calendars_default_applies_to_every_query(resolver: Resolver) -> None:
    """``when`` is ``upcoming`` unless the query names it, and ``meta.filters`` says so; past events come newest
    first (unless ``sort`` says otherwise)."""
    as_of = resolver.space["meta"]["as_of"]
    for url in ("/api/calendar", "/api/calendar?type=listing", "/api/calendar?month=2024-11",
                "/api/calendar?type=expected-listing", "/api/calendar?month=2025-07"):
        status, body = _get(resolver, url)
        assert status == 200 and body["meta"]["filters"]["when"] == "upcoming", url
        assert all(row["date"] >= as_of for row in body["data"]) and body["meta"]["sort"] == "date", url
    status, body = _get(resolver, "/api/calendar?type=listing&when=past")
    dates = [row["date"] for row in body["data"]]
    assert body["meta"]["sort"] == "-date" and dates == sorted(dates, reverse=True) and dates and dates[0] < as_of
    status, body = _get(resolver, "/api/calendar?when=PAST&sort=date")
    dates = [row["date"] for row in body["data"]]
    assert body["meta"]["sort"] == "date" and dates == sorted(dates)


@pytest.mark.parametrize("url", ["/api/search?q=stripe", "/api/companies?minValuation=1.5e9",
                                 "/api/companies?sector=fintech&country=us&sort=valuation",
                                 "/api/ipos?status=listed&year=2021&sort=-proceeds", "/api/search?q=o",
                                 "/api/calendar?type=listing&when=past",
                                 "/api/offerings?kind=tender&year=2024&sort=-amount"])
def test_every_page_one_carries_its_facets(url: str, resolver: Resolver) -> None:
    """A composed page 1 carries ``meta.facets`` (the oracle's counts: ``tests/test_frontdoor.py``); each facet's URL
    answers as many rows as it counts, with the query's filters and that one more."""
    status, body = _get(resolver, url)
    assert status == 200 and body["meta"]["facets"] and body["meta"]["facets_truncated"] == []
    asked = {k: v for k, v in parse_qsl(urlsplit(url).query) if k not in ("sort", "page")}
    for name, entries in body["meta"]["facets"].items():
        for entry in entries:
            _, refined = _get(resolver, entry["url"])
            assert refined["meta"]["total"] == entry["count"], entry
            assert refined["meta"]["filters"][name] == entry["value"]
            assert set(asked) | {name} <= set(refined["meta"]["filters"])
    _, second = _get(resolver, url + "&page=2") if body["meta"]["pages"] > 1 else (0, {"meta": {}})
    assert "facets" not in second["meta"]


def test_a_400_names_values_as_written_and_the_value_another_source_means(resolver: Resolver) -> None:
    _, body = _get(resolver, "/api/filings?form=S-2")
    reason = body["invalid-params"][0]["reason"]
    assert "S-1/A" in reason and "424B4" in reason and "s-1-a" not in reason, reason
    _, body = _get(resolver, "/api/ipos?status=priced")
    assert "did you mean `listed`?" in body["invalid-params"][0]["reason"]
    _, body = _get(resolver, "/api/filings?form=F")
    assert "did you mean `F-1` or `F-1/A`?" in body["invalid-params"][0]["reason"]


def test_the_openapi_q_takes_what_the_front_door_takes(embedded_build: Path, resolver: Resolver) -> None:
    """``q=û`` answers (the word u): the OpenAPI document's ``q`` pattern takes every character the front door folds
    to a letter or digit, and no ASCII character it does not (a value of others only is a 400 naming ``q``)."""
    document = json.loads((embedded_build / "api" / "openapi.json").read_text())
    for path in ("/api/companies", "/api/pre-ipos", "/api/search"):
        (q,) = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == "q"]
        pattern = re.compile(q["schema"]["pattern"])
        for text in ("û", "Zürich", "Ａ", "²", "x", "!", "-", " "):
            status = _get(resolver, f"/api/companies?q={quote(text)}")[0]
            assert (status == 200) == bool(pattern.search(text)), text
        assert all(pattern.search(chr(c)) for c in range(0x20, 0x3000) if slugify(chr(c)))
        assert not any(pattern.search(chr(c)) for c in range(0x80) if not slugify(chr(c)))
    assert _get(resolver, "/api/companies?q=%C3%BB")[0] == 200
    assert "`when=past`" in markdown() and "`meta.facets`" in markdown()


def test_the_query_index_is_parsed_again_only_when_its_bytes_change(embedded_build: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """serve reads the index on every request but parses it once while the file is unchanged; a rebuilt index
    (other bytes) is parsed again and answers by what it holds now."""
    from generator.frontdoor import indexed

    parsed: list[int] = []
    real_decode = indexed.decode
    monkeypatch.setattr(indexed, "_PARSED", {})
    monkeypatch.setattr(indexed, "decode", lambda raw: parsed.append(True) or real_decode(raw))
    real_loads = json.loads
    files: dict[str, bytes] = {}

    def fetch(path: str) -> bytes | None:
        found = embedded_build / path.lstrip("/")
        return files.get(path) or (found.read_bytes() if found.is_file() else None)

    space = real_loads((embedded_build / "api" / "query-space.json").read_bytes())
    front = Resolver(space, fetch)
    index_path = space["routes"]["companies"]["index"]
    first = front.resolve("/api/companies", "minValuation=2.5e9")
    assert first is not None and first.status == 200
    assert parsed.count(True) == 1  # the index
    again = front.resolve("/api/companies", "minValuation=2.5e9")
    assert again is not None and again.body == first.body and parsed.count(True) == 1  # the index not again
    files[index_path] = (embedded_build / index_path.lstrip("/")).read_bytes() + b"\n"  # the same index, rebuilt
    third = front.resolve("/api/companies", "minValuation=2.5e9")
    assert third is not None and third.body == first.body and parsed.count(True) == 2
