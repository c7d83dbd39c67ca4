"""One company, one record: the identity counts of an import of every real file in ../shared/data (each printed),
the identity decisions file, and that the counts can fail."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from generator.importers import import_files
from generator.importers.identity import DECISIONS, REVIEW
from tests import entities
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
QUIET = lambda _: None  # noqa: E731


@pytest.fixture(scope="module")
def real(real_import: Path) -> Path:
    return real_import


def test_one_company_one_record_on_the_real_files(real: Path, capsys: pytest.CaptureFixture[str]) -> None:
    counts = entities.measure(real, SHARED_DATA)
    with capsys.disabled():
        print("\nidentity counts of the real-data import:")
        for name, found in counts.items():
            print(f"  {name}: {len(found)}" + "".join(f"\n      {line}" for line in found[:5]))
    assert {name: found for name, found in counts.items() if found} == {}


def test_the_examples_of_the_issue_land_on_the_right_records(real: Path) -> None:
    companies = {r["slug"]: r for r in entities.rows(real, "companies")}
    ipos = entities.rows(real, "ipos")
    branch = {(r["headquarters_city"], r["valuation_usd"]) for r in companies.values() if r["name"] == "Branch"}
    # Branch Metrics (Redwood City, founded 2014), Branch (Columbus) and Crunchbase's 2013 Branch of New York
    # (founded 2011): three companies, kept apart by city and by founding year
    assert branch == {("Redwood City", "4000000000"), ("Columbus", "1050000000"), ("New York", "")}
    by_id = {r["id"]: r for r in companies.values()}
    omab = {by_id[i["company_id"]]["cik"] for i in ipos if i["ticker"] == "OMAB" and i["status"] == "listed"}
    assert omab == {"1378239"}  # Grupo Aeroportuario del Centro Norte's 2006 IPO on the CIK's record
    tenku = [by_id[i["company_id"]] for i in ipos if i["ticker"] == "TENKU" and i["status"] == "listed"]
    assert [c["cik"] for c in tenku] == ["1851484"]  # the SPAC that holds the CIK, not a new company
    fact_ii = next(c for c in companies.values() if c["name"] == "FACT II Acquisition Corp.")
    assert (fact_ii["status"], fact_ii["ticker"]) == ("public", "FACTU")  # listed 2024, after the ticker lists
    dct = next(c for c in companies.values() if c["name"] == "DCT Industrial Trust")
    assert dct["status"] == "delisted" and dct["cik"] == ""  # its ticker is Duck Creek's now: kept apart
    review = list(csv.DictReader((real / REVIEW).open(encoding="utf-8")))
    assert {"branch", "branch-2"} <= {r["slug"] for r in review} | {r["other_slug"] for r in review}


def test_reimporting_the_real_files_changes_nothing(real: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(real, copy)
    result = import_files("auto", [SHARED_DATA], copy, QUIET)
    assert result.changed == []


def test_a_decision_joins_what_the_cities_kept_apart(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    lines = (SHARED_DATA / "unicorns" / "cbinsights_unicorns_2025-01-07.csv").read_bytes().split(b"\n")
    (src / "cbinsights_unicorns_x.csv").write_bytes(b"\n".join([lines[0], *(x for x in lines if x.startswith(
        b"Branch,"))]) + b"\n")
    first = tmp_path / "first"
    result = import_files("auto", [src], first, QUIET)
    assert result.review == 1 and result.report.kept_apart == {"same name, headquarters cities differ": 1}
    (row,) = list(csv.DictReader((first / REVIEW).open(encoding="utf-8")))
    decided = tmp_path / "decided"
    decided.mkdir()
    with (decided / DECISIONS).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(row.keys())
        writer.writerow([*list(row.values())[:-1], "same"])
    result = import_files("auto", [src], decided, QUIET)
    assert result.review == 0
    (branch,) = entities.rows(decided, "companies")
    assert branch["headquarters_city"] == row["other_city"]


def test_the_counts_can_fail(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(Path(__file__).resolve().parent.parent / "data", folder)
    companies = entities.rows(folder, "companies")
    with (folder / "companies.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, companies[0].keys(), lineterminator="\n")
        writer.writeheader()
        public = next(c for c in companies if c["status"] == "public" and c["listing_date"])
        public["status"] = "private"
        writer.writerows(companies)
    rounds = entities.rows(folder, "funding_rounds")
    with (folder / "funding_rounds.csv").open("a", encoding="utf-8", newline="") as handle:
        twin = {**rounds[0], "id": "99999", "stage": "undisclosed"}
        csv.DictWriter(handle, rounds[0].keys(), lineterminator="\n").writerow(twin)
    assert entities.private_with_listing(folder) and entities.repeated_rounds(folder)


def test_the_listing_before_its_cik_count_can_fail(real_import: Path, tmp_path: Path) -> None:
    """Cogent Systems' 2004 COGT IPO moved onto Cogent Biosciences (CIK of 2014) is counted."""
    folder = tmp_path / "moved"
    shutil.copytree(real_import, folder)
    companies = entities.rows(folder, "companies")
    biosciences = next(c for c in companies if c["cik"] == "1622229")
    systems = next(c for c in companies if c["name"] == "Cogent Systems")
    ipos = entities.rows(folder, "ipos")
    for ipo in ipos:
        if ipo["company_id"] == systems["id"]:
            ipo["company_id"] = biosciences["id"]
    with (folder / "ipos.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ipos[0].keys(), lineterminator="\n")
        writer.writeheader()
        writer.writerows(ipos)
    assert entities.listed_before_its_cik(folder, SHARED_DATA) == [
        "COGT listed 2004-09-23 on cogent-biosciences-inc (CIK 1622229)"]


def test_a_former_name_decided_once_finds_the_renamed_company(tmp_path: Path) -> None:
    """Facebook's 2012 IPO (IPOScoop, ticker FB, no CIK) lands on Meta Platforms (CIK 1326801, META) once
    identities.csv says Facebook is Meta; without the decision they are two records."""
    import json

    src = tmp_path / "src"
    src.mkdir()
    tickers = json.loads((SHARED_DATA / "edgar" / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "company_tickers.json").write_text(json.dumps({k: v for k, v in tickers.items() if v["ticker"] == "META"}))
    lines = (SHARED_DATA / "iposcoop-ipos-2000-2018" / "ipos.csv").read_bytes().split(b"\n")
    (src / "ipos.csv").write_bytes(b"\n".join([lines[0], *(x for x in lines if b",FB," in x)]) + b"\n")
    apart, joined = tmp_path / "apart", tmp_path / "joined"
    import_files("auto", [src], apart, QUIET)
    assert len(entities.rows(apart, "companies")) == 2
    joined.mkdir()
    (joined / DECISIONS).write_text("name,city,slug,other_name,other_city,other_slug,reason,decision\n"
                                    "Facebook,,,Meta Platforms Inc.,,,,same\n", encoding="utf-8")
    import_files("auto", [src], joined, QUIET)
    (meta,) = entities.rows(joined, "companies")
    (ipo,) = entities.rows(joined, "ipos")
    assert (meta["cik"], meta["ticker"], meta["status"]) == ("1326801", "META", "public")
    assert (ipo["ticker"], ipo["listing_date"], ipo["company_id"]) == ("FB", "2012-05-18", meta["id"])


def test_a_same_decision_folds_two_records_already_in_the_folder(tmp_path: Path) -> None:
    """Imported without a decision, Facebook's 2012 IPO (IPOScoop) and Meta (EDGAR) are two records; once
    identities.csv says Facebook is Meta, the next import into the same folder folds the first into the second:
    one record with Meta's id, slug and CIK, the FB IPO on it, Facebook kept as a name it had. Importing again
    changes nothing."""
    import json

    src = tmp_path / "src"
    src.mkdir()
    tickers = json.loads((SHARED_DATA / "edgar" / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "company_tickers.json").write_text(json.dumps({k: v for k, v in tickers.items() if v["ticker"] == "META"}))
    lines = (SHARED_DATA / "iposcoop-ipos-2000-2018" / "ipos.csv").read_bytes().split(b"\n")
    (src / "ipos.csv").write_bytes(b"\n".join([lines[0], *(x for x in lines if b",FB," in x)]) + b"\n")
    folder = tmp_path / "folder"
    import_files("auto", [src], folder, QUIET)
    meta, facebook = entities.rows(folder, "companies")
    assert (meta["cik"], facebook["name"]) == ("1326801", "Facebook")
    (folder / DECISIONS).write_text("name,city,slug,other_name,other_city,other_slug,reason,decision\n"
                                    "Facebook,,,Meta Platforms Inc.,,,,same\n", encoding="utf-8")
    result = import_files("auto", [src], folder, QUIET)
    assert result.report.folded == [f"{facebook['slug']} into {meta['slug']}"]
    (kept,) = entities.rows(folder, "companies")
    (ipo,) = entities.rows(folder, "ipos")
    assert (kept["id"], kept["slug"], kept["cik"], kept["ticker"]) == (meta["id"], meta["slug"], "1326801", "META")
    assert (ipo["ticker"], ipo["listing_date"], ipo["company_id"]) == ("FB", "2012-05-18", meta["id"])
    assert [a["alias"] for a in entities.rows(folder, "aliases")] == ["Facebook"]
    provenance = {(r["table"], r["record"], r["source"]) for r in entities.rows(folder, "provenance")}
    assert ("companies", meta["id"], "iposcoop") in provenance and not any(
        record == facebook["id"] for table, record, _ in provenance if table == "companies")
    assert import_files("auto", [src], folder, QUIET).changed == []


def test_the_report_counts_what_kept_records_apart_by_rule(real_import_result: tuple) -> None:
    """The report names the rule that kept each fact from its name's record (every count a rule of its own)."""
    kept = real_import_result[1].report.kept_apart
    assert set(kept) <= {f"same name, {why}" for why in (
        "headquarters cities differ", "founding years more than a year apart",
        "a round or investment before the company's founding",
        "a blank check listed again years later under another ticker",
        "another ticker of the same list of current listings")}
    assert kept["same name, headquarters cities differ"] > 10 and len(kept) >= 3, kept

