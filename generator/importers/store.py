"""A canonical folder held in memory as CSV cells, with the provenance of every value, read and written back.

Every table's header comes from its pydantic model (``generator.dataset.schema``), so a column added there is written
(empty) without touching the importers. Rows are written sorted by primary key, with ``\\n`` line ends and
minimal quoting: the same records always give the same bytes, and a file whose bytes would not change is not
rewritten.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from generator.dataset.schema import CHANGES, PROVENANCE, TABLES, Table
from generator.importers.base import SourceError

RECORDS: tuple[Table, ...] = tuple(t for t in TABLES if t not in (PROVENANCE, CHANGES))
"""The tables of records; ``provenance`` is kept beside them (``Store.provenance``, ``Store.places``); ``changes``
(written by ``changes record``) is left as the folder has it."""
COLUMNS: dict[str, list[str]] = {t.name: list(t.model.model_fields) for t in TABLES}
PLACEHOLDER_SOURCE = "import"
"""Owner of the values ``merge`` fills in where no source said anything (``unclassified``, ``xx``...)."""
MAX_PLACES = 5
"""Places kept per record and source (``provenance.csv`` ``places``): the first, then ``+`` when there are more."""
REPEATED = "repeated-rows:"
"""Provenance token ``repeated-rows:N``: N further rows of the source repeated the record (same company, date and
amount) and were merged into it instead of counted again."""


def record_key(table: Table, row: dict[str, str]) -> str:
    return "|".join(row[c] for c in table.key)


def _sort_key(key: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in key.split("|"))


@dataclass
class Store:
    rows: dict[str, dict[str, dict[str, str]]] = field(default_factory=lambda: {t.name: {} for t in RECORDS})
    """table -> record key -> column -> cell ('' is null)."""
    provenance: dict[tuple[str, str], dict[tuple[str, str], set[str]]] = field(default_factory=dict)
    """(table, record key) -> (source, basis) -> columns whose value that source gave."""
    dataset: dict[str, object] | None = None
    repeated: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    """(table, record key, source, basis) -> rows of that source repeating the record (``REPEATED``)."""
    counting: set[tuple[str, str, str, str]] = field(default_factory=set)
    extra: dict[str, str] = field(default_factory=dict)
    """Further files of the folder by name (the identity review), written with the tables."""
    place: str = ""
    """Where the fact being merged was read (``file:line``, ``file#key``): noted for every record it touches."""
    places: dict[tuple[str, str], dict[tuple[str, str], Places]] = field(default_factory=dict)
    """(table, record key) -> (source, basis) -> where that source gave the record (``_note``)."""

    # --- provenance ----------------------------------------------------------------------------------------------

    def owner(self, table: str, key: str, column: str) -> tuple[str, str] | None:
        for owner, columns in self.provenance.get((table, key), {}).items():
            if column in columns:
                return owner
        return None

    def claim(self, table: str, key: str, column: str, source: str, basis: str) -> None:
        entries = self.provenance.setdefault((table, key), {})
        for owner, columns in list(entries.items()):
            if column in columns and owner != (source, basis):
                columns.discard(column)
                if not columns:
                    del entries[owner]
        entries.setdefault((source, basis), set()).add(column)
        self._note(table, key, source, basis, gave=True)

    def mention(self, table: str, key: str, source: str, basis: str) -> None:
        """Record that ``source`` describes this record (column ``*``), whether or not it gave a value that stayed."""
        self.provenance.setdefault((table, key), {}).setdefault((source, basis), set()).add("*")
        self._note(table, key, source, basis)

    def _note(self, table: str, key: str, source: str, basis: str, gave: bool = False) -> None:
        """The current ``place`` is one where ``source`` gives this record: noted where it gives a value that
        stands (``gave``: a new one, or one that changed) and where it first describes the record. A record
        read again as it was notes nothing, so a re-import of the same files changes no place, whatever order
        its records are found in."""
        if not self.place or source == PLACEHOLDER_SOURCE:
            return
        places = self.places.setdefault((table, key), {})
        if gave or (source, basis) not in places:
            places.setdefault((source, basis), Places()).add(self.place)

    def move(self, table: str, key: str, to_key: str, values: bool = True) -> None:
        """The record ``key`` is now ``to_key`` (re-keyed, or folded into another): its provenance goes with it;
        ``values=False``: the values stay the other record's, whose sources now also describe it (``*``)."""
        for (source, basis), columns in self.provenance.pop((table, key), {}).items():
            kept = self.provenance.setdefault((table, to_key), {}).setdefault((source, basis), set())
            kept.update(columns if values else {"*"})
        for owner, places in self.places.pop((table, key), {}).items():
            self.places.setdefault((table, to_key), {}).setdefault(owner, Places()).extend(places)

    def drop(self, table: str, key: str) -> None:
        """The record is gone: so is what was noted of it."""
        self.provenance.pop((table, key), None)
        self.places.pop((table, key), None)

    def release(self, table: str, key: str, column: str) -> None:
        """No source gives this column's value any more (it was emptied)."""
        entries = self.provenance.get((table, key), {})
        for owner, columns in list(entries.items()):
            columns.discard(column)
            if not columns:
                del entries[owner]

    def repeat(self, table: str, key: str, source: str, basis: str) -> None:
        """One more row of ``source`` repeated this record; the count starts afresh in each import."""
        entry = (table, key, source, basis)
        if entry not in self.counting:
            self.counting.add(entry)
            self.repeated[entry] = 0
        self.repeated[entry] += 1

    def sources_of(self, table: str, key: str) -> set[str]:
        return {source for source, _ in self.provenance.get((table, key), {}) if source != PLACEHOLDER_SOURCE}

    # --- reading -------------------------------------------------------------------------------------------------

    @classmethod
    def load(cls, folder: Path) -> Store:
        store = cls()
        for table in RECORDS:
            for _, row in _read(folder / table.file_name, COLUMNS[table.name]):
                store.rows[table.name][record_key(table, row)] = row
        for _, row in _read(folder / PROVENANCE.file_name, COLUMNS["provenance"]):
            entries = store.provenance.setdefault((row["table"], row["record"]), {})
            fields = set(row["fields"].split(";"))
            for token in [f for f in fields if f.startswith(REPEATED)]:
                fields.discard(token)
                store.repeated[(row["table"], row["record"], row["source"], row["basis"])] = int(token[len(REPEATED):])
            entries[(row["source"], row["basis"])] = fields
            if row["places"]:
                owner = (row["source"], row["basis"])
                store.places.setdefault((row["table"], row["record"]), {})[owner] = Places.parse(row["places"])
        info = folder / "dataset.json"
        if info.exists():
            try:
                store.dataset = json.loads(info.read_text(encoding="utf-8"))
            except json.JSONDecodeError as error:
                raise SourceError(info, error.lineno, f"malformed JSON: {error.msg}") from None
        return store

    # --- writing -------------------------------------------------------------------------------------------------

    def render(self) -> dict[str, str]:
        """File name -> text of every file of the folder."""
        files = {}
        for table in RECORDS:
            rows = self.rows[table.name]
            files[table.file_name] = _csv(COLUMNS[table.name], (rows[k] for k in sorted(rows, key=_sort_key)))
        prov_rows = []
        for (table, key), entries in self.provenance.items():
            if key not in self.rows[table]:
                continue
            for (source, basis), columns in entries.items():
                if columns:
                    repeats = self.repeated.get((table, key, source, basis), 0)
                    fields = ";".join(sorted(columns | ({f"{REPEATED}{repeats}"} if repeats else set())))
                    places = self.places.get((table, key), {}).get((source, basis))
                    prov_rows.append({"table": table, "record": key, "source": source, "basis": basis,
                                      "fields": fields, "places": places.render() if places else ""})
        prov_rows.sort(key=lambda r: (r["table"], _sort_key(r["record"]), r["source"], r["basis"]))
        files[PROVENANCE.file_name] = _csv(COLUMNS["provenance"], prov_rows)
        files.update(self.extra)
        if self.dataset is not None:
            files["dataset.json"] = json.dumps(self.dataset, indent=2, ensure_ascii=False) + "\n"
        return files

    def write(self, folder: Path, files: dict[str, str] | None = None) -> list[str]:
        """Write every file (``render()`` unless given) whose bytes change, each through a temporary file and a
        rename; return their names."""
        folder.mkdir(parents=True, exist_ok=True)
        changed = []
        for name, text in (self.render() if files is None else files).items():
            path = folder / name
            data = text.encode("utf-8")
            if path.exists() and path.read_bytes() == data:
                continue
            temporary = folder / f".{name}.importing"
            temporary.write_bytes(data)
            os.replace(temporary, path)
            changed.append(name)
        return changed


@dataclass(slots=True)
class Places:
    """Where one source gave one record: the first ``MAX_PLACES`` distinct places, and whether there were more."""

    shown: list[str] = field(default_factory=list)
    more: bool = False

    def add(self, place: str) -> None:
        if any(place == s or place.startswith((f"{s}#", f"{s}:")) for s in self.shown):
            return  # one record gives several values, or a place within a document already named
        if len(self.shown) < MAX_PLACES:
            self.shown.append(place)
        else:
            self.more = True

    def extend(self, other: Places) -> None:
        for place in other.shown:
            self.add(place)
        self.more = self.more or other.more

    def render(self) -> str:
        return ";".join(self.shown + (["+"] if self.more else []))

    @classmethod
    def parse(cls, text: str) -> Places:
        parts = text.split(";")
        more = parts[-1] == "+"
        return cls(parts[:-1] if more else parts, more)


def _csv(columns: list[str], rows: object) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:  # type: ignore[attr-defined]
        writer.writerow([row[c] for c in columns])
    return buffer.getvalue()


def _read(path: Path, columns: list[str]) -> list[tuple[int, dict[str, str]]]:
    """Rows of a canonical CSV; its header must be the model's columns, of which trailing ones may be left out (as
    the loader allows: they read empty); a missing file has no rows."""
    if not path.exists():
        return []
    text = path.read_bytes().decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header = next(reader, None)
    if header is None:
        return []
    if not header or header != columns[: len(header)]:
        raise SourceError(path, 1, f"header must be {','.join(columns)} (found {','.join(header)})")
    rows = []
    for values in reader:
        if not values:
            continue
        if len(values) != len(header):
            raise SourceError(path, reader.line_num, f"expected {len(header)} fields, found {len(values)}")
        rows.append((reader.line_num, dict.fromkeys(columns, "") | dict(zip(header, values, strict=True))))
    return rows
