"""Rebuilds render only the units whose inputs changed and carry the others over; the output is always the one a
clean build of the same data makes."""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from generator.api import listing
from generator.api.registry import LIST_ROUTES
from generator.output import recycle
from generator.output.manifest import DIGESTS_FILE, UNITS_FILE
from generator.pipeline import build as build_module
from generator.pipeline.build import BuildConfig, build

from .conftest import TINY
from .test_build import inodes, tree


def bump_valuation(data: Path, slug: str) -> None:
    """Raise one company's valuation by 10 %."""
    path = data / "companies.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    row = next(r for r in rows[1:] if r[header.index("slug")] == slug)
    column = header.index("valuation_usd")
    row[column] = str(int(row[column]) * 11 // 10)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the listing routes rendered (not carried over) by builds in this process (workers=0)."""
    names: list[str] = []
    original = listing.render

    def spy(con, route, info, domains_out=None, reuse=None):  # type: ignore[no-untyped-def]
        names.append(route.name)
        return original(con, route, info, domains_out, reuse)

    monkeypatch.setattr(listing, "render", spy)
    return names


def test_one_company_change_renders_only_what_depends_on_it(tmp_path: Path, rendered: list[str]) -> None:
    data, out, clean = tmp_path / "data", tmp_path / "dist", tmp_path / "clean"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    assert sorted(rendered) == sorted(r.name for r in LIST_ROUTES)
    before = inodes(out)
    rendered.clear()

    bump_valuation(data, "figma")
    report = build(BuildConfig(data, out, workers=0))
    routes = list(rendered)
    build(BuildConfig(data, clean, workers=0))
    assert tree(out) == tree(clean)  # carried over or rendered, the bytes are those of a clean build

    assert "companies" in routes and "news" not in routes and "filings" not in routes
    after = inodes(out)
    news = [p for p in after if p.startswith("api/news/")]
    assert news and all(after[p] == before[p] for p in news)  # carried over: the very same files
    assert after["api/export/json/news.json"] == before["api/export/json/news.json"]
    # within a route that renders again, the combinations without the company are carried over, the others not
    elsewhere = [p for p in after if p.startswith("api/companies/country=gb/")]
    assert elsewhere and all(after[p] == before[p] for p in elsewhere)
    assert any(after[p] != before[p] for p in after if p.startswith("api/companies/country=us/"))
    assert after["api/export/json/companies.json"] != before["api/export/json/companies.json"]
    assert report.changes is not None
    assert "api/companies/figma.json" in report.changes.changed
    assert not any(p.startswith("api/news/") for p in report.changes.changed)


def test_forced_rebuild_carries_everything_over(tmp_path: Path, rendered: list[str]) -> None:
    out = tmp_path / "dist"
    first = build(BuildConfig(TINY, out, workers=0))
    rendered.clear()
    before = inodes(out)
    again = build(BuildConfig(TINY, out, workers=0, force=True))
    assert rendered == [] and again.written == 0 and again.files == first.files
    assert inodes(out) == before
    assert again.files_by_kind == first.files_by_kind and again.bytes_by_endpoint == first.bytes_by_endpoint


def test_new_code_renders_every_unit(
    tmp_path: Path, rendered: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out, workers=0))
    before = tree(out)
    rendered.clear()
    monkeypatch.setattr(build_module, "code_fingerprint", lambda: "another version of the generator")
    build(BuildConfig(TINY, out, workers=0))
    assert sorted(rendered) == sorted(r.name for r in LIST_ROUTES)
    after = tree(out)
    bookkeeping = {".company-ipo-api", DIGESTS_FILE, UNITS_FILE}
    assert {p: d for p, d in after.items() if p not in bookkeeping} == {
        p: d for p, d in before.items() if p not in bookkeeping}


def test_a_hand_edited_file_renders_its_unit_again(tmp_path: Path, rendered: list[str]) -> None:
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out, workers=0))
    page = next(p for p in sorted((out / "api" / "news").rglob("*.json")))
    expected = page.read_bytes()
    time.sleep(0.05)
    page.write_bytes(expected.replace(b'"total"', b'"TOTAL"'))  # same size, later mtime
    rendered.clear()
    report = build(BuildConfig(TINY, out, workers=0, force=True))
    assert rendered == ["news"]
    assert page.read_bytes() == expected and report.written == 1


def test_units_file_lists_every_unit_of_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    build(BuildConfig(TINY, out, workers=0))
    units = json.loads((out / UNITS_FILE).read_text(encoding="utf-8"))
    names = [name for name, _ in units["units"]]
    assert names == sorted(set(names))
    listed = {line.split("\t")[3] for line in (out / DIGESTS_FILE).read_text(encoding="utf-8").splitlines()}
    with_files = {n for n in names if not n.startswith("source/")}  # a table's file: a key, no files
    assert listed - {""} == with_files  # every unit with files is named on its files' lines, and only those
    assert {"export/dataset", "export/companies", "company/1", "listing:news"} <= set(names)


@pytest.mark.parametrize("workers", [0, 2])
def test_the_retired_output_is_recycled_into_exactly_the_new_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """The third build recycles the first one's output (``.dist.retired``) as its staging folder: files it does
    not write go, planted files and links go (the link is not followed), and the result is a clean build's."""
    data, out, clean = tmp_path / "data", tmp_path / "dist", tmp_path / "clean"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=workers))
    bump_valuation(data, "figma")
    build(BuildConfig(data, out, workers=workers))
    second = tree(out)
    retired = tmp_path / ".dist.retired"
    assert retired.is_dir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (retired / "api" / "planted.json").write_text("{}")
    (retired / "api" / "companies" / "linked").symlink_to(outside, target_is_directory=True)
    # links where the build writes: a route's folder and a folder inside one that holds folders (pages sit two
    # levels below it), moved out and linked back
    diverted = tmp_path / "diverted"
    diverted.mkdir()
    nested = next(f for f in sorted((retired / "api" / "companies").glob("sector=*")) if any(f.glob("*/*.json")))
    for folder in (retired / "api" / "news", nested):
        shutil.move(folder, diverted / folder.name)
        folder.symlink_to(diverted / folder.name, target_is_directory=True)
    untouched = tree(diverted)
    companies = data / "companies.csv"  # a new slug and name: the old profile and its word's folder must disappear
    companies.write_text(companies.read_text().replace(",figma,Figma,", ",figjam,Figjam,"))
    dropped: list[int] = []
    original = recycle.drop_stale
    monkeypatch.setattr(recycle, "drop_stale", lambda *args: dropped.append(original(*args)) or dropped[-1])
    report = build(BuildConfig(data, out, workers=workers))
    assert dropped and dropped[0] >= 2  # recycled: the planted file and the old profile at least were removed
    build(BuildConfig(data, clean, workers=workers))
    assert tree(out) == tree(clean)
    folders = {root: sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir())
               for root in (out, clean)}
    assert folders[out] == folders[clean]  # no folder the build did not use is left, empty or not
    assert "api/companies/q=figma" not in folders[out] and (retired / "api" / "companies" / "q=figma").is_dir()
    assert tree(retired) == second  # the second output, kept whole for the next build
    assert list(outside.iterdir()) == [] and not (out / "api" / "planted.json").exists()
    assert tree(diverted) == untouched  # no write followed a link out of the staging folder
    assert not [path for path, _, _ in os.walk(out) if Path(path).is_symlink()]
    assert not [p for p in out.rglob("*") if p.is_symlink()]  # and no link is left in the output
    assert report.changes is not None and "api/companies/figma.json" in report.changes.removed
    assert (out / "api" / "companies" / "figjam.json").exists()


def test_a_write_into_a_recycled_folder_never_follows_a_link(tmp_path: Path) -> None:
    """Each folder on the way to a file is checked, parents first: a link anywhere above it is replaced by a real
    folder, whether or not files sit directly in the linked folder."""
    from generator.output.staged import StagedFiles

    staging, outside = tmp_path / "staging", tmp_path / "outside"
    (outside / "b").mkdir(parents=True)
    staging.mkdir()
    (staging / "a").symlink_to(outside, target_is_directory=True)
    files = StagedFiles(str(staging), None, None, recycled=True)
    files.write("a/b/c.json", b"{}")
    assert list((outside / "b").iterdir()) == []
    assert not (staging / "a").is_symlink() and (staging / "a" / "b" / "c.json").read_bytes() == b"{}"


def test_a_change_in_a_profiles_grouped_rows_renders_it_again(tmp_path: Path) -> None:
    """A profile's key covers the rows grouped under it (here a funding round of company 4, changed in
    funding_rounds.csv only), not only its own row."""
    data, out, clean = tmp_path / "data", tmp_path / "dist", tmp_path / "clean"
    shutil.copytree(TINY, data)
    build(BuildConfig(data, out, workers=0))
    path = data / "funding_rounds.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    row = next(r for r in rows[1:] if r[header.index("company_id")] == "4" and r[header.index("amount_usd")])
    row[header.index("amount_usd")] = str(int(row[header.index("amount_usd")]) + 1_000_000)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    report = build(BuildConfig(data, out, workers=0))
    build(BuildConfig(data, clean, workers=0))
    assert tree(out) == tree(clean)
    slug = (out / "api" / "companies" / "4.json").read_bytes().split(b'"slug":"', 1)[1].split(b'"', 1)[0].decode()
    assert report.changes is not None and {"api/companies/4.json", f"api/companies/{slug}.json"} <= set(
        report.changes.changed)
