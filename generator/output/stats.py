"""What a build wrote, counted: files and bytes by kind (listing, detail, export, document, bookkeeping) and by
endpoint, as each file is recorded (``staged.StagedFiles``)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class WriteStats:
    files: int = 0
    bytes: int = 0
    written: int = 0
    """Files whose content changed or that are new (the rest were carried over by hard link)."""
    groups: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """(kind, endpoint) -> [files, bytes] (``kind_of``, ``endpoint_of``), counted as each file is recorded."""

    def count(self, kind: str, path: str, size: int) -> None:
        """Count one file of ``kind`` (see ``kind_of``) at ``path``."""
        self.files += 1
        self.bytes += size
        counts = self.groups.get((kind, endpoint_of(path)))
        if counts is None:
            counts = self.groups[kind, endpoint_of(path)] = [0, 0]
        counts[0] += 1
        counts[1] += size

    def add(self, other: WriteStats) -> None:
        self.files += other.files
        self.bytes += other.bytes
        self.written += other.written
        for group, (files, size) in other.groups.items():
            counts = self.groups.setdefault(group, [0, 0])
            counts[0] += files
            counts[1] += size


LISTING_UNIT = "listing:"
"""The prefix of a listing route's unit (``listing:<route>``)."""
BOOKKEEPING = "bookkeeping"
"""The kind of the generator's own files in the output (marker, digest manifest): dotfiles no deploy publishes."""


def kind_of(path: str, unit: str) -> str:
    """What a file is, by its unit: a listing page, a detail (profile), an export, a document (OpenAPI, landing
    page, problems) or bookkeeping."""
    if path.startswith("."):
        return BOOKKEEPING
    if unit.startswith(LISTING_UNIT):
        return "listing"
    return "export" if unit.startswith("export/") else "detail" if unit else "document"


def endpoint_of(path: str) -> str:
    """``api/<endpoint>`` (a folder or a file), or the first part of a path outside ``api/``."""
    if path.startswith("api/"):
        end = path.find("/", 4)
        return path if end < 0 else path[:end]
    return path.split("/", 1)[0]
