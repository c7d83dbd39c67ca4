"""What a failed build says: a render task that failed, named (``TaskError``: the route, the task's unit of it and
the root cause), a worker's check of a table that failed (``CheckError``), an operating-system error in one line
(``os_error_message``), each with what became of the previous output (``output_state``); reported once, as soon as
the build fails (``Once``, ``reported``)."""

from __future__ import annotations

import contextlib
import errno
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor
from pathlib import Path

from generator.api.registry import DETAIL_ROUTES, EXPORT_ROUTE, LIST_ROUTES
from generator.output.staged import OutputError
from generator.pipeline.work import Task


def describe(task: Task) -> str:
    """The task as a user knows it: the route's path and name, and the task's unit of the route."""
    name, number, count = task
    if name == EXPORT_ROUTE.name:
        return f"{EXPORT_ROUTE.path} (the exports: every table in every format, the archives and the manifest)"
    for detail in DETAIL_ROUTES:
        if detail.name == name:
            keys = "|".join(detail.key_names)
            return (f"{detail.path}/{{{keys}}} (detail route `{name}`, shard {number + 1} of {count} of its resources "
                    f"in order of {detail.order})")
    path = next((route.path for route in LIST_ROUTES if route.name == name), "?")
    return f"{path} (listing route `{name}`, all its pages)"


def cause_of(error: BaseException) -> str:
    """The exception's type (``duckdb.OutOfMemoryException``, ``ValueError``) and the first line of its message."""
    kind = type(error)
    module = kind.__module__.lstrip("_")  # DuckDB's exceptions live in ``_duckdb``: users know ``duckdb``
    name = kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{name}: {lines[0].strip()}" if lines else name


class StageFailure(OutputError):
    """A unit of a build's work failed: says which (``what``) and why (``cause_of``: the root cause, as it was raised
    in whichever process ran it); ``outcome``, set by the build, says what became of the previous output. An
    ``OutputError``: the build could not write its output (an operating-system error in a task is one too)."""

    def __init__(self, what: str, cause: BaseException, note: str = "") -> None:
        super().__init__(what, cause)
        self.what, self.cause, self.note = what, cause, note
        self.outcome = ""

    def __str__(self) -> str:
        died = ("a worker process died (killed, perhaps for memory) while it ran this task or another one; "
                if isinstance(self.cause, BrokenExecutor) else "")
        note = f" ({self.note})" if self.note else ""
        outcome = f"; {self.outcome}" if self.outcome else ""
        cause = _os_error(self.cause) if isinstance(self.cause, OSError) else cause_of(self.cause)
        return f"{self.what} failed: {died}{cause}{note}{outcome}"


class TaskError(StageFailure):
    """A render task failed (``describe``)."""

    def __init__(self, task: Task, cause: BaseException, note: str = "") -> None:
        super().__init__(f"render task {describe(task)}", cause, note)
        self.task = task


class CheckError(StageFailure):
    """A worker's check of a table failed for a cause other than its data (whose problems the validation reports
    whole, file, line and column)."""

    def __init__(self, table: str, file: str, cause: BaseException, note: str = "") -> None:
        super().__init__(f"checking table `{table}` ({file})", cause, note)


def os_error_message(error: OSError, out: Path, intact: bool, marker: str) -> str:
    """``error`` in one line, with what became of the previous output in ``out`` (``marker``: its marker file)."""
    return f"build failed: {_os_error(error)}; {output_state(out, intact, marker)}"


def _os_error(error: OSError) -> str:
    what = error.strerror or str(error)
    if error.errno == errno.ENOSPC:
        what = "the disk is full (no space left on device)"
    return what + (f" ({error.filename})" if error.filename else "")


def output_state(out: Path, intact: bool, marker: str) -> str:
    """What a failed build left in ``out``: ``intact``, the previous output (if it had one: its ``marker`` file)."""
    try:  # an output this generator made has its marker; the build failed before swapping in a new one
        previous = (out / marker).is_file()
    except OSError:
        previous = True
    if not intact:
        return f"{out} holds the new output"
    if previous:
        return f"the previous output in {out} is intact"
    return f"there was no previous output in {out}, and none was written"


class Once:
    """Calls ``failed`` once per exception, from whichever thread sees it first (a task's failure is reported from
    the thread that collects its result, the build's own from the build process)."""

    def __init__(self, failed: Callable[[Exception], None]) -> None:
        self._failed = failed
        self._seen: list[Exception] = []
        self._lock = threading.Lock()

    def __call__(self, error: Exception) -> None:
        with self._lock:
            if not any(error is seen for seen in self._seen):
                self._seen.append(error)
                self._failed(error)


@contextlib.contextmanager
def reported(report: Callable[[Exception], None], out: Path, marker: str) -> Iterator[Callable[[TaskError], None]]:
    """Report a failure of the block at once, as the build raises it (before the blocks around it clean up); yields
    what reports a render task's failure as it happens (the build process may be busy with another stage)."""

    def task_failed(error: StageFailure) -> None:
        error.outcome = output_state(out, True, marker)  # the commit comes after the block
        report(error)

    try:
        yield task_failed
    except OSError as error:
        converted = OutputError(os_error_message(error, out, True, marker))
        report(converted)
        raise converted from None
    except StageFailure as error:
        task_failed(error)
        raise
    except Exception as error:
        report(error)
        raise
