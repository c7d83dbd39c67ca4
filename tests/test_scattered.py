"""Scattered pages (generator/api/scattered.py) at 10k companies: a page of two filters with a sort whose rows the
published pages spread over more than three of them is answered from its answer file, in two reads, with the bytes
the published pages give; the JavaScript resolver finds the same answer in the same file (its hash is Python's)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from generator.api.scattered import FILES, fnv1a, part_of
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import QUERY_SPACE_FILE

from .conftest import Build10k

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "node"


def _resolver(dist: Path, hide_answers: bool = False) -> Resolver:
    def fetch(path: str) -> bytes | None:
        if hide_answers and "/scattered-" in path:
            return None
        found = dist / path.lstrip("/")
        return found.read_bytes() if found.is_file() else None

    return Resolver(json.loads((dist / QUERY_SPACE_FILE.lstrip("/")).read_text()), fetch)


def _url(page_path: str) -> str:
    """The query of the page whose file would be at ``page_path`` (``/api/<route>/a=x/b=y/sort=s,page=n.json``)."""
    route, *filters, last = page_path.removesuffix(".json").split("/")[2:]
    sort, page = last.split(",")
    params = [f"{name}={quote(value, safe='')}" for name, _, value in (f.partition("=") for f in filters)]
    return f"/api/{route}?" + "&".join([*params, sort, page])


@pytest.fixture(scope="module")
def scattered_pages(build_10k: Build10k) -> list[str]:
    found = []
    for part in sorted((build_10k.dist / "api" / "query-index").glob("*/scattered-*.json")):
        found += list(json.loads(part.read_bytes()))
    return found


def test_fnv1a_is_the_32_bit_fnv_1a_hash() -> None:
    assert fnv1a("") == 0x811C9DC5
    assert fnv1a("a") == 0xE40C292C  # the published test vectors
    assert fnv1a("foobar") == 0xBF9CF968
    assert part_of("/api/companies/sector=fintech/country=us/sort=name,page=1.json", 1) == 0


def test_a_scattered_page_reads_two_files_and_answers_as_the_published_pages(
    build_10k: Build10k, scattered_pages: list[str],
) -> None:
    with_answers, without = _resolver(build_10k.dist), _resolver(build_10k.dist, hide_answers=True)
    routes = {page.split("/")[2] for page in scattered_pages}  # /api/<route>/...
    assert len(scattered_pages) > 300 and {"companies", "funding", "pre-ipos"} <= routes
    reads_before = []
    for page in scattered_pages:
        path, _, query = _url(page).partition("?")
        answer, computed = with_answers.resolve(path, query), without.resolve(path, query)
        assert answer is not None and computed is not None
        assert (answer.status, answer.body) == (computed.status, computed.body) == (200, answer.body), page
        assert len(answer.fetches) == 2 and "/scattered-" in answer.fetches[1], (page, answer.fetches)
        reads_before.append(len(computed.fetches))
    assert min(reads_before) > FILES + 1  # each of them read more than four files without its answer
    print(f"{len(scattered_pages)} scattered pages at 10k: 2 reads each, {max(reads_before)} at most without")


def test_a_page_that_is_not_scattered_reads_no_answer_file(build_10k: Build10k, scattered_pages: list[str]) -> None:
    resolver = _resolver(build_10k.dist)
    scattered = set(scattered_pages)
    for query in ("sector=fintech&country=de&sort=name", "stage=seed&year=2015&sort=-amount",
                  "sector=enterprise-software&country=us&sort=name&page=2"):
        route = "/api/funding" if "stage" in query else "/api/companies"
        answer = resolver.resolve(route, query)
        assert answer is not None and answer.status == 200, query
        if not any(_url(page) == f"{route}?{query}" for page in scattered):
            assert not any("/scattered-" in p for p in answer.fetches), (query, answer.fetches)
        assert len(answer.fetches) <= FILES + 1, (query, answer.fetches)


def test_node_finds_the_same_answers(build_10k: Build10k, scattered_pages: list[str]) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    resolver = _resolver(build_10k.dist)
    urls = [_url(page) for page in scattered_pages]
    expected = []
    for url in urls:
        found = resolver.resolve(*url.split("?"))
        assert found is not None
        expected.append({"status": found.status, "content_type": found.content_type, "file": found.file,
                         "fetches": found.fetches, "body": found.body.decode("utf-8")})
    done = subprocess.run([NODE, str(ROOT / "tests" / "frontdoor_js" / "node_resolve.mjs"), str(build_10k.dist)],
                          input=json.dumps(urls), capture_output=True, text=True, check=True, timeout=600)
    wrong = [url for url, want, got in zip(urls, expected, json.loads(done.stdout), strict=True) if want != got]
    assert not wrong, f"{len(wrong)} of {len(urls)} differ: {wrong[:5]}"


def test_a_value_between_rungs_is_not_answered_from_its_rung(build_10k: Build10k, scattered_pages: list[str]) -> None:
    """A scattered page of ``minValuation`` at a rung holds the rung's rows: a value above the rung is another answer
    (its rows are picked from the published pages, with the bytes they give)."""
    with_answers, without = _resolver(build_10k.dist), _resolver(build_10k.dist, hide_answers=True)
    rung = next(page for page in scattered_pages if "/minValuation=100000000/" in page and "sector=" in page)
    path, _, query = _url(rung).replace("minValuation=100000000", "minValuation=150000000").partition("?")
    answer, computed = with_answers.resolve(path, query), without.resolve(path, query)
    assert answer is not None and computed is not None and answer.status == 200
    assert answer.body == computed.body
    assert not any("/scattered-" in p for p in answer.fetches), answer.fetches

