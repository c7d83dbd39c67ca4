"""Problems in the input data: ``Issue`` (file, line, column, reason) and ``DataError``, which lists them root
causes first."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Issue:
    """One problem in the input data."""

    file: str
    line: int
    column: str
    reason: str
    rank: int = field(default=1, compare=False)
    """0: the file cannot be read whole; 1: a problem of one row; 2: a consequence of a rank-0 problem."""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: column {self.column}: {self.reason}" if self.column else f"{where}: {self.reason}"


class DataError(Exception):
    """The input dataset is invalid; ``issues`` lists every problem found."""

    def __init__(self, issues: list[Issue]) -> None:
        self.issues = sorted(issues, key=lambda issue: (issue.rank, issue))
        shown = "\n".join(f"  {issue}" for issue in self.issues[:200])
        more = f"\n  ... and {len(self.issues) - 200} more" if len(self.issues) > 200 else ""
        super().__init__(f"{len(self.issues)} problem(s) in the dataset:\n{shown}{more}")
