"""The kinds of filter, each whole in one class: which rows a value matches in SQL, how the query index encodes
the filter, its OpenAPI schema, its words on the landing page, and the description of its values in the query
space (``/api/query-space.json``): how a value is parsed and folded, how rows and the index are matched, which
problem a bad value gets, with an example in the filter's unit.

The rest of the generator asks a filter's kind (``flt.kind.sql_matches(flt)``) and never tests its name; the front
doors (Python and JavaScript) interpret the description, so a new filter of an existing kind is one declaration
in the registry. The description uses three value primitives the resolvers implement once each: ``choice`` (a slug
among values, by name or code), ``number`` (a pattern, a rounding and a comparison with the row's number) and
``words`` (a text query).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from generator.api.compact import coded, numbered

WORD_MAX = 40
"""Longest indexed word of a whole-word text filter (``q`` on /api/companies and /api/pre-ipos), in characters."""
TEXT_MAX = 200
"""Longest text query the front door takes (characters): the OpenAPI document's maxLength."""
MAX_BOUND = 2**53
"""Above every number of the dataset (its integers are at most 2^53 - 1): a larger bound means the same."""
INDEX_PREFIX = 2
"""A text filter's query index holds the first this many characters of each word (the word, when shorter)."""
UNSIGNED = r"(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?"
"""A non-negative number as the front door takes it: ``1500000000``, ``1.5e9``, ``2.5``."""
FRONT_DOOR_ONLY = (" Front door only: no file holds this filter; the front door answers it from the route's query "
                   "index. A host with rewrite rules only ignores it, as any parameter it does not know.")


class FilterLike(Protocol):
    """What a kind reads of a filter (``routes.Filter``)."""

    name: str
    column: str
    description: str
    domain: str | tuple[str | int, ...]
    multi: bool
    prefixes: tuple[int, int] | None
    open: bool
    published: bool


class Vocabulary(Protocol):
    """What the query space knows beyond the registry (``frontdoor.space``): a category's values with their names
    and codes (or the resource that proves a value), and the row fields a text filter reads."""

    def choices(self, flt: FilterLike, values: list[str]) -> dict[str, Any]: ...
    def text(self, flt: FilterLike) -> dict[str, Any]: ...


def text_terms(expression: str, prefixes: tuple[int, int] | None) -> str:
    """SQL for the distinct indexed terms of a text: lowercased, accents removed, split on non-alphanumerics;
    whole words (``prefixes`` None), or every prefix of a word of ``prefixes`` (shortest, longest) characters
    (a word shorter than the shortest: the word)."""
    words = (f"list_filter(regexp_split_to_array(lower(strip_accents(coalesce({expression}, ''))), '[^a-z0-9]+'), "
             f"lambda w: w <> '' AND length(w) <= {WORD_MAX})")
    if prefixes is None:
        return f"list_distinct({words})"
    shortest, longest = prefixes
    return (
        f"list_distinct(flatten(list_transform({words}, lambda w: "
        f"list_transform(range(least(length(w), {shortest}), least(length(w), {longest}) + 1), "
        "lambda n: left(w, n::INTEGER)))))"
    )


@dataclass(frozen=True)
class Unit:
    """What a bound counts: its landing-page words and the example its problem gives."""

    name: str
    example: str
    note: str

    def words(self, amount: int) -> str:
        return str(amount)


class Usd(Unit):
    def words(self, amount: int) -> str:
        for size, word in ((10**12, "trillion"), (10**9, "billion"), (10**6, "million")):
            if amount >= size and amount % (size // 10) == 0:
                return f"${amount / size:g} {word}"
        return f"${amount:,}"


USD = Usd("USD", "1500000000 or 1.5e9", "Whole USD.")
YEARS = Unit("year", "2015", "A year.")


class Kind:
    """A kind of filter. ``name`` labels it (query space, landing page); nothing tests it."""

    name = ""
    faceted = True
    """Whether listings count the filter's refinements in ``meta.facets``."""
    exact = True
    """Whether a value names the rows that have it (not a range or words): the plainest example of a filter."""

    def sql_value(self, flt: FilterLike) -> str:
        """SQL for a row's value of the filter (what the query index holds)."""
        return flt.column

    def sql_matches(self, flt: FilterLike) -> str:
        """SQL for the list of every value a row matches, plus NULL (= filter not applied)."""
        value = self.sql_value(flt)
        return f"CASE WHEN {flt.column} IS NULL THEN [NULL] ELSE [{value}, NULL] END"

    def typed(self, value: str) -> str | int:
        """A value as it is in URLs -> as ``meta.filters`` and the facets carry it."""
        return value

    def indexable(self, flt: FilterLike) -> bool:
        """Whether the route's query index can hold the filter."""
        return not flt.open

    def needs_index(self, flt: FilterLike) -> bool:
        """Whether some value of the filter alone has no file (so the route needs a query index)."""
        return not flt.published

    def index_entry(self, flt: FilterLike, found: Iterable[Any]) -> dict[str, Any]:
        """The filter's entry in the query index from each row's ``sql_value`` in the default order (read once, as
        they come): the values and each row's code into them (a list of codes for a filter of several values), in
        arrays (``compact``)."""
        return coded(found, flt.multi)

    def row_field(self, flt: FilterLike) -> str:
        """The row field (dotted into a struct) that carries the filter's value in memory."""
        return flt.column.strip('"')

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        """The filter's values for the resolvers (the query space): ``values`` are the ones with files."""
        return {"value": "choice", **vocabulary.choices(flt, values)}

    def openapi(self, flt: FilterLike, values: list[str], others: list[str]) -> tuple[dict[str, Any], str]:
        """The parameter's schema and what its description adds (``others``: values the dictionary allows that no
        row has)."""
        note = (" Through the front door any case, accents, the display name or a code (country: alpha-2, alpha-3 "
                "or name) are accepted; the files take the slug.")
        if others:
            note += (" The data dictionary's other values answer an empty list through the front door: "
                     + ", ".join(others) + ".")
        return {"type": "string", "enum": values}, note

    def published_values(self, values: list[str]) -> list[int] | None:
        """The values that have files, as OpenAPI's ``x-published-values`` lists them (None: the enum does)."""
        return None

    def landing(self, flt: FilterLike) -> tuple[list[tuple[str, str]], str]:
        """The landing page's allowed values (value, words) and its note on them."""
        values, note = self.values_words(flt)
        return values, note if flt.published else f"{note} Front door only.".strip()

    def values_words(self, flt: FilterLike) -> tuple[list[tuple[str, str]], str]:
        if isinstance(flt.domain, tuple) and flt.domain:
            return [(str(v), "") for v in flt.domain], ""
        return [], "Values present in the data."


class Category(Kind):
    """A slug among the values of a column (or of a list column: ``multi``)."""

    name = "category"

    def sql_matches(self, flt: FilterLike) -> str:
        if flt.multi:
            return f"list_append(list_distinct({flt.column}), NULL)"
        return super().sql_matches(flt)


@dataclass(frozen=True)
class Month(Category):
    """A month ``YYYY-MM``: every well-formed month is a value (one without rows answers an empty list)."""

    pattern: str = r"[0-9]{4}-(0[1-9]|1[0-2])"
    name = "month"

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        return {**super().describe(flt, values, vocabulary), "pattern": self.pattern}


class Number(Kind):
    """A number compared with a row's: ``compare`` is how (eq, ge, le)."""

    compare = "eq"
    unit: Unit = YEARS

    def typed(self, value: str) -> str | int:
        return int(value)

    def index_entry(self, flt: FilterLike, found: Iterable[Any]) -> dict[str, Any]:
        return {"numbers": numbered(found)}

    def published_values(self, values: list[str]) -> list[int] | None:
        return [int(v) for v in values]

    def invalid(self) -> list[str]:
        """The reason and the detail of a problem about a value that is not a number."""
        return [f"a non-negative number (e.g. {self.unit.example})", "`{name}`: {raw} is not a non-negative number"]

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        return {"value": "number", "compare": self.compare, "pattern": UNSIGNED, "round": None, "max": MAX_BOUND,
                "invalid": self.invalid()}


@dataclass(frozen=True)
class Year(Number):
    """A year: of a date column (``date``; rows carry it as the field ``year``), or a column of years."""

    date: bool = True
    name = "year"

    def sql_value(self, flt: FilterLike) -> str:
        return f"year({flt.column})" if self.date else flt.column

    def row_field(self, flt: FilterLike) -> str:
        return "year" if self.date else flt.column

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        return {**super().describe(flt, values, vocabulary), "pattern": "[0-9]{4}",
                "invalid": ["a year, four digits", "`{name}`: {raw} is not a year"],
                "values": sorted(int(v) for v in values)}

    def openapi(self, flt: FilterLike, values: list[str], others: list[str]) -> tuple[dict[str, Any], str]:
        return {"type": "integer", "minimum": 1000, "maximum": 9999}, (
            " Years with rows (a file each): " + ", ".join(str(v) for v in values) + "; through the front door "
            "another year answers an empty list." if flt.published else "")

    def values_words(self, flt: FilterLike) -> tuple[list[tuple[str, str]], str]:
        return [], "A four-digit year present in the data."


@dataclass(frozen=True)
class Bound(Number):
    """An inclusive lower bound on a number in ``unit``: a row matches when its number is at least the value. Its
    files are the ``domain``'s rungs (a row is in each rung at or below its number); any other value is answered
    by the front door from the next rung below."""

    unit: Unit = USD
    name = "ladder"
    exact = False
    compare = "ge"
    rounding = "ceil"
    """The unit's numbers are whole: a bound is the whole number at or above it (exact, and shown as such)."""

    def sql_matches(self, flt: FilterLike) -> str:
        rungs = ", ".join(str(v) for v in flt.domain)
        return f"list_append(list_filter([{rungs}], lambda t: {self._holds('t', flt.column)}), NULL)"

    @staticmethod
    def _holds(rung: str, column: str) -> str:
        return f"{rung} <= {column}"

    def needs_index(self, flt: FilterLike) -> bool:
        return True

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        return {**super().describe(flt, values, vocabulary), "round": self.rounding,
                "rungs": sorted(int(v) for v in flt.domain)}

    def openapi(self, flt: FilterLike, values: list[str], others: list[str]) -> tuple[dict[str, Any], str]:
        word = "non-negative number, an exact inclusive bound" if self.compare == "ge" else (
            "non-negative number, an exact inclusive upper bound")
        published = "; the files and rewrite-only hosts take the ladder values " + ", ".join(values)
        return {"type": "number", "minimum": 0}, (
            f" The front door takes any {word}{published if flt.published else ''}.")

    def values_words(self, flt: FilterLike) -> tuple[list[tuple[str, str]], str]:
        return [(str(v), self.unit.words(int(v))) for v in flt.domain], self.unit.note


@dataclass(frozen=True)
class UpperBound(Bound):
    """An inclusive upper bound, beside a ``Bound``: a row matches when its number is at most the value (its files
    are the rungs at or above each row's number; another value is answered from the next rung above)."""

    name = "upper"
    compare = "le"
    rounding = "floor"

    @staticmethod
    def _holds(rung: str, column: str) -> str:
        return f"{rung} >= {column}"


@dataclass(frozen=True)
class Text(Kind):
    """Words of a text (``column``: an SQL expression): whole words, or with ``prefixes`` word prefixes of that many
    characters. Combines with the route's other filters as ``combinable`` says; never faceted."""

    name = "text"
    faceted = False
    exact = False

    def sql_value(self, flt: FilterLike) -> str:  # the first characters of each word (the word, when shorter)
        return text_terms(flt.column, (INDEX_PREFIX, INDEX_PREFIX))

    def sql_matches(self, flt: FilterLike) -> str:
        return f"list_append({text_terms(flt.column, flt.prefixes)}, NULL)"

    def indexable(self, flt: FilterLike) -> bool:
        return flt.prefixes is not None and not flt.open

    def needs_index(self, flt: FilterLike) -> bool:
        return flt.prefixes is not None

    def index_entry(self, flt: FilterLike, found: Iterable[Any]) -> dict[str, Any]:
        return coded(found, True)

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        return {"value": "words", **vocabulary.text(flt), "word_max": WORD_MAX, "max_length": TEXT_MAX,
                "prefixes": list(flt.prefixes) if flt.prefixes else None, "index_prefix": INDEX_PREFIX,
                "too_long": [f"at most {TEXT_MAX} characters", "`{name}` is too long"],
                "no_word": ["no letters or digits", "`{name}`: {raw} has no word"]}

    def openapi(self, flt: FilterLike, values: list[str], others: list[str]) -> tuple[dict[str, Any], str]:
        return {"type": "string", "pattern": WORD_PATTERN, "minLength": 1, "maxLength": TEXT_MAX}, (
            " Through the front door: one or several words in any case and accents (`q=û` is the word u; each must "
            "match; glued together they may match one word), any prefix length on /api/search, with any other "
            "filter and sort; a value without a letter or digit is a 400.")

    def values_words(self, flt: FilterLike) -> tuple[list[tuple[str, str]], str]:
        return [], ("Any indexed word prefix present in the data." if flt.prefixes else
                    "Any whole word of a name present in the data.")


@dataclass(frozen=True)
class Since(Kind):
    """An inclusive lower bound on a date column: a row matches when its date is the value (``YYYY-MM-DD``) or
    later. No file holds a day: the front door answers it from the query index, which holds each row's day as the
    number ``YYYYMMDD``. Never faceted."""

    name = "since"
    faceted = False
    exact = False
    pattern = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"

    def sql_value(self, flt: FilterLike) -> str:
        return f"strftime({flt.column}, '%Y%m%d')::INTEGER"

    def needs_index(self, flt: FilterLike) -> bool:
        return True

    def index_entry(self, flt: FilterLike, found: Iterable[Any]) -> dict[str, Any]:
        return {"numbers": numbered(found)}

    def describe(self, flt: FilterLike, values: list[str], vocabulary: Vocabulary) -> dict[str, Any]:
        return {"value": "date", "compare": "ge", "pattern": self.pattern,
                "invalid": ["a day, YYYY-MM-DD (e.g. 2025-06-01)", "`{name}`: {raw} is not a day YYYY-MM-DD"]}

    def openapi(self, flt: FilterLike, values: list[str], others: list[str]) -> tuple[dict[str, Any], str]:
        return {"type": "string", "format": "date"}, " A day, YYYY-MM-DD: the rows dated on it or later."

    def values_words(self, flt: FilterLike) -> tuple[list[tuple[str, str]], str]:
        return [], "A day, YYYY-MM-DD: on it or later."


WORD_PATTERN = r"[^\u0000-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]"
"""The OpenAPI pattern of a text query: an ASCII letter or digit, or any other character than ASCII's (``û`` folds
to u). The front door then takes any value whose characters, accents dropped, make a word; one where none does
(``ß``, ``×``) answers a 400 naming ``q``. Not the exact set of folding characters: written with non-ASCII
characters, a pattern is one that generators reading it as ASCII (Schemathesis) cannot draw from."""

CATEGORY = Category()
MONTH = Month()
YEAR = Year()
LADDER_USD = Bound(USD)
TEXT = Text()
SINCE = Since()
KINDS: tuple[type[Kind], ...] = (Category, Month, Year, Bound, UpperBound, Text, Since)
"""Every kind (the docs' recipe and the tests list them)."""
