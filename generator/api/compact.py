"""Each row's codes into a filter's values, held in arrays: the query index's entries (``kinds``) and the short
prefixes' rows (``prefix_answers``) at hundreds of thousands of rows, without a Python object per row or per value
of a row (a year filter's entry as a list of numbers held 16 MiB in the ``funding`` task at 300k companies).

``coded`` reads the rows' values once, as they come (from DuckDB a batch at a time), and gives the values sorted as
Python sorts their ``str`` with each row's code into them: ``Codes`` (one value or none a row) or ``Lists`` (a
list of codes a row, each sorted); ``numbered`` gives a number filter's ``Numbers``. All read like the lists they
stand for (``codes[i]``, ``==`` a plain list) and hold what the query index file writes (``query_index._entry``).
"""

from __future__ import annotations

import array
import itertools
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any


class _Arrays(Sequence[Any]):
    """Rows held in arrays (``arrays()``), equal to another of its kind with equal arrays, or to any sequence of the
    same rows (the plain lists it stands for)."""

    def arrays(self) -> tuple[array.array[int], ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.arrays() == other.arrays()  # type: ignore[attr-defined]
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class Codes(_Arrays):
    """A row's code into the values, or None, for each row: ``plus_one`` holds the code plus one (0: none), as
    the query index writes it."""

    def __init__(self, plus_one: array.array[int]) -> None:
        self.plus_one = plus_one

    def arrays(self) -> tuple[array.array[int], ...]:
        return (self.plus_one,)

    def __len__(self) -> int:
        return len(self.plus_one)

    @typing.overload
    def __getitem__(self, i: int) -> int | None: ...
    @typing.overload
    def __getitem__(self, i: slice) -> list[int | None]: ...
    def __getitem__(self, i: int | slice) -> int | None | list[int | None]:
        if isinstance(i, slice):
            return [c - 1 if c else None for c in self.plus_one[i]]
        found = self.plus_one[i]
        return found - 1 if found else None

    def of(self, rows: Iterable[int]) -> Iterator[int]:
        """The code of each of these rows that has one."""
        return (c - 1 for c in map(self.plus_one.__getitem__, rows) if c)


class Lists(_Arrays):
    """A list of codes for each row: row ``i``'s are ``flat[starts[i]:starts[i + 1]]`` (as the query index writes
    them); ``lists[i]`` gives them as a list, ``part(i)`` as an array."""

    def __init__(self, starts: array.array[int], flat: array.array[int]) -> None:
        self.starts, self.flat = starts, flat

    def arrays(self) -> tuple[array.array[int], ...]:
        return (self.starts, self.flat)

    def __len__(self) -> int:
        return len(self.starts) - 1

    def part(self, i: int) -> array.array[int]:
        i = range(len(self))[i]
        return self.flat[self.starts[i]: self.starts[i + 1]]

    @typing.overload
    def __getitem__(self, i: int) -> list[int]: ...
    @typing.overload
    def __getitem__(self, i: slice) -> list[list[int]]: ...
    def __getitem__(self, i: int | slice) -> list[int] | list[list[int]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.part(i).tolist()

    def __iter__(self) -> Iterator[list[int]]:
        flat = self.flat
        return (flat[a:b].tolist() for a, b in itertools.pairwise(self.starts))

    def of(self, rows: Iterable[int]) -> Iterator[int]:
        """Each code of each of these rows."""
        return itertools.chain.from_iterable(map(self.part, rows))

    def inverted(self, count: int) -> Lists:
        """For each code below ``count``, the rows whose list holds it, in order (a posting list per code)."""
        starts = array.array("q", bytes(8 * (count + 1)))
        for code in self.flat:
            starts[code + 1] += 1
        for code in range(count):
            starts[code + 1] += starts[code]
        rows = array.array("i", bytes(4 * len(self.flat)))
        free = starts[:-1]
        for row, (a, b) in enumerate(itertools.pairwise(self.starts)):
            for code in self.flat[a:b]:
                rows[free[code]] = row
                free[code] += 1
        return Lists(starts, rows)


class Numbers(Codes):
    """A row's number, or None, for each row: ``table`` the distinct numbers in order, ``plus_one`` each row's place
    in it plus one (0: none), as the query index writes them."""

    def __init__(self, table: array.array[int], plus_one: array.array[int]) -> None:
        super().__init__(plus_one)
        self.table = table

    def arrays(self) -> tuple[array.array[int], ...]:
        return self.table, self.plus_one

    def __getitem__(self, i: int | slice) -> int | None | list[int | None]:  # type: ignore[override]
        place = Codes.__getitem__(self, i)
        if isinstance(place, list):
            return [None if p is None else self.table[p] for p in place]
        return None if place is None else self.table[place]


def _ordered(first: dict[Any, int]) -> tuple[list[Any], array.array[int]]:
    """The values of ``first`` (a value -> its code in the order met) sorted, and for each such code the value's
    place among them."""
    values = sorted(first)
    final = array.array("i", bytes(4 * len(values)))
    for place, value in enumerate(values):
        final[first[value]] = place
    return values, final


def _one_a_row(found: Iterable[Any], key: Callable[[Any], Any]) -> tuple[list[Any], array.array[int]]:
    """The values (``key`` of each row's, sorted) and each row's place among them plus one (0: none)."""
    first: dict[Any, int] = {}
    flat = array.array("i", (0 if v is None else first.setdefault(key(v), len(first)) + 1 for v in found))
    values, final = _ordered(first)
    del first
    return values, array.array("i", (final[c - 1] + 1 if c else 0 for c in flat))


def numbered(found: Iterable[Any]) -> Numbers:
    """``Numbers`` from each row's number (None: none), as whole numbers."""
    table, plus_one = _one_a_row(found, int)
    return Numbers(array.array("q", table), plus_one)


def coded(found: Iterable[Any], multi: bool) -> dict[str, Any]:
    """The values (sorted as Python sorts their ``str``) and each row's code into them from each row's value
    (None: none), or with ``multi`` each row's sorted codes from its list of values (None or empty: none)."""
    if not multi:
        values, plus_one = _one_a_row(found, str)
        return {"values": values, "codes": Codes(plus_one)}
    first: dict[str, int] = {}  # a value -> its code in the order met
    starts, flat = array.array("q", [0]), array.array("i")
    for vs in found:
        if vs:
            flat.extend({first.setdefault(str(v), len(first)) for v in vs})
        starts.append(len(flat))
    values, final = _ordered(first)
    del first
    flat = array.array("i", (final[c] for c in flat))
    for a, b in itertools.pairwise(starts):
        if b - a > 1:
            flat[a:b] = array.array("i", sorted(flat[a:b]))
    return {"values": values, "codes": Lists(starts, flat)}
