"""Each kind of filter on its own (generator/api/kinds.py), without a dataset: its SQL on a table of three rows, its
query-index entry, and its description as both front doors read it (the Python primitives of
generator/frontdoor/values.py and the JavaScript ones of frontdoor.mjs, under Node, give the same results). Then: no
code outside the kinds module tests a kind's name, and a filter declared in the registry alone reaches every
consumer (the tiny build's OpenAPI document, query space, landing page, rewrite rules and problems)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest

from generator.api.kinds import (
    CATEGORY,
    KINDS,
    LADDER_USD,
    MONTH,
    TEXT,
    YEAR,
    YEARS,
    Bound,
    Kind,
    Since,
    UpperBound,
    Year,
)
from generator.api.query_index import decode
from generator.api.registry import LIST_ROUTES
from generator.api.rewrites import rules
from generator.api.routes import Filter
from generator.frontdoor import values as primitives
from generator.frontdoor.common import Invalid
from generator.frontdoor.space import slugify

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "node"
ROWS = """SELECT * FROM (VALUES
    (1, 'fintech', ['ai', 'payments'], DATE '2021-03-04', 2015, 500000000, 'Open AI Labs', 'OAI'),
    (2, 'biotech', [], DATE '2019-12-31', 1999, 20000000000, 'Élan Bio', NULL),
    (3, NULL, ['ai'], NULL, NULL, NULL, 'Stripe', NULL)
) AS t(id, sector, tags, status_date, founded_year, valuation_usd, name, ticker)"""
WORDS = "name || ' ' || coalesce(ticker, '')"

SECTOR = Filter("sector", CATEGORY, "sector", "Sector.")
TAGS = Filter("tag", CATEGORY, "tags", "Tag.", multi=True)
MONTHS = Filter("month", MONTH, "month", "Month.")
LISTED = Filter("year", YEAR, "status_date", "Year.")
FOUNDED = Filter("founded", Year(date=False), "founded_year", "Founded.", published=False)
VALUATION = Filter("minValuation", LADDER_USD, "valuation_usd", "Valuation.", (100_000_000, 1_000_000_000))
SINCE = Filter("minFounded", Bound(YEARS), "founded_year", "Since.", (2000, 2010))
UNTIL = Filter("maxFounded", UpperBound(YEARS), "founded_year", "Until.", (2000, 2010))
PREFIX = Filter("q", TEXT, WORDS, "Prefix.", prefixes=(2, 3))
WHOLE = Filter("q", TEXT, WORDS, "Word.")
DAY = Filter("since", Since(), "status_date", "Since a day.", published=False)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE rows AS {ROWS}")
    return connection


def _column(con: duckdb.DuckDBPyConnection, sql: str) -> list[Any]:
    return [value for (value,) in con.execute(f"SELECT {sql} FROM rows ORDER BY id").fetchall()]


@pytest.mark.parametrize(("flt", "expected"), [
    (SECTOR, [["fintech", None], ["biotech", None], [None]]),
    (TAGS, [{"ai", "payments", None}, {None}, {"ai", None}]),
    (LISTED, [[2021, None], [2019, None], [None]]),
    (FOUNDED, [[2015, None], [1999, None], [None]]),
    (VALUATION, [[100_000_000, None], [100_000_000, 1_000_000_000, None], [None]]),
    (SINCE, [[2000, 2010, None], [None], [None]]),
    (UNTIL, [[None], [2000, 2010, None], [None]]),
    (PREFIX, [{"op", "ope", "ai", "la", "lab", "oa", "oai", None}, {"el", "ela", "bi", "bio", None},
              {"st", "str", None}]),
    (WHOLE, [{"open", "ai", "labs", "oai", None}, {"elan", "bio", None}, {"stripe", None}]),
], ids=lambda v: v.name if isinstance(v, Filter) else "")
def test_each_kind_says_in_sql_which_values_a_row_matches(con: duckdb.DuckDBPyConnection, flt: Filter,
                                                          expected: list) -> None:
    found = _column(con, flt.kind.sql_matches(flt))
    assert [set(f) if isinstance(e, set) else f for f, e in zip(found, expected, strict=True)] == expected


@pytest.mark.parametrize(("flt", "expected"), [
    (SECTOR, {"values": ["biotech", "fintech"], "codes": [1, 0, None]}),
    (TAGS, {"values": ["ai", "payments"], "codes": [[0, 1], [], [0]]}),
    (LISTED, {"numbers": [2021, 2019, None]}),
    (UNTIL, {"numbers": [2015, 1999, None]}),
    (VALUATION, {"numbers": [500_000_000, 20_000_000_000, None]}),
    (DAY, {"numbers": [20210304, 20191231, None]}),
    (PREFIX, {"values": ["ai", "bi", "el", "la", "oa", "op", "st"], "codes": [[0, 3, 4, 5], [1, 2], [6]]}),
], ids=lambda v: v.name if isinstance(v, Filter) else "")
def test_each_kind_encodes_its_query_index_entry(con: duckdb.DuckDBPyConnection, flt: Filter, expected: dict) -> None:
    assert flt.kind.index_entry(flt, _column(con, flt.kind.sql_value(flt))) == expected


class _Vocabulary:
    def choices(self, flt: Filter, values: list[str]) -> dict[str, Any]:
        return {"values": {**{v: v for v in values}, "fin-tech": "fintech"}}

    def text(self, flt: Filter) -> dict[str, Any]:
        return {"text_fields": ["name", "ticker"], "optional_words": ["inc"]}


def _entry(flt: Filter, values: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    """The filter as the query space describes it (``frontdoor.space._filter``, with rows carrying ``field``)."""
    return {"name": flt.name, "kind": flt.kind.name, "field": flt.kind.row_field(flt), "multi": flt.multi,
            "sortable": flt.sortable, "files": flt.published, "faceted": flt.faceted,
            **flt.kind.describe(flt, list(values), _Vocabulary())}


def _python(flt: dict, op: str, args: list[Any]) -> dict[str, Any]:
    reader = primitives.of(flt)
    try:
        if op == "parse":
            found: Any = reader.parse(flt, args[0], lambda _: None, slugify, "see the docs")
        elif op in ("mask", "counts"):
            found = getattr(reader, op)(args[0], flt, args[1])
        else:
            found = getattr(reader, op)(flt, *args)
    except Invalid as error:
        return {"invalid": error.params, "detail": error.detail}
    return {"ok": {str(k): v for k, v in found.items()} if isinstance(found, dict) else found}


ROW = {"sector": "fintech", "tags": ["ai"], "year": 2021, "founded_year": 2015, "valuation_usd": 500_000_000,
       "name": "Open AI Labs", "ticker": "OAI"}
NUMBERS = {"numbers": [2015, 1999, None]}
NOT_A_DAY = "a day, YYYY-MM-DD (e.g. 2025-06-01)"
CASES: list[tuple[dict, str, list[Any], Any]] = [  # description, operation, arguments, the result (None: not checked)
    (_entry(SECTOR, ["fintech"]), "parse", ["Fin Tech"], {"ok": "fintech"}),
    (_entry(SECTOR, ["fintech"]), "parse", ["FinTec"], None),
    (_entry(SECTOR, ["fintech"]), "keep", ["fintech", ROW], {"ok": True}),
    (_entry(TAGS, ["ai"]), "keep", ["payments", ROW], {"ok": False}),
    (_entry(TAGS, ["ai"]), "counts", [{"values": ["ai", "x"], "codes": [[0, 1], [0], []]}, [True, True, True]],
     {"ok": {"ai": 2, "x": 1}}),
    (_entry(MONTHS, []), "parse", ["2025-7"], {"ok": "2025-07"}),
    (_entry(MONTHS, []), "parse", ["2025-13"], None),
    (_entry(LISTED, ["2021"]), "parse", [" 2021 "], {"ok": 2021}),
    (_entry(LISTED, ["2021"]), "parse", ["21"], {"invalid": [{"name": "year", "reason": "a year, four digits"}],
                                                 "detail": "`year`: '21' is not a year"}),
    (_entry(LISTED, ["2021"]), "exact", [2021], {"ok": "2021"}),
    (_entry(FOUNDED), "exact", [2015], {"ok": None}),
    (_entry(FOUNDED), "keep", [2015, ROW], {"ok": True}),
    (_entry(FOUNDED), "mask", [NUMBERS, 1999], {"ok": [False, True, False]}),
    (_entry(VALUATION), "parse", ["1.5e9"], {"ok": 1_500_000_000}),
    (_entry(VALUATION), "parse", ["1234.5"], {"ok": 1235}),
    (_entry(VALUATION), "parse", ["1e30"], {"ok": 2**53}),
    (_entry(VALUATION), "parse", ["-1"], {"invalid": [
        {"name": "minValuation", "reason": "a non-negative number (e.g. 1500000000 or 1.5e9)"}],
        "detail": "`minValuation`: '-1' is not a non-negative number"}),
    (_entry(VALUATION), "exact", [1_000_000_000], {"ok": "1000000000"}),
    (_entry(VALUATION), "exact", [1_500_000_000], {"ok": None}),
    (_entry(VALUATION), "base", [1_500_000_000], {"ok": 1_000_000_000}),
    (_entry(VALUATION), "base", [50], {"ok": None}),
    (_entry(VALUATION), "keep", [500_000_000, ROW], {"ok": True}),
    (_entry(VALUATION), "counts", [{"numbers": [500_000_000, 2_000_000_000, None]}, [True, True, True]],
     {"ok": {"100000000": 2, "1000000000": 1}}),
    (_entry(SINCE), "parse", ["2010.5"], {"ok": 2011}),
    (_entry(SINCE), "parse", ["x"], {"invalid": [{"name": "minFounded", "reason": "a non-negative number (e.g. 2015)"}],
                                     "detail": "`minFounded`: 'x' is not a non-negative number"}),
    (_entry(UNTIL), "parse", ["2010.5"], {"ok": 2010}),
    (_entry(UNTIL), "base", [2005], {"ok": 2010}),
    (_entry(UNTIL), "base", [2011], {"ok": None}),
    (_entry(UNTIL), "mask", [NUMBERS, 2000], {"ok": [False, True, False]}),
    (_entry(UNTIL), "keep", [2014, ROW], {"ok": False}),
    (_entry(UNTIL), "counts", [NUMBERS, [True, True, True]], {"ok": {"2000": 1, "2010": 1}}),
    # a value on a rung, one below every rung, one masked out: each side of the JavaScript's binary search
    (_entry(VALUATION), "counts", [{"numbers": [1_000_000_000, 99, 5e9, None]}, [True, True, False, True]], None),
    (_entry(UNTIL), "counts", [{"numbers": [2010, 2010.5, 1800, None]}, [True, True, True, False]], None),
    (_entry(DAY), "parse", [" 2021-03-04 "], {"ok": "2021-03-04"}),
    (_entry(DAY), "parse", ["0050-01-31"], {"ok": "0050-01-31"}),
    (_entry(DAY), "parse", ["2025-02-30"], {"invalid": [{"name": "since", "reason": NOT_A_DAY}],
                                           "detail": "`since`: '2025-02-30' is not a day YYYY-MM-DD"}),
    (_entry(DAY), "parse", ["0000-01-01"], {"invalid": [{"name": "since", "reason": NOT_A_DAY}],
                                           "detail": "`since`: '0000-01-01' is not a day YYYY-MM-DD"}),
    (_entry(DAY), "parse", ["2021-3-4"], None),
    (_entry(DAY), "exact", ["2021-03-04"], {"ok": None}),
    (_entry(DAY), "keep", ["2021-03-04", {**ROW, "status_date": "2021-03-04"}], {"ok": True}),
    (_entry(DAY), "keep", ["2021-03-05", {**ROW, "status_date": "2021-03-04"}], {"ok": False}),
    (_entry(DAY), "mask", [{"numbers": [20210304, 20191231, None]}, "2020-01-01"], {"ok": [True, False, False]}),
    (_entry(PREFIX), "parse", ["Open AI Inc."], {"ok": ["open", "ai"]}),
    (_entry(PREFIX), "parse", ["ß"], {"invalid": [{"name": "q", "reason": "no letters or digits"}],
                                      "detail": "`q`: 'ß' has no word"}),
    (_entry(PREFIX), "parse", ["x" * 201], None),
    (_entry(PREFIX), "indexable", [["o", "a"]], {"ok": False}),
    (_entry(PREFIX), "indexable", [["o"]], {"ok": True}),
    (_entry(PREFIX), "alternatives", [["open", "ai"]], {"ok": ["ope"]}),
    (_entry(PREFIX), "alternatives", [["o"]], {"ok": None}),
    (_entry(PREFIX), "keep", [["op", "la"], ROW], {"ok": True}),
    (_entry(WHOLE), "keep", [["open", "ai"], ROW], {"ok": True}),
    (_entry(WHOLE), "keep", [["openai"], ROW], {"ok": False}),
    (_entry(WHOLE), "exact", [["labs"]], {"ok": "labs"}),
    (_entry(WHOLE), "indexable", [["o"]], {"ok": False}),
]


def test_both_front_doors_read_each_kind_alike() -> None:
    """The Python primitives give the stated results, and the JavaScript ones the same for every case."""
    python = [_python(flt, op, args) for flt, op, args, _ in CASES]
    for (flt, op, args, expected), found in zip(CASES, python, strict=True):
        if expected is not None:
            assert found == expected, (flt["name"], op, args)
    done = subprocess.run([NODE, str(ROOT / "tests" / "frontdoor_js" / "primitives.mjs")], capture_output=True,
                          text=True, input=json.dumps([{"flt": f, "op": op, "args": a} for f, op, a, _ in CASES]),
                          timeout=60, check=True)
    javascript = json.loads(done.stdout)
    assert [json.loads(json.dumps(p)) for p in python] == javascript


def test_no_code_outside_the_kinds_module_tests_a_kinds_name() -> None:
    """The kinds' names are labels: a branch on one (``kind == "ladder"``, ``flt.kind === "text"``, a kind's name in a
    tuple) anywhere in the generator's Python or JavaScript (the landing page's script too) but the kinds module is a
    kind spread over the code."""
    names = "|".join(sorted({k.name for k in KINDS}))
    distinct = "|".join(n for n in names.split("|") if n not in ("year", "month", "text"))  # not common words
    branch = re.compile(rf"""kind(\.name|"\]|'\])?\s*(===?|!==?|\bin\b|\bnot in\b)\s*[(\[]?\s*["']({names})["']""")
    compared = re.compile(rf"""(===?|!==?)\s*["']({distinct})["']|\bin\s*[(\[][^)\]]*["']({distinct})["']""")
    found = []
    generator = ROOT / "generator"
    code = [*generator.rglob("*.py"), *generator.rglob("*.mjs"), *(ROOT / "templates").glob("*.j2")]
    for path in sorted(code):
        if path.name == "kinds.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if branch.search(line) or compared.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_every_kind_is_described_for_the_resolvers_with_a_primitive_both_implement() -> None:
    kinds = [CATEGORY, MONTH, YEAR, Year(date=False), LADDER_USD, Bound(YEARS), UpperBound(YEARS), TEXT, Since()]
    assert {type(k) for k in kinds} == set(KINDS)
    source = (ROOT / "generator" / "frontdoor" / "js" / "frontdoor.mjs").read_text(encoding="utf-8")
    exported = re.search(r"export const PRIMITIVES = \{([^}]*)\}", source)
    assert exported is not None
    javascript = {part.split(":")[0].strip() for part in exported.group(1).split(",")}
    for kind in kinds:
        flt = Filter("x", kind, "x", "X.", (1,) if isinstance(kind, Bound) else ())
        described = kind.describe(flt, [], _Vocabulary())
        assert described["value"] in primitives.PRIMITIVES and described["value"] in javascript, kind
        assert isinstance(kind, Kind) and kind.name


def test_a_front_door_only_filter_reaches_every_consumer(tiny_build: Path) -> None:
    """``founded``, ``minFounded``, ``maxFounded`` and ``sort=valuation`` (smallest first) are declarations in the
    registry alone: the query space describes them, OpenAPI and the landing page document them, the query index holds
    them, no file and no listing rule does, and hosts without code answer them with a problem."""
    route = next(r for r in LIST_ROUTES if r.name == "companies")
    only = [f.name for f in route.filters if not f.published]
    assert only == ["founded", "minFounded", "maxFounded"]
    space = json.loads((tiny_build / "api" / "query-space.json").read_text(encoding="utf-8"))
    described = {f["name"]: f for f in space["routes"]["companies"]["filters"]}
    assert all(not described[n]["files"] and not described[n]["faceted"] for n in only)
    assert [described[n]["compare"] for n in only] == ["eq", "ge", "le"]
    sorts = space["routes"]["companies"]["sorts"]
    assert sorts["valuation"] == {"field": "valuation_usd", "desc": False, "lower": False, "files": False}
    assert sorts["-valuation"]["files"] and space["routes"]["ipos"]["sorts"]["-return"]["files"]
    document = json.loads((tiny_build / "api" / "openapi.json").read_text(encoding="utf-8"))
    parameters = {p["name"]: p for p in document["paths"]["/api/companies"]["get"]["parameters"]}
    assert all("Front door only" in parameters[n]["description"] for n in only)
    sort = parameters["sort"]
    assert "valuation" in sort["schema"]["enum"] and "Front door only" in sort["description"]
    landing = (tiny_build / "index.html").read_text(encoding="utf-8")
    assert all(n in landing for n in only)
    index = decode((tiny_build / "api" / "query-index" / "companies.bin").read_bytes())
    assert "numbers" in index["filters"]["founded"] and index["filters"]["maxFounded"] == "founded"
    assert "valuation" in index["orders"]
    listing_files = [p for p in (tiny_build / "api").rglob("*.json")
                     if "ounded=" in str(p) or ("companies" in p.parts and p.name.startswith("sort=valuation,"))]
    assert listing_files == []
    assert (tiny_build / "api" / "ipos" / "all" / "sort=-return,page=1.json").is_file()
    refused = [r for r in rules() if r.path == "/api/companies" and r.to == route.front_door_error]
    assert [r.query for r in refused] == [(n,) for n in only]
    assert (tiny_build / route.front_door_error.lstrip("/")).is_file()
