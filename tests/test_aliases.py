"""Former names and tickers (issue 27): kept in aliases.csv, published in the profile (``also_known_as``), and
searchable: /api/search's prefixes and the listings' ``q`` find a company by a name or ticker it had."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from generator.dataset.load import DataError, validate
from generator.frontdoor.resolver import Resolver
from generator.pipeline.build import BuildConfig, build

from .conftest import EMBEDDED, TINY, Served


def test_the_profile_lists_former_names_and_tickers_with_dates_and_source(site: Served) -> None:
    _, body = site.get_json("/api/companies/meta-platforms")
    assert [(a["kind"], a["alias"], a["from_date"], a["to_date"]) for a in body["data"]["also_known_as"]] == [
        ("name", "Facebook", None, "2021-10-27"), ("ticker", "FB", "2012-05-18", "2022-06-08")]
    _, body = site.get_json("/api/companies/twitter")  # acquired: its ticker is its listed IPO's
    assert body["data"]["also_known_as"] == [{"kind": "ticker", "alias": "TWTR", "from_date": "2013-11-07",
                                              "to_date": None, "source": "listed IPO record"}]
    _, body = site.get_json("/api/companies/stripe")
    assert body["data"]["also_known_as"] == []


@pytest.mark.parametrize(("url", "slug"), [
    ("/api/companies?q=facebook", "meta-platforms"), ("/api/companies?q=fb", "meta-platforms"),
    ("/api/companies?q=square", "block"), ("/api/companies?q=sq", "block"),
    ("/api/companies?q=twtr", "twitter"), ("/api/pre-ipos?q=tripactions", "navan"),
    ("/api/search?q=fac", "meta-platforms"), ("/api/search?q=ctr", "trip-com-group"),
])
def test_a_former_name_or_ticker_finds_the_company(site: Served, url: str, slug: str) -> None:
    status, body = site.get_json(url)
    assert status == 200 and slug in [row["slug"] for row in body["data"]], url


def test_the_front_door_matches_former_names_in_memory(embedded_build: Path) -> None:
    """Queries the files do not hold as such (q with a sector, a search word longer than the indexed prefix) are
    answered from the rows, which carry also_known_as: the same former names match."""
    import json

    space = json.loads((embedded_build / "api" / "query-space.json").read_text(encoding="utf-8"))
    resolver = Resolver(space, lambda path: (embedded_build / path.lstrip("/")).read_bytes()
                        if (embedded_build / path.lstrip("/")).is_file() else None)
    for path, query in [("/api/companies", "q=facebook&sector=consumer-internet"), ("/api/search", "q=facebook"),
                        ("/api/search", "q=twtr&type=company"), ("/api/companies", "q=Square%20Block")]:
        answer = resolver.resolve(path, query)
        assert answer is not None and answer.status == 200, (path, query)
        names = [row["name"] for row in json.loads(answer.body)["data"]]
        assert names and set(names) <= {"Meta Platforms", "Twitter", "Block"}, (path, query, names)


def test_a_folder_without_aliases_loads_and_builds(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(TINY, data)
    (data / "aliases.csv").unlink()
    _, tables = validate(data)
    assert tables["aliases"].rows == []
    build(BuildConfig(data, tmp_path / "dist", workers=0))
    assert (tmp_path / "dist" / "api" / "export" / "csv" / "aliases.csv").read_text(encoding="utf-8").startswith(
        "company_id,kind,alias")


@pytest.mark.parametrize(("row", "expected"), [
    (["1", "ticker", "fb", "", "", ""], "aliases.csv:2: column alias: a ticker alias must match"),
    (["1", "name", "Facebook", "2021-10-28", "2021-10-27", ""], "aliases.csv:2: from_date is after to_date"),
    (["9999", "name", "Nobody", "", "", ""], "aliases.csv:2: column company_id: 9999 does not exist"),
    (["1", "nickname", "Zuck's", "", "", ""], "aliases.csv:2: column kind: Input should be 'name' or 'ticker'"),
])
def test_a_bad_alias_fails_naming_line_and_column(tmp_path: Path, row: list[str], expected: str) -> None:
    data = tmp_path / "data"
    shutil.copytree(EMBEDDED, data)
    with (data / "aliases.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["company_id", "kind", "alias", "from_date", "to_date", "source"])
        writer.writerow(row)
    with pytest.raises(DataError) as error:
        validate(data)
    assert [str(issue)[:len(expected)] for issue in error.value.issues] == [expected]
