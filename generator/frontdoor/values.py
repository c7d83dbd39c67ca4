"""A filter's values as the query space describes them (``generator.api.kinds`` writes the description), read by
three primitives that both front doors implement once (the JavaScript ones in ``js/frontdoor.mjs``, line by line):

- ``choice``: a slug among the filter's values, by any spelling the description lists, a resource that proves it
  (``exists``), or a well-formed value (``pattern``); a row matches when its field equals it (``multi``: holds it);
- ``number``: a non-negative number (``pattern``, rounded as ``round`` says, at most ``max``); a row matches when
  its number compares with it as ``compare`` says (eq, ge, le); ``rungs`` are the values that have files;
- ``date``: a day ``YYYY-MM-DD`` (a real one); a row matches when its date compares with it as ``compare`` says;
- ``words``: a text query; a row matches when its words do (``text_fields``, ``prefixes``).

Each primitive says how a raw value is parsed (or which problem it gets, in the description's words), which
published file holds exactly that value, which published superset holds it, whether a row matches it, which rows
of the query index match it, and how many rows each facet value counts.
"""

from __future__ import annotations

import datetime as dt
import json
import operator
import re
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Protocol

from generator.frontdoor.common import Fetch, Invalid, query_words, words

Row = dict[str, object]
Mask = list[bool]
COMPARE: dict[str, Callable[[object, object], bool]] = {"eq": operator.eq, "ge": operator.ge, "le": operator.le}
ROUNDING = {"ceil": ROUND_CEILING, "floor": ROUND_FLOOR}
LISTED_MAX = 25
"""A filter with at most this many values lists them all in the problem of an unknown value."""


def get(row: Row, dotted: str) -> object:
    value: object = row
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def problem(flt: dict, message: list[str], raw: str) -> Invalid:
    """The problem of a bad value: the description's reason and detail (``{name}``, ``{raw}``: its repr)."""
    reason, detail = message
    return Invalid([{"name": flt["name"], "reason": reason}],
                   detail.replace("{name}", flt["name"]).replace("{raw}", repr(raw)))


def unknown_hint(flt: dict, folded: str, where: str) -> str:
    """What a 400 for an unknown value says: the values it may have meant (another source's word for one, or those
    its separator-free spelling starts), every value when there are few (each as the dictionary writes it: ``S-1/A``),
    and where they are all listed."""
    canonical = sorted(set(flt.get("values", {}).values()))
    shown = flt.get("shown", {})
    compact = folded.replace("-", "")
    suggested = flt.get("suggestions", {}).get(compact)
    meant = [suggested] if suggested else [v for v in canonical if compact and v.replace("-", "").startswith(compact)]
    hint = f"did you mean {' or '.join(f'`{shown.get(v, v)}`' for v in meant)}? " if 0 < len(meant) <= 3 else ""
    if 0 < len(canonical) <= LISTED_MAX:
        return f"{hint}one of {', '.join(shown.get(v, v) for v in canonical)}; {where}"
    return hint + where


def text_matches(query: list[str], row: Row, fields: list[str], prefix: bool) -> bool:
    """Whole words (``prefix`` False): every word of the query is a word of a field, or the query's words
    glued together are one (``open ai`` finds OpenAI). Search (``prefix``): every word starts a word of a field,
    or the glued words do."""
    terms = [t for f in fields if (value := row.get(f)) is not None for t in words(str(value))]

    def hit(word: str) -> bool:
        return any(t.startswith(word) for t in terms) if prefix else word in terms

    return all(hit(w) for w in query) or hit("".join(query))


def all_of(masks: list[Mask], rows: int) -> Mask:
    """The rows every mask holds (never changed by its callers: one mask is its own conjunction)."""
    if len(masks) == 1:
        return masks[0]
    out = [True] * rows
    for mask in masks:
        out = [a and b for a, b in zip(out, mask, strict=True)]
    return out


def _tally(keys: list[object], counts: dict[object, int]) -> None:
    for key in keys:
        counts[key] = counts.get(key, 0) + 1


class Slugs(Protocol):
    def __call__(self, text: str) -> str: ...


class Choice:
    several = False

    def parse(self, flt: dict, raw: str, fetch: Fetch, slugify: Slugs, where: str) -> object:
        folded = slugify(raw)
        compact = folded.replace("-", "")  # separators dropped: "ecommerce", "seriesA", "U.K."
        padded = re.sub(r"-([0-9])$", r"-0\1", folded)  # a month written 2025-7 is 2025-07
        if "exists" in flt:  # a resource by any of its keys (``company=1``, ``company=Stripe``): the files' key
            found = fetch(flt["exists"].replace("{value}", folded)) if folded else None
            if found is not None:
                return json.loads(found)["data"][flt["canonical"]]
        elif folded in flt["values"]:
            return flt["values"][folded]
        elif compact in flt["values"]:
            return flt["values"][compact]
        elif "pattern" in flt and re.fullmatch(flt["pattern"], padded):
            return padded
        raise Invalid([{"name": flt["name"], "reason": f"unknown value {raw!r}: {unknown_hint(flt, folded, where)}"}],
                      f"`{flt['name']}`: unknown value {raw!r}")

    def exact(self, flt: dict, value: object) -> str | None:
        """The published file's value that holds exactly this value's rows, or None."""
        return str(value) if flt["files"] else None

    def base(self, flt: dict, value: object) -> object | None:
        """The value of the published file that holds every row of this value's and fewest others, or None."""
        return value if flt["files"] else None

    def indexable(self, flt: dict, value: object) -> bool:
        """Whether the query index answers this value."""
        return "exists" not in flt

    def keep(self, flt: dict, value: object, row: Row) -> bool:
        """Whether a row matches (a field rows do not carry: held by every base, so yes)."""
        if flt["field"] is None:
            return True
        found = get(row, flt["field"])
        return isinstance(found, list) and value in found if flt["multi"] else found == value

    def mask(self, entry: dict, flt: dict, value: object) -> Mask:
        values = entry["values"]
        if str(value) not in values:
            return [False] * len(entry["codes"])
        code = values.index(str(value))
        if flt["multi"]:
            return [code in codes for codes in entry["codes"]]
        return [c == code for c in entry["codes"]]

    def counts(self, entry: dict, flt: dict, mask: Mask) -> dict[object, int]:
        """How many rows of ``mask`` each value matches."""
        counts: dict[object, int] = {}
        for found, kept in zip(entry["codes"], mask, strict=True):
            if kept and found is not None:
                _tally([entry["values"][c] for c in (found if isinstance(found, list) else [found])], counts)
        return counts

    def row_counts(self, flt: dict, rows: list[Row]) -> dict[object, int]:
        """How many of ``rows`` each value matches."""
        counts: dict[object, int] = {}
        for row in rows:
            found = get(row, flt["field"])
            if flt["multi"]:
                _tally(sorted(set(found)) if isinstance(found, list) else [], counts)  # type: ignore[type-var]
            elif found is not None:
                _tally([found], counts)
        return counts


class Number(Choice):
    def parse(self, flt: dict, raw: str, fetch: Fetch, slugify: Slugs, where: str) -> object:
        text = raw.strip()
        if not re.fullmatch(flt["pattern"], text):  # ASCII digits only ("²²²²" is not a year)
            raise problem(flt, flt["invalid"], raw)
        number = Decimal(text)
        if flt["round"]:  # a bound on whole numbers is the whole number it means (exact, and shown as such)
            number = number.to_integral_value(rounding=ROUNDING[flt["round"]])
        return int(min(number, Decimal(flt["max"])))

    def _rung(self, flt: dict, value: object) -> int | None:
        """The rung whose rows hold every row the value matches and fewest others."""
        holding = [r for r in flt["rungs"] if COMPARE[flt["compare"]](value, r)]
        if not holding:
            return None
        return max(holding) if flt["compare"] == "ge" else min(holding)

    def exact(self, flt: dict, value: object) -> str | None:
        if "rungs" in flt and value not in flt["rungs"]:
            return None
        return super().exact(flt, value)

    def base(self, flt: dict, value: object) -> object | None:
        return self._rung(flt, value) if "rungs" in flt and flt["files"] else super().base(flt, value)

    def keep(self, flt: dict, value: object, row: Row) -> bool:
        if flt["field"] is None:
            return True
        found = get(row, flt["field"])
        return found is not None and COMPARE[flt["compare"]](Decimal(str(found)), value)

    def mask(self, entry: dict, flt: dict, value: object) -> Mask:
        return [n is not None and COMPARE[flt["compare"]](n, value) for n in entry["numbers"]]

    def counts(self, entry: dict, flt: dict, mask: Mask) -> dict[object, int]:
        counts: dict[object, int] = {}
        for found, kept in zip(entry["numbers"], mask, strict=True):
            if kept and found is not None:
                _tally(self._keys(flt, found), counts)
        return counts

    def row_counts(self, flt: dict, rows: list[Row]) -> dict[object, int]:
        counts: dict[object, int] = {}
        for row in rows:
            found = get(row, flt["field"])
            if found is not None:
                _tally(self._keys(flt, Decimal(str(found))), counts)
        return counts

    @staticmethod
    def _keys(flt: dict, found: object) -> list[object]:
        """The facet values a row's number counts for: each rung it is in, or the number itself."""
        if "rungs" in flt:
            return [r for r in flt["rungs"] if COMPARE[flt["compare"]](found, r)]
        return [int(found)]  # type: ignore[call-overload]


class Day(Number):
    """A day ``YYYY-MM-DD``, compared with a row's ISO date (the query index holds each row's day as ``YYYYMMDD``)."""

    def parse(self, flt: dict, raw: str, fetch: Fetch, slugify: Slugs, where: str) -> object:
        text = raw.strip()
        if not re.fullmatch(flt["pattern"], text):
            raise problem(flt, flt["invalid"], raw)
        try:
            dt.date.fromisoformat(text)
        except ValueError:  # 2025-02-30
            raise problem(flt, flt["invalid"], raw) from None
        return text

    def keep(self, flt: dict, value: object, row: Row) -> bool:
        found = get(row, flt["field"])
        return found is not None and COMPARE[flt["compare"]](str(found), value)

    def mask(self, entry: dict, flt: dict, value: object) -> Mask:
        day = int(str(value).replace("-", ""))
        return [n is not None and COMPARE[flt["compare"]](n, day) for n in entry["numbers"]]


class Words(Choice):
    several = True
    """A text value is several words: a published superset per word tried (``alternatives``)."""

    def parse(self, flt: dict, raw: str, fetch: Fetch, slugify: Slugs, where: str) -> object:
        if len(raw) > flt["max_length"]:
            raise problem(flt, flt["too_long"], raw)
        found = query_words(raw, flt["optional_words"])
        if not found:
            raise problem(flt, flt["no_word"], raw)
        return found

    def _bounds(self, flt: dict) -> tuple[int, int]:
        return tuple(flt["prefixes"] or (1, flt["word_max"]))  # type: ignore[return-value]

    def exact(self, flt: dict, value: object) -> str | None:
        shortest, longest = self._bounds(flt)
        if not flt["files"] or len(value) != 1 or not shortest <= len(value[0]) <= longest:  # type: ignore[arg-type]
            return None
        return value[0]  # type: ignore[index]

    def base(self, flt: dict, value: object) -> object | None:
        return None  # a word shorter than the files' is answered by the other filters' files

    def alternatives(self, flt: dict, value: list[str], word: str | None = None) -> list[str] | None:
        """The words whose files hold the answer between them (``word``, else the longest word; the words glued), or
        None when a word is shorter than any indexed prefix (every row is a candidate)."""
        shortest, longest = self._bounds(flt)
        tried = [word or max(value, key=len), "".join(value)]
        found = sorted({w[:longest] for w in tried if len(w) >= shortest})
        if not flt["files"] or (len(found) < 2 and flt["prefixes"] and any(len(w) < shortest for w in tried)):
            return None
        return found

    def filed(self, flt: dict, value: list[str]) -> list[str]:
        """The query's words as the files name them, the longest first (then as written): each one's files hold
        every row that matches all the words."""
        shortest, longest = self._bounds(flt)
        return list(dict.fromkeys(w[:longest] for w in sorted(value, key=len, reverse=True) if len(w) >= shortest))

    def indexable(self, flt: dict, value: object) -> bool:
        """A prefix query whose words, and the words glued together, are all shorter than the shortest indexed
        prefix (longer ones have files of their own; the index holds word beginnings only)."""
        return bool(flt["prefixes"]) and len("".join(value)) < flt["prefixes"][0]  # type: ignore[arg-type]

    def keep(self, flt: dict, value: object, row: Row) -> bool:
        return text_matches(value, row, flt["text_fields"], bool(flt["prefixes"]))  # type: ignore[arg-type]

    def mask(self, entry: dict, flt: dict, value: object) -> Mask:
        """Every word starts a word of the row, or the words glued together do."""
        each = all_of([_starting(entry, w) for w in value], len(entry["codes"]))  # type: ignore[attr-defined]
        glued = _starting(entry, "".join(value))  # type: ignore[arg-type]
        return [a or b for a, b in zip(each, glued, strict=True)]


def _starting(entry: dict, word: str) -> Mask:
    codes = {i for i, v in enumerate(entry["values"]) if v.startswith(word)}
    return [not codes.isdisjoint(found) for found in entry["codes"]]


PRIMITIVES: dict[str, Choice] = {"choice": Choice(), "number": Number(), "date": Day(), "words": Words()}


def of(flt: dict) -> Choice:
    """The primitive that reads a filter's values."""
    return PRIMITIVES[flt["value"]]
