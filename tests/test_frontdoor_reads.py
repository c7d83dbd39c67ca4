"""What a computed answer reads: the query index in binary (decoded the same by both front doors), a short prefix's
first page from its own file in at most four reads with the answer the index gives, a ladder value between rungs
in at most four. tests/test_frontdoor_10k.py checks the same at 10k companies with the sizes of the files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.api.query_index import decode, encode
from generator.frontdoor import listing
from generator.frontdoor.resolver import Resolver

ROOT = Path(__file__).resolve().parent.parent
TYPES = ["", "&type=company", "&type=investor", "&type=industry"]


def short_queries(resolver: Resolver) -> list[str]:
    """Every one- and two-letter prefix some word of /api/search begins with, alone and with each type."""
    space = resolver.space["routes"]["search"]
    found = resolver._fetch(space["index"])
    assert found is not None
    beginnings = decode(found)["filters"]["q"]["values"]
    prefixes = sorted({v[:n] for v in beginnings for n in (1, 2) if len(v) >= n})
    return [f"q={p}{t}" for p in prefixes for t in TYPES]


def through_the_index(resolver: Resolver, query: str, monkeypatch: pytest.MonkeyPatch) -> bytes:
    with monkeypatch.context() as patched:
        patched.setattr(listing, "from_prefix", lambda *args: None)
        answer = resolver.resolve("/api/search", query)
    assert answer is not None
    return answer.body


def check_short_searches(resolver: Resolver, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each short search's first page: at most 4 reads, its first character's file first, the index's answer byte for
    byte."""
    reads = []
    for query in short_queries(resolver):
        answer = resolver.resolve("/api/search", query)
        assert answer is not None and answer.status == 200, query
        assert len(answer.fetches) <= 4, (query, answer.fetches)
        first = query.split("&")[0].removeprefix("q=")[0]  # the answers of prefixes by their first character
        assert answer.fetches[0] == f"/api/query-index/search/q={first}.json", (query, answer.fetches)
        assert answer.body == through_the_index(resolver, query, monkeypatch), query
        reads.append(len(answer.fetches))
    return reads


def test_the_query_index_decodes_to_what_was_encoded(embedded_build: Path) -> None:
    for path in sorted((embedded_build / "api" / "query-index").glob("*.bin")):
        raw = path.read_bytes()
        assert raw[:4] == b"QIX1" and decode(encode(decode(raw))) == decode(raw), path.name
    with pytest.raises(ValueError, match="not a query index"):
        decode(b'{"route": "/api/companies"}')


def test_both_front_doors_decode_the_query_index_alike(embedded_build: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    script = ("import {parseIndex} from './generator/frontdoor/js/frontdoor.mjs'; import {readFileSync} from 'node:fs';"
              "const out = {}; for (const p of process.argv.slice(1)) out[p] = parseIndex(readFileSync(p));"
              # typed arrays as lists, as Python's decode gives them: a code of -1 and a number NaN (no value) as
              # null, several codes per row (starts and lists) as a list per row
              "const several = (e) => ({values: e.values, codes: Array.from({length: e.starts.length - 1},"
              " (_, i) => Array.from(e.lists.subarray(e.starts[i], e.starts[i + 1])))});"
              "console.log(JSON.stringify(out, (k, v) => v && v.starts ? several(v) : !ArrayBuffer.isView(v) ? v"
              " : k === 'codes' ? Array.from(v, (c) => c < 0 ? null : c)"
              " : k === 'numbers' ? Array.from(v, (n) => Number.isNaN(n) ? null : n) : Array.from(v)));")
    paths = [str(p) for p in sorted((embedded_build / "api" / "query-index").glob("*.bin"))]
    done = subprocess.run(["node", "--input-type=module", "-e", script, *paths], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=120)
    found = json.loads(done.stdout)
    for path in paths:
        assert found[path] == decode(Path(path).read_bytes()), path


def test_a_short_search_reads_at_most_four_files(resolver: Resolver, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = check_short_searches(resolver, monkeypatch)
    assert len(reads) > 100 and max(reads) <= 4


def test_a_short_search_past_its_first_page_or_without_a_file_goes_through_the_index(resolver: Resolver) -> None:
    for query in ["q=a&page=2", "q=zq", "q=a%20b", "q=s&type=company&page=2"]:
        answer = resolver.resolve("/api/search", query)
        assert answer is not None and answer.status in (200, 404), query
        assert "/api/query-index/search.bin" in answer.fetches, (query, answer.fetches)


def test_a_ladder_value_between_rungs_reads_at_most_four_files(resolver: Resolver) -> None:
    for query in ["minValuation=1.5e9", "minValuation=2500000001&sort=name", "minValuation=3e10&sector=fintech",
                  "minValuation=7e8&country=us&sort=valuation", "sector=fintech&country=us&sort=name"]:
        answer = resolver.resolve("/api/companies", query)
        assert answer is not None and answer.status == 200, query
        assert answer.fetches[0] == "/api/query-index/companies.bin" and len(answer.fetches) <= 4, answer.fetches
