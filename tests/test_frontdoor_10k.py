"""The conformance table at size: ``synth --companies 10000`` built, then the Python resolver against the SQL
oracle on every query of the table, and the JavaScript resolver under Node byte for byte against the Python one
(the hosts' runtimes run that same module; tests/test_frontdoor_js.py runs them on the embedded build)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import duckdb
import pytest

from generator.api import queries
from generator.dataset.database import load_into
from generator.dataset.load import validate
from generator.dataset.schema import DatasetInfo
from generator.frontdoor.resolver import Resolver
from generator.frontdoor.space import QUERY_SPACE_FILE
from tests.frontdoor_js.table import ISSUE, generated

from .conftest import Build10k
from .test_frontdoor import ISSUE_TABLE, NATURAL, _check, _generated
from .test_frontdoor_reads import check_short_searches

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "node"


@pytest.fixture(scope="module")
def synth_10k(build_10k: Build10k) -> tuple[Path, Path]:
    return build_10k.data, build_10k.dist


@pytest.fixture(scope="module")
def db_10k(synth_10k: tuple[Path, Path]) -> tuple[duckdb.DuckDBPyConnection, DatasetInfo]:
    info, tables = validate(synth_10k[0])
    connection = duckdb.connect(config={"threads": 1})
    load_into(connection, tables)
    connection.execute(queries.read_sql("views"))
    return connection, info


@pytest.fixture(scope="module")
def resolver_10k(synth_10k: tuple[Path, Path]) -> Resolver:
    dist = synth_10k[1]

    def fetch(path: str) -> bytes | None:
        found = dist / path.lstrip("/")
        return found.read_bytes() if found.is_file() else None

    return Resolver(json.loads((dist / QUERY_SPACE_FILE.lstrip("/")).read_text()), fetch)


def test_every_query_of_the_table_answers_as_the_sql_oracle_at_10k(resolver_10k: Resolver, db_10k: tuple) -> None:
    named = [*ISSUE_TABLE, *NATURAL]
    urls = [*named, *_generated(resolver_10k)]
    reads = []
    for url in urls:
        path, _, query = url.partition("?")
        answer = resolver_10k.resolve(path, query)
        assert answer is not None, url
        body = json.loads(answer.body)
        reads.append(len(answer.fetches))
        if answer.status == 400 and url in named:  # an embedded company (stripe) the synthetic data lacks
            slugs = [v for k, v in parse_qsl(urlsplit(url).query) if k == "company"]
            assert [p["name"] for p in body["invalid-params"]] == ["company"], (url, body)
            assert db_10k[0].execute("SELECT count(*) FROM companies WHERE slug = ?", slugs).fetchone() == (0,)
            continue
        _check(url, answer.status, body, db_10k)
    reads.sort()
    print(f"{len(urls)} queries at 10k: reads median {reads[len(reads) // 2]}, p99 {reads[int(len(reads) * .99)]}, "
          f"max {reads[-1]}")
    assert len(urls) > 600


def test_node_answers_byte_for_byte_as_python_at_10k(resolver_10k: Resolver, synth_10k: tuple[Path, Path]) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    urls = list(dict.fromkeys([*ISSUE, *generated(resolver_10k.space), *NATURAL, *_generated(resolver_10k)]))
    expected = []
    for url in urls:
        path, _, query = url.partition("?")
        found = resolver_10k.resolve(path, query)
        expected.append(None if found is None else {
            "status": found.status, "content_type": found.content_type, "file": found.file,
            "fetches": found.fetches, "body": None if found.file else found.body.decode("utf-8", "replace")})
    done = subprocess.run([NODE, str(ROOT / "tests" / "frontdoor_js" / "node_resolve.mjs"), str(synth_10k[1])],
                          input=json.dumps(urls), capture_output=True, text=True, check=True, timeout=900)
    wrong = [url for url, want, got in zip(urls, expected, json.loads(done.stdout), strict=True) if want != got]
    assert not wrong, f"{len(wrong)} of {len(urls)} differ: {wrong[:10]}"
    assert len(urls) > 3000


INDEX_MAX = 160_000
"""Bytes of the largest query index at 10k companies (/api/companies': 116 KB, every filter and sort of 10k rows)."""
PREFIX_FILE_MAX = 64_000
"""Bytes of the largest file of short prefixes' first pages at 10k (one file per first character: 57 KB, ``s``;
131 KB at 100k, bounded by the two-letter prefixes and a page of rows each, not by the rows)."""


def test_a_short_search_reads_at_most_four_files_at_10k(resolver_10k: Resolver, synth_10k: tuple[Path, Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    reads = check_short_searches(resolver_10k, monkeypatch)
    folder = synth_10k[1] / "api" / "query-index"
    sizes = {p.name: p.stat().st_size for p in folder.glob("*.bin")}
    prefix_files = {p.name: p.stat().st_size for p in (folder / "search").glob("*.json")}
    print(f"{len(reads)} short searches at 10k: reads max {max(reads)}; largest index {max(sizes.values()):,} "
          f"bytes, largest prefix file {max(prefix_files.values()):,} bytes ({len(prefix_files)} files)")
    assert len(reads) > 900 and max(reads) <= 4
    assert max(sizes.values()) <= INDEX_MAX, sizes
    assert max(prefix_files.values()) <= PREFIX_FILE_MAX


def test_several_words_read_the_word_of_fewest_pages_at_10k(resolver_10k: Resolver, db_10k: tuple) -> None:
    """``networks`` (the longest word) runs to four pages at 10k, ``kaijoun`` to one: its files are read instead."""
    url = "/api/companies?q=kaijoun%20networks"
    answer = resolver_10k.resolve(*url.split("?"))
    assert answer is not None and answer.status == 200
    assert len(answer.fetches) <= 3 and "/api/companies/q=networks/sort=-valuation,page=2.json" not in answer.fetches
    _check(url, answer.status, json.loads(answer.body), db_10k)
