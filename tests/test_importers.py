"""Importers of the public formats, on slices of the real files in ../shared/data (never copied into the project)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from generator.dataset.load import validate
from generator.importers import import_files, plan
from generator.importers.base import Context, SourceError
from generator.importers.identity import normalise
from generator.importers.mapping import Mapper
from tests.conftest import SHARED_DATA

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data")
EDGAR = SHARED_DATA / "edgar"
CRUNCHBASE = SHARED_DATA / "crunchbase-2013"
QUIET = lambda _: None  # noqa: E731


def head(source: Path, target: Path, lines: int, newline: bytes = b"\n") -> Path:
    """The first ``lines`` lines of a real file (a test slice, written into the test's temporary folder)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(newline.join(source.read_bytes().split(newline)[:lines]) + newline)
    return target


def rows_naming(source: Path, target: Path, needles: list[str], newline: bytes = b"\n") -> Path:
    """The header and the lines of a real file that contain one of ``needles``."""
    lines = source.read_bytes().split(newline)
    keep = [lines[0], *(line for line in lines[1:] if any(n.encode() in line for n in needles))]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(newline.join(keep) + newline)
    return target


def companies(folder: Path) -> list[dict[str, str]]:
    with (folder / "companies.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def provenance(folder: Path) -> list[dict[str, str]]:
    with (folder / "provenance.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def sources_of(folder: Path, company_id: str) -> set[str]:
    return {r["source"] for r in provenance(folder) if r["table"] == "companies" and r["record"] == company_id
            and r["source"] != "import"}


@pytest.fixture
def slices(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    tickers = json.loads((EDGAR / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "edgar").mkdir(parents=True)
    (src / "edgar" / "company_tickers.json").write_text(
        json.dumps({k: v for k, v in tickers.items() if int(k) < 300}), encoding="utf-8")
    exchange = json.loads((EDGAR / "company_tickers_exchange.json").read_text(encoding="utf-8"))
    exchange["data"] = exchange["data"][:300]
    (src / "edgar" / "company_tickers_exchange.json").write_text(json.dumps(exchange), encoding="utf-8")
    head(EDGAR / "stock_sector_info.csv", src / "edgar" / "stock_sector_info.csv", 300)
    head(EDGAR / "form_2023_QTR2_partial.idx", src / "edgar" / "form_2023_QTR2_partial.idx", 3000)
    head(EDGAR / "master.20200103.idx", src / "edgar" / "master.20200103.idx", 800)
    for name in ("nasdaq_ipos_merged.csv", "nasdaq_ipos_pricings.csv", "nasdaq_ipos_filings.csv"):
        head(SHARED_DATA / "nasdaq-ipos-2021-2025" / name, src / "nasdaq" / name, 150)
    head(SHARED_DATA / "iposcoop-ipos-2000-2018" / "ipos.csv", src / "iposcoop" / "ipos.csv", 150)
    for name in ("cbinsights_unicorns_2025-01-07.csv", "maven_unicorns_2022-03.csv"):
        head(SHARED_DATA / "unicorns" / name, src / "unicorns" / name, 120)
    for name in ("crunchbase-companies.csv", "crunchbase-rounds.csv", "crunchbase-acquisitions.csv"):
        head(CRUNCHBASE / name, src / "crunchbase" / name, 400, newline=b"\r")
    head(SHARED_DATA / "crunchbase-2013-investments" / "investments.csv", src / "investments" / "investments.csv", 400)
    return src


def test_every_format_imports_into_a_valid_folder_and_reimport_changes_nothing(slices: Path, tmp_path: Path) -> None:
    into = tmp_path / "canonical"
    result = import_files("auto", [slices], into, QUIET)
    assert {name for name, _ in result.plan} == {
        "edgar", "edgar-sectors", "nasdaq", "iposcoop", "cbinsights", "maven", "crunchbase", "crunchbase-investments"}
    _, tables = validate(into)
    for table in ("companies", "investors", "funding_rounds", "round_investors", "ipos", "filings"):
        assert tables[table].rows, table
    before = {p.name: p.read_bytes() for p in into.iterdir()}
    again = import_files("auto", [slices], into, QUIET)
    assert again.changed == []
    assert {p.name: p.read_bytes() for p in into.iterdir()} == before
    assert not again.report.created


def test_merge_never_duplicates_a_company_that_sources_share(tmp_path: Path) -> None:
    """Apple (CIK 320193) is in both EDGAR lists; ZIM priced on the Nasdaq calendar and is in the SEC list;
    Stripe is a CB Insights unicorn and a Crunchbase 2013 company."""
    src = tmp_path / "src"
    rows_naming(EDGAR / "stock_sector_info.csv", src / "stock_sector_info.csv", ["320193,"])
    tickers = json.loads((EDGAR / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "company_tickers.json").write_text(json.dumps(
        {k: v for k, v in tickers.items() if v["cik_str"] in (320193, 1654126)}), encoding="utf-8")
    exchange = json.loads((EDGAR / "company_tickers_exchange.json").read_text(encoding="utf-8"))
    exchange["data"] = [r for r in exchange["data"] if r[0] == 320193]
    (src / "company_tickers_exchange.json").write_text(json.dumps(exchange), encoding="utf-8")
    rows_naming(SHARED_DATA / "nasdaq-ipos-2021-2025" / "nasdaq_ipos_pricings.csv",
                src / "nasdaq_ipos_pricings.csv", [",ZIM,"])
    rows_naming(SHARED_DATA / "unicorns" / "cbinsights_unicorns_2025-01-07.csv",
                src / "cbinsights_unicorns_2025-01-07.csv", ["Stripe,"])
    rows_naming(CRUNCHBASE / "crunchbase-companies.csv", src / "crunchbase-companies.csv",
                ["/company/stripe,"], newline=b"\r")
    into = tmp_path / "canonical"
    import_files("auto", [src], into, QUIET)
    validate(into)
    rows = companies(into)
    by_name = {}
    for row in rows:
        by_name.setdefault(normalise(row["name"]), []).append(row)
    assert all(len(group) == 1 for group in by_name.values()), by_name
    apple = next(r for r in rows if r["cik"] == "320193")
    assert apple["ticker"] == "AAPL" and apple["exchange"] == "nasdaq" and apple["status"] == "public"
    assert apple["country"] == "us" and apple["sector"] == "hardware"
    assert sources_of(into, apple["id"]) == {"edgar", "edgar-sectors"}
    zim = next(r for r in rows if r["ticker"] == "ZIM")
    assert zim["cik"] == "1654126" and zim["listing_date"].startswith("2021")
    assert sources_of(into, zim["id"]) == {"edgar", "nasdaq"}
    with (into / "ipos.csv").open(encoding="utf-8", newline="") as handle:
        (ipo,) = [r for r in csv.DictReader(handle) if r["company_id"] == zim["id"]]
    assert (ipo["status"], ipo["ticker"], ipo["exchange"]) == ("listed", "ZIM", "nyse")
    assert int(ipo["offer_price_cents"]) > 0 and int(ipo["proceeds_usd"]) > 0
    stripe = [r for r in rows if normalise(r["name"]) == "stripe"]
    assert len(stripe) == 1
    assert stripe[0]["valuation_usd"] and stripe[0]["slug"] == "stripe"
    assert sources_of(into, stripe[0]["id"]) == {"cbinsights", "crunchbase"}


def test_a_filing_beats_a_press_report_and_provenance_names_it(tmp_path: Path) -> None:
    src = tmp_path / "src"
    rows_naming(CRUNCHBASE / "crunchbase-companies.csv", src / "crunchbase-companies.csv",
                ["/company/facebook,"], newline=b"\r")
    tickers = json.loads((EDGAR / "company_tickers.json").read_text(encoding="utf-8"))
    (src / "company_tickers.json").write_text(json.dumps(
        {k: v for k, v in tickers.items() if v["ticker"] == "META"}), encoding="utf-8")
    into = tmp_path / "canonical"
    import_files("crunchbase", [src / "crunchbase-companies.csv"], into, QUIET)
    (facebook,) = companies(into)
    assert facebook["status"] == "delisted"  # Crunchbase says it went public; no imported file gives a ticker
    # the SEC list calls it Meta Platforms: a different name, found by nothing but its CIK once it has one
    import_files("edgar", [src / "company_tickers.json"], into, QUIET)
    meta = next(r for r in companies(into) if r["cik"] == "1326801")
    assert meta["status"] == "public" and meta["ticker"] == "META"
    owners = {(r["record"], r["source"], r["basis"]): r["fields"].split(";") for r in provenance(into)}
    assert "ticker" in owners[(meta["id"], "edgar", "sec-filing")]


def test_changed_column_layout_fails_with_file_line_and_expectation(tmp_path: Path) -> None:
    path = tmp_path / "nasdaq_ipos_pricings.csv"
    path.write_text("dealID,ticker,companyName\n1,ABC,Abc Inc\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"nasdaq_ipos_pricings.csv:1: header must be dealID,proposedTickerSymbol"):
        import_files("nasdaq", [path], tmp_path / "canonical", QUIET)
    assert not (tmp_path / "canonical" / "companies.csv").exists()


def test_a_bad_value_skips_its_row_naming_file_line_and_column(tmp_path: Path) -> None:
    """A row with a value that cannot be read is skipped and listed (file:line: column); the file's other rows
    import. A file of which no row can be read is wrong as a whole: it fails with the first, and nothing is written."""
    source = SHARED_DATA / "iposcoop-ipos-2000-2018" / "ipos.csv"
    path = head(source, tmp_path / "ipos.csv", 4)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("$10.00", "ten dollars", 1), encoding="utf-8")
    result = import_files("iposcoop", [path], tmp_path / "canonical", QUIET)
    assert result.context.where[Context.BAD_RECORDS] == [
        "ipos.csv:2: column Offer Price: expected a number (got 'ten dollars')"]
    assert result.rows["ipos"] == 2
    lines = text.splitlines()
    path.write_text("\n".join([lines[0], *(line.replace("$", "USD ") for line in lines[1:])]) + "\n")
    with pytest.raises(SourceError, match=r"ipos.csv:2: column Offer Price: expected a number"):
        import_files("iposcoop", [path], tmp_path / "new", QUIET)
    assert not (tmp_path / "new").exists()


def test_unmapped_values_are_reported_not_dropped() -> None:
    mapper = Mapper()
    assert mapper.yahoo("Technology", "Semiconductors") == "semiconductors"
    assert mapper.yahoo("Technology", "Something new") == "enterprise-software"
    assert mapper.sector("cbinsights-industry", "West Palm Beach") is None
    assert mapper.country("USA") == "us" and mapper.country("South Korea") == "kr"
    assert mapper.country("Atlantis") is None
    assert mapper.sic("7372") == "enterprise-software" and mapper.sic("6770") == "blank-check"
    assert mapper.unmapped == {"cbinsights-industry": {"West Palm Beach": 1}, "country": {"Atlantis": 1}}


def test_auto_lists_what_it_does_not_know(tmp_path: Path) -> None:
    shutil.copy(SHARED_DATA / "SOURCES.md", tmp_path / "notes.md")
    steps, unknown = plan("auto", [tmp_path])
    assert steps == [] and unknown == [tmp_path / "notes.md"]


def test_importing_into_a_curated_folder_adds_and_never_overwrites_it(tmp_path: Path) -> None:
    into = tmp_path / "data"
    shutil.copytree(Path(__file__).resolve().parent.parent / "data", into)
    curated = {r["cik"]: r for r in companies(into) if r["cik"]}
    src = tmp_path / "src"
    head(EDGAR / "stock_sector_info.csv", src / "stock_sector_info.csv", 200)
    import_files("edgar-sectors", [src / "stock_sector_info.csv"], into, QUIET)
    validate(into)
    rows = companies(into)
    by_cik = {r["cik"]: r for r in rows if r["cik"]}
    shared = set(curated) & set(by_cik)
    assert shared, "the slice should name companies the embedded dataset has"
    for cik in shared:
        # hand-curated values have no provenance: nothing is overwritten (columns the file left out are written empty)
        assert {c: by_cik[cik][c] for c in curated[cik]} == curated[cik]
        assert not any(v for c, v in by_cik[cik].items() if c not in curated[cik])
    assert len(rows) == len(curated) + sum(1 for cik in by_cik if cik not in curated) + sum(
        1 for r in rows if not r["cik"])
    assert len({r["slug"] for r in rows}) == len(rows)


def test_mojibake_and_odd_tickers_are_repaired() -> None:
    from generator.importers.base import Context, ticker
    from generator.importers.crunchbase import repair

    assert repair("Caf\u221a\u00a9 Press") == "Café Press"
    assert repair("plain") == "plain"
    context = Context()
    assert ticker("AAC'U", context) == "AAC.U" and ticker("GMXR/GMXRW", context) == "GMXR"
    assert ticker("NOT A TICKER AT ALL", context) == "" and context.skipped


def test_all_capitals_names_read_as_names() -> None:
    """EDGAR's conformed names in title case without title()'s slips: a possessive's s, small words, AT&T, and
    the state marker that tells registrants of one name apart kept as EDGAR writes it; other names as written."""
    from generator.importers.base import display_name

    cases = {"DICK'S SPORTING GOODS, INC.": "Dick's Sporting Goods, Inc.",
             "BANK OF AMERICA CORP /DE/": "Bank of America Corp /DE/", "FIRST BANCORP /PR/": "First Bancorp /PR/",
             "QUALCOMM INC/DE": "Qualcomm Inc/DE", "AT&T INC.": "AT&T Inc.", "O'REILLY AUTOMOTIVE INC":
             "O'Reilly Automotive Inc", "THE BANK OF NEW YORK MELLON CORP": "The Bank of New York Mellon Corp",
             "3M CO": "3M Co", "DENNY'S Corp": "DENNY'S Corp", "  Stripe,   Inc. ": "Stripe, Inc."}
    assert {name: display_name(name) for name in cases} == cases


def test_the_command_reports_and_fails_cleanly(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from generator.cli import main

    src = tmp_path / "src"
    head(SHARED_DATA / "unicorns" / "cbinsights_unicorns_2025-01-07.csv", src / "cbinsights_unicorns_x.csv", 40)
    shutil.copy(SHARED_DATA / "unicorns" / "cbinsights_unicorns_2025-01-07_raw.csv", src)
    runner = CliRunner()
    result = runner.invoke(main, ["import", "auto", str(src), "--into", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["import", "auto", str(src), "--into", str(tmp_path / "out")])
    assert "files changed: none" in result.output and "its tidy version is read" in result.output
    bad = tmp_path / "bad" / "investments.csv"
    bad.parent.mkdir()
    bad.write_text("company,investor,date,amount\nA,B,2010-01-01,5\n", encoding="utf-8")
    result = runner.invoke(main, ["import", "crunchbase-investments", str(bad), "--into", str(tmp_path / "out")])
    assert result.exit_code != 0 and "investments.csv:1: header must be company_name,investor_name" in result.output


def test_a_folder_of_fetch_runs_is_read_newest_first_and_never_from_a_hidden_folder(tmp_path: Path) -> None:
    """``walk``: of files that differ only in a dated folder (the runs of ``fetch``) the newest is read; files
    under a hidden folder (a fetch's staging) or hidden themselves are not; files of other runs sort by name."""
    from generator.importers import walk

    for run, names in {"2020-01-02T031500Z": ["a/list.json", "a/index.idx"], "2020-01-03T031500Z": ["a/list.json"],
                       ".fetch-staging/2020-01-04T031500Z": ["a/list.json"], "2020-01-01": ["a/other.csv"]}.items():
        for name in names:
            (tmp_path / run / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / run / name).write_text(run, encoding="utf-8")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / ".hidden.json").write_text("x", encoding="utf-8")
    (tmp_path / "plain" / "list.json").write_text("x", encoding="utf-8")
    assert [str(p.relative_to(tmp_path)) for p in walk(tmp_path)] == [
        "2020-01-01/a/other.csv", "2020-01-02T031500Z/a/index.idx", "2020-01-03T031500Z/a/list.json",
        "plain/list.json"]
    tickers = [tmp_path / run / "company_tickers.json" for run in ("2020-01-03T031500Z", "2020-01-02T031500Z")]
    tickers[1].with_name("company_tickers_exchange.json").write_text("{}", encoding="utf-8")
    tickers[0].write_text("{}", encoding="utf-8")
    steps, _ = plan("auto", [tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for _, p in steps if p.name.startswith("company")] == [
        "2020-01-03T031500Z/company_tickers.json", "2020-01-02T031500Z/company_tickers_exchange.json"]


def test_junk_named_as_a_json_source_fails_before_it_is_read(tmp_path: Path) -> None:
    """A large file that is no JSON fails at its first bytes, naming the file; memory stays far below its size."""
    import tracemalloc

    junk = tmp_path / "company_tickers.json"
    with junk.open("wb") as handle:
        for _ in range(64):
            handle.write(b"\xff" * (1 << 20))
    tracemalloc.start()
    with pytest.raises(SourceError, match=r"company_tickers.json:1: not a JSON document"):
        import_files("edgar", [junk], tmp_path / "into", QUIET)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 << 20, peak


@pytest.mark.parametrize(("document", "reason"), [
    ('{"0": {"cik_str": 1, "ticker": "A", "title": "A"}, ' + "[" * 5000 + "]" * 5000 + "}", "nested more than 64"),
    ('{"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc.", "cik_str": 1}}', None),
    ('{"0": {"cik_str": NaN, "ticker": "AAPL", "title": "Apple Inc."}}', None),
])
def test_a_ticker_list_a_source_got_wrong_never_ends_in_a_traceback(tmp_path: Path, document: str,
                                                                    reason: str | None) -> None:
    """Nested too deep: a one-line failure. A record giving a key twice or a NaN CIK: skipped and listed."""
    path = tmp_path / "company_tickers.json"
    path.write_text(document, encoding="utf-8")
    if reason is not None:
        with pytest.raises(SourceError, match=reason):
            import_files("edgar", [path], tmp_path / "into", QUIET)
        return
    other = tmp_path / "company_tickers_exchange.json"
    other.write_text(json.dumps({"fields": ["cik", "name", "ticker", "exchange"],
                                 "data": [[789019, "MICROSOFT CORP", "MSFT", "Nasdaq"]]}), encoding="utf-8")
    result = import_files("edgar", [path, other], tmp_path / "into", QUIET)
    assert sum(n for reason, n in result.context.skipped.items() if "ticker-list records" in reason) == 1
    assert [c["name"] for c in companies(tmp_path / "into")] == ["Microsoft Corp"]
