"""The query index's codes in arrays (generator/api/compact.py): the values and codes ``coded`` gives are the ones a
plain list of lists would hold (values sorted as Python sorts their ``str``, a row's codes sorted and distinct),
compare equal to those lists, and the index writes the same bytes from either; ``Lists.inverted`` gives each
code's rows in order; ``numbered`` gives a number filter's rows as the list of numbers would, with the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from generator.api.compact import Codes, Lists, Numbers, coded, numbered
from generator.api.query_index import decode, encode

MULTI = [["b", "a", "b"], None, [], [10, 9, "a"], ["c"]]
"""Rows of a filter of several values: a repeated value, none, an empty list, numbers (``"10"`` sorts before
``"9"``)."""
SINGLE = ["b", None, 10, "a", 9, "b"]


def _plain(found: list[Any], multi: bool) -> dict[str, Any]:
    """What the entry holds, in lists."""
    if multi:
        values = sorted({str(v) for vs in found if vs for v in vs})
        return {"values": values, "codes": [sorted({values.index(str(v)) for v in vs}) if vs else [] for vs in found]}
    values = sorted({str(v) for v in found if v is not None})
    return {"values": values, "codes": [None if v is None else values.index(str(v)) for v in found]}


@pytest.mark.parametrize(("found", "multi"), [(MULTI, True), (SINGLE, False), ([], True), ([], False)])
def test_codes_are_the_plain_lists(found: list[Any], multi: bool) -> None:
    entry = coded(iter(found), multi)
    plain = _plain(found, multi)
    assert isinstance(entry["codes"], Lists if multi else Codes)
    assert entry == plain and plain == entry
    assert list(entry["codes"]) == plain["codes"]
    assert [entry["codes"][i] for i in range(len(found))] == plain["codes"]
    assert entry["codes"][1:3] == plain["codes"][1:3]


def test_the_plain_lists_read_back() -> None:
    assert coded(iter(MULTI), True) == {"values": ["10", "9", "a", "b", "c"], "codes": [[2, 3], [], [], [0, 1, 2], [4]]}
    assert coded(iter(SINGLE), False) == {"values": ["10", "9", "a", "b"], "codes": [3, None, 0, 2, 1, 3]}
    assert coded(iter(MULTI), True)["codes"] != [[2, 3], [], [], [0, 1, 2], [3]]
    assert coded(iter(SINGLE), False)["codes"] != [3, None, 0, 2, 1]


@pytest.mark.parametrize(("found", "multi"), [(MULTI, True), (SINGLE, False), ([], True), ([], False)])
def test_the_index_writes_the_same_bytes(found: list[Any], multi: bool) -> None:
    def index(entry: dict[str, Any]) -> bytes:
        return encode({"route": "/api/x", "rows": len(found), "per_page": 50, "order": "name",
                       "filters": {"f": entry}, "orders": {}, "scattered": 0})

    raw = index(coded(iter(found), multi))
    assert raw == index(_plain(found, multi))
    assert decode(raw)["filters"]["f"] == _plain(found, multi)


def test_inverted_gives_each_codes_rows_in_order() -> None:
    codes = coded(iter(MULTI), True)["codes"]
    assert list(codes.inverted(5)) == [[3], [3], [0, 3], [0], [4]]
    assert codes.inverted(5).part(2).tolist() == [0, 3]
    assert list(Lists.inverted(coded(iter([]), True)["codes"], 2)) == [[], []]


def test_of_gives_the_codes_of_some_rows() -> None:
    assert list(coded(iter(MULTI), True)["codes"].of([3, 1, 0])) == [0, 1, 2, 2, 3]
    assert list(coded(iter(SINGLE), False)["codes"].of([5, 1, 4])) == [3, 1]


NUMBERS = [2015, None, 1999, 2015, 20_000_000_000, None, 9]
"""A number filter's rows: repeated, none, numbers of different lengths (9 sorts after 20,000,000,000 as text)."""


@pytest.mark.parametrize("found", [NUMBERS, [], [None, None], [7]])
def test_numbers_are_the_plain_list_and_write_the_same_bytes(found: list[Any]) -> None:
    def index(entry: dict[str, Any]) -> bytes:
        return encode({"route": "/api/x", "rows": len(found), "per_page": 50, "order": "name",
                       "filters": {"f": entry}, "orders": {}, "scattered": 0})

    numbers = numbered(iter(found))
    assert isinstance(numbers, Numbers) and numbers == found and found == numbers
    assert [numbers[i] for i in range(len(found))] == found and numbers[1:4] == found[1:4]
    assert numbers == numbered(iter(found)) and {"numbers": numbers} == {"numbers": numbered(iter(found))}
    raw = index({"numbers": numbers})
    assert raw == index({"numbers": list(found)})
    assert decode(raw)["filters"]["f"] == {"numbers": found}


def test_numbers_differ_where_a_row_does() -> None:
    assert numbered(iter(NUMBERS)) != [2015, None, 1999, 2015, 20_000_000_000, None, 10]
    assert numbered(iter(NUMBERS)) != numbered(iter([2015, None, 1999, 2015, 20_000_000_000, 9, None]))
    assert numbered(iter(["12", 3.0])) == [12, 3]
