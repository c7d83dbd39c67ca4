"""Former names and tickers (issue 27): kept in aliases.csv, published in the profile (``also_known_as``), and
searchable: /api/search's prefixes and the listings' ``q`` find a company by a name or ticker it had."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from generator.dataset.load import DataError, validate
from generator.frontdoor.resolver import Resolver
from generator.importers import import_files
from generator.importers.base import SourceError
from generator.pipeline.build import BuildConfig, build

from . import entities
from .conftest import EMBEDDED, SHARED_DATA, TINY, Served

QUIET = lambda _: None  # noqa: E731


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


def _submissions(cik: int, name: str, former: list[dict[str, str]]) -> str:
    """A submissions document in the shape https://www.sec.gov/edgar/sec-api-documentation describes (the keys read
    here; made up for the test)."""
    return json.dumps({"cik": str(cik), "entityType": "operating", "sic": "7370", "name": name, "tickers": [],
                       "exchanges": [], "formerNames": former, "filings": {"recent": {}, "files": []}})


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
def test_edgar_former_names_find_the_renamed_company(tmp_path: Path) -> None:
    """IPOScoop lists Facebook's 2012 IPO (FB) with no CIK; EDGAR's submissions document of CIK 1326801 names
    Facebook among Meta's former names: the IPO lands on Meta, and the name is kept with its dates."""
    src = tmp_path / "src"
    src.mkdir()
    tickers = json.loads((SHARED_DATA / "edgar" / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "company_tickers.json").write_text(json.dumps({k: v for k, v in tickers.items() if v["ticker"] == "META"}))
    (src / "CIK0001326801.json").write_text(_submissions(1326801, "Meta Platforms, Inc.", [
        {"name": "FACEBOOK INC", "from": "2005-09-20T00:00:00.000Z", "to": "2021-10-27T00:00:00.000Z"}]))
    lines = (SHARED_DATA / "iposcoop-ipos-2000-2018" / "ipos.csv").read_bytes().split(b"\n")
    (src / "ipos.csv").write_bytes(b"\n".join([lines[0], *(x for x in lines if b",FB," in x)]) + b"\n")
    into = tmp_path / "into"
    result = import_files("auto", [src], into, QUIET)
    assert [name for name, _ in result.plan] == ["edgar", "edgar", "iposcoop"]  # tickers, submissions, IPOs
    (meta,) = entities.rows(into, "companies")
    (ipo,) = entities.rows(into, "ipos")
    assert (meta["cik"], meta["ticker"], ipo["ticker"], ipo["company_id"]) == ("1326801", "META", "FB", meta["id"])
    assert result.report.matched["former name"] == 1 and meta["sector"] != "unclassified"
    aliases = [(a["alias"], a["from_date"], a["to_date"], a["source"]) for a in entities.rows(into, "aliases")]
    assert aliases == [("Facebook Inc", "2005-09-20", "2021-10-27", "edgar (former name)")]
    assert import_files("auto", [src], into, QUIET).changed == []


def test_a_name_used_after_the_dates_edgar_gives_is_not_the_company(tmp_path: Path) -> None:
    """A former name matches only within its dates: a listing under that name years after the rename is another
    company's."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CIK0000000042.json").write_text(_submissions(42, "New Name Corp", [
        {"name": "OLD NAME CORP", "from": "2001-01-01T00:00:00.000Z", "to": "2010-12-31T00:00:00.000Z"}]))
    (src / "ipos.csv").write_text(
        "Trade Date,Issuer,Symbol,LeadJointLeadManagers,Offer Price,Opening Price,1st Day Close,1st Day PxChng,"
        "Change Opening,Change Close,Star Ratings,Performed\n"
        "5-10-05,Old Name Corp,ONC,,$10.00,$10.50,$11.00,10%,$0.50,$1.00,1,Yes\n"
        "6-12-14,Old Name Corp,ONX,,$12.00,$12.50,$13.00,8%,$0.50,$1.00,1,Yes\n", encoding="utf-8")
    into = tmp_path / "into"
    import_files("auto", [src], into, QUIET)
    owners = {i["ticker"]: i["company_id"] for i in entities.rows(into, "ipos")}
    companies = {c["id"]: c["name"] for c in entities.rows(into, "companies")}
    assert companies[owners["ONC"]] == "New Name Corp" and companies[owners["ONX"]] == "Old Name Corp"
    review = entities.rows(into, "identity-review")
    assert [(r["name"], r["other_name"], r["reason"]) for r in review] == [
        ("Old Name Corp", "New Name Corp", "a name the other record had (aliases.csv)")]


@pytest.mark.parametrize(("name", "document", "expected"), [
    ("CIK0000000042.json", '{"cik": "42", "name": ', ":1: column 23: malformed JSON"),
    ("CIK0000000042.json", '{"cik": null, "name": "X", "filings": {}}', ":1: a submissions document needs a CIK"),
    ("filer.json", '{"accessionNumber": [], "form": []}', ": no file of a known format to import"),
])
def test_a_bad_submissions_document_fails_naming_the_file(tmp_path: Path, name: str, document: str,
                                                           expected: str) -> None:
    src = tmp_path / name
    src.write_text(document, encoding="utf-8")
    with pytest.raises(SourceError) as error:
        import_files("auto", [src], tmp_path / "into", QUIET)
    assert str(error.value).startswith(f"{src}{expected}"), str(error.value)


def test_a_submissions_record_a_source_got_wrong_is_skipped_or_repaired_and_reported(tmp_path: Path) -> None:
    """A key given twice with two values skips that filer; reversed or unreadable former-name dates are dropped
    (the name stays); a person is no company. Each is listed with its file; the rest imports."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CIK0000000042.json").write_text(
        '{"cik": "42", "name": "Twice Corp", "cik": "43", "entityType": "operating", "filings": {}}')
    (src / "CIK0000000044.json").write_text(json.dumps({
        "cik": "0000000044", "entityType": "operating", "name": "KEPT CORP", "filings": {"recent": {}},
        "formerNames": [{"name": "Backwards Inc", "from": "2020-05-01T00:00:00.000Z", "to": "2019-01-01T00:00:00.000Z"},
                        {"name": "Undated Inc", "from": "last year", "to": None}]}))
    (src / "CIK0000000045.json").write_text(json.dumps({
        "cik": "45", "entityType": "other", "name": "DOE JANE", "ein": None, "insiderTransactionForOwnerExists": 1,
        "insiderTransactionForIssuerExists": 0, "filings": {"recent": {"form": ["4", "4", "144", "3"]}}}))
    result = import_files("auto", [src], tmp_path / "into", QUIET)
    names = {c["name"]: c for c in entities.rows(tmp_path / "into", "companies")}
    assert set(names) == {"Kept Corp"}
    aliases = {(a["alias"], a["from_date"], a["to_date"]) for a in entities.rows(tmp_path / "into", "aliases")}
    assert {("Backwards Inc", "", ""), ("Undated Inc", "", "")} <= aliases
    where = result.context.where
    assert where["edgar: submissions documents giving a key twice with two values (skipped)"] == [
        "CIK0000000042.json: cik"]
    assert where["edgar: former names whose dates are reversed (name kept, dates dropped)"] == [
        "CIK0000000044.json: formerNames[0] 2020-05-01 > 2019-01-01"]
    assert where["edgar: former-name dates that are no dates (dropped)"] == ["CIK0000000044.json: formerNames[1].from"]
    assert where["edgar: submissions of individual filers (people, not companies)"] == [
        "CIK0000000045.json (DOE JANE)"]
