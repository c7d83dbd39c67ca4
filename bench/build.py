"""Build benchmark (not a test): time, files, bytes and peak memory of the build against the I/O floor.

    python bench/build.py [--sizes embedded,10000,100000] [--seed 1] [--work bench/out] [--markdown FILE]
                          [--rounds N]

For each size — ``embedded`` (``data/``, or ``tests/fixtures/tiny`` while ``data/`` does not pass
``python -m generator check``) and N synthetic companies (``python -m generator synth``) — it prints, as Markdown:

- the build: seconds per stage and in total, files and bytes per endpoint, peak memory (the larger of the build
  process's max RSS from ``os.wait4`` and the peak sum of RSS over its process tree, worker processes included,
  sampled every 0.2 s);
- the I/O floor: the same files (same relative paths, same bytes, read into memory first) written into a fresh
  folder, timing only the writes and mkdirs; and the ratio build / floor;
- a no-op rebuild (time, files rewritten) and a rebuild after changing one company's valuation (time, files
  rewritten, and how many of those have unchanged content: it must be 0). A file counts as rewritten when its
  inode changed (the writer hard-links unchanged files from the previous output); then a forced no-op again,
  whose staging folder is the retired output, recycled: the steady state where the output folder stays between
  builds (a server's cron job). The first forced no-op, right after a clean build, has no retired output and
  makes every folder and hard link afresh, as does every rebuild of a CI job that restores only the output;
- the number of rewrite rules, which must not depend on the size.

With ``--rounds N`` each size is measured N times over (clean build, floor, rebuilds) and the targets are checked
against the median ratios; the report lists every round.

Nothing is deleted between measurements: a tree the benchmark is done with is moved into ``<work>/trash`` and
the trash is deleted after the last measurement (``Trash``: on a disk mounted with ``discard``, a deleted tree
slows the next minutes' writes).

Each build runs in its own process. A watchdog kills a build that would leave less than ``--min-free-gb`` of disk
or ``--min-free-inodes`` inodes on the work folder's filesystem, so a run that outgrows the machine reports that
instead of filling the disk.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from generator.hosts.limits import fit_summary
from generator.pipeline.budget import BUDGET_COMPANIES, TOTAL

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TINY = ROOT / "tests" / "fixtures" / "tiny"
EMBEDDED = ROOT / "data"

TARGET_RATIO_10K = 2.0
TARGET_REBUILD_10K = 0.5
"""A forced no-op rebuild and a one-company rebuild each take at most this share of the clean build (10k)."""
TARGET_PEAK_10K = 2 * 1024**3
TARGET_PEAK_100K = 4 * 1024**3
TARGET_PEAK_GROWTH = 1.2
"""Peak memory at 300k companies at most this multiple of the peak at 10k (issue 39: memory flat in the size)."""
FILE_BUDGET = {"embedded": (15_000, None), str(BUDGET_COMPANIES): TOTAL, "100000": (1_500_000, None)}
"""Files and bytes each size may publish (the query-space budget; at 10k per endpoint too: tests/test_budget.py)."""
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class Aborted(Exception):
    """A build was stopped by the watchdog or failed."""


@dataclass
class BuildRun:
    wall_seconds: float = 0.0
    peak_rss_bytes: int = 0
    report: dict = field(default_factory=dict)
    rewritten: int = 0
    """Files whose inode changed or that are new (the others were carried over by hard link)."""
    rewritten_same_content: int = 0
    removed: int = 0
    error: str | None = None

    @property
    def seconds(self) -> float:
        return float(self.report.get("build_seconds", self.wall_seconds))


REBUILDS = ("noop", "change", "steady")
"""The timed rebuilds of a round, as ``SizeResult`` fields: forced no-op, one-company change, recycled no-op."""


@dataclass
class SizeResult:
    label: str
    data: str
    rows: dict[str, int] = field(default_factory=dict)
    synth_seconds: float | None = None
    build: BuildRun | None = None
    floor_seconds: float | None = None
    noop: BuildRun | None = None
    skip_seconds: float | None = None
    change: BuildRun | None = None
    change_description: str = ""
    steady: BuildRun | None = None
    """A forced no-op after the one-company change, whose staging folder is the retired output (recycled): the
    steady state where the output stays between builds; the first forced no-op has none yet and makes every
    folder and link afresh."""
    notes: list[str] = field(default_factory=list)
    rounds: list[dict[str, float | None]] = field(default_factory=list)
    """Seconds of each round (``--rounds``): clean build, I/O floor, forced no-op, one-company change, forced no-op
    recycled; the other fields hold the last round's figures."""

    def ratio(self, part: str, whole: str) -> float | None:
        """The median over the rounds of ``part / whole`` (e.g. ``change`` / ``build``)."""
        ratios = [r[part] / r[whole] for r in self.rounds if r.get(part) and r.get(whole)]  # type: ignore[operator]
        return statistics.median(ratios) if ratios else None


# --- processes -------------------------------------------------------------------------------------------------


class Watchdog:
    """Kill a process when the filesystem of ``path`` runs low on space or inodes."""

    def __init__(self, path: Path, min_free_bytes: int, min_free_inodes: int) -> None:
        self.path, self.min_free_bytes, self.min_free_inodes = path, min_free_bytes, min_free_inodes
        self.reason: str | None = None
        self.peak_tree_rss = 0

    def low(self) -> str | None:
        stat = os.statvfs(self.path)
        free_bytes, free_inodes = stat.f_bavail * stat.f_frsize, stat.f_favail
        if free_bytes < self.min_free_bytes:
            return f"disk nearly full ({free_bytes / 1e9:.1f} GB free)"
        if free_inodes < self.min_free_inodes:
            return f"filesystem nearly out of inodes ({free_inodes:,} free)"
        return None

    def watch(self, pid: int, done: threading.Event) -> None:
        checked = 0.0
        while not done.wait(0.2):
            self.peak_tree_rss = max(self.peak_tree_rss, tree_rss(pid))
            if time.monotonic() - checked < 1.0:
                continue
            checked = time.monotonic()
            reason = self.low()
            if reason:
                self.reason = reason
                os.kill(pid, signal.SIGKILL)
                return


def tree_rss(root: int) -> int:
    """Sum of the resident memory of a process and all its descendants (its worker processes), in bytes."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry.name}/statm", "rb") as handle:
                rss[int(entry.name)] = int(handle.read().split()[1]) * PAGE_SIZE
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total


def run_process(command: list[str], log: Path, watchdog: Watchdog | None) -> tuple[float, int]:
    """Run ``command``; return (wall seconds, peak memory bytes). Raise ``Aborted``.

    Peak memory is the larger of the process's own max RSS (``wait4``) and the peak sum of RSS over its process
    tree (worker processes included), sampled every 0.2 s. Dirty pages are flushed (``sync``) first, so that the
    writeback of a previous step does not land in this one's time."""
    os.sync()
    with open(log, "ab") as output:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
        done = threading.Event()
        if watchdog is not None:
            watchdog.peak_tree_rss = 0
            threading.Thread(target=watchdog.watch, args=(process.pid, done), daemon=True).start()
        _, status, usage = os.wait4(process.pid, 0)
        done.set()
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
    if watchdog is not None and watchdog.reason:
        raise Aborted(f"stopped by the watchdog: {watchdog.reason}")
    if process.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise Aborted(f"exit code {process.returncode}: ...{tail}")
    tree_peak = watchdog.peak_tree_rss if watchdog is not None else 0
    return wall, max(usage.ru_maxrss * 1024, tree_peak)  # ru_maxrss: kilobytes on Linux


def run_build(
    data: Path, out: Path, work: Path, watchdog: Watchdog, force: bool = False, engine: str = "local",
) -> BuildRun:
    report_path = work / "report.json"
    report_path.unlink(missing_ok=True)
    command = [sys.executable, str(HERE / "run_build.py"), str(data), str(out), str(report_path)]
    command += (["--force"] if force else []) + ["--engine", engine]
    wall, peak = run_process(command, work / "build.log", watchdog)
    return BuildRun(wall, peak, json.loads(report_path.read_text(encoding="utf-8")))


# --- file trees ------------------------------------------------------------------------------------------------


def inventory(root: Path) -> dict[str, int]:
    """Relative path -> inode of every file below ``root``."""
    found: dict[str, int] = {}
    stack = [root]
    prefix = len(str(root)) + 1
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                else:
                    found[entry.path[prefix:]] = entry.inode()
    return found


class Trash:
    """Trees the benchmark is done with: moved aside (one rename each) and deleted only after the last measurement.

    This disk is mounted with ``discard``: deleting a tree of 126k files (600 MB) slowed its writes for minutes
    (the 10k I/O floor took 7-8 s before such a delete and 55-65 s in the minute after it), and so would every
    step measured after the delete."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def put(self, path: Path) -> None:
        if path.exists() or path.is_symlink():
            self.folder.mkdir(parents=True, exist_ok=True)
            self.count += 1
            os.rename(path, self.folder / f"{self.count}-{path.name}")

    def empty(self) -> None:
        if self.folder.exists():
            shutil.rmtree(self.folder)


def link_tree(files: dict[str, int], source: Path, target: Path) -> None:
    """Hard-link every file of ``source`` into ``target``: keeps the old bytes alive across a rebuild."""
    made: set[str] = set()
    for relative in files:
        parent = os.path.dirname(relative)
        if parent not in made:
            os.makedirs(target / parent, exist_ok=True)
            made.add(parent)
        os.link(source / relative, target / relative)


def compare_rebuild(before: dict[str, int], snapshot: Path, out: Path, run: BuildRun) -> None:
    after = inventory(out)
    rewritten = [path for path, inode in after.items() if before.get(path) != inode]
    run.rewritten = len(rewritten)
    run.removed = len(before.keys() - after.keys())
    run.rewritten_same_content = sum(
        1 for path in rewritten
        if path in before and (snapshot / path).read_bytes() == (out / path).read_bytes()
    )


def io_floor(files: list[str], source: Path, fresh: Path, batch_bytes: int = 512 * 1024**2) -> float:
    """Seconds to write the same bytes to the same relative paths in a fresh folder (mkdirs included).

    Files are read into memory in batches first; only the writing is timed.
    """
    total = 0.0
    made: set[str] = set()
    fresh_root = str(fresh)

    def write(batch: list[tuple[str, bytes]]) -> float:
        started = time.perf_counter()
        for relative, data in batch:
            parent = os.path.dirname(relative)
            if parent not in made:
                os.makedirs(os.path.join(fresh_root, parent), exist_ok=True)
                made.add(parent)
            with open(os.path.join(fresh_root, relative), "wb") as handle:
                handle.write(data)
        return time.perf_counter() - started

    fresh.mkdir(parents=True)
    os.sync()  # as before each build: start with no writeback pending
    batch: list[tuple[str, bytes]] = []
    size = 0
    for relative in files:
        data = (source / relative).read_bytes()
        batch.append((relative, data))
        size += len(data)
        if size >= batch_bytes:
            total += write(batch)
            batch, size = [], 0
    total += write(batch)
    return total


# --- datasets --------------------------------------------------------------------------------------------------


def count_rows(data: Path) -> dict[str, int]:
    rows = {}
    for path in sorted(data.glob("*.csv")):
        with open(path, encoding="utf-8", newline="") as handle:
            rows[path.stem] = sum(1 for _ in csv.reader(handle)) - 1
    return rows


def change_one_company(data: Path) -> str:
    """Raise the valuation of the median valued company by 10 %; describe the change."""
    path = data / "companies.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    column = header.index("valuation_usd")
    valued = [row for row in body if row[column]]
    row = valued[len(valued) // 2]
    old = int(row[column])
    row[column] = str(old + max(1, old // 10))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([header, *body])
    return f"company id {row[0]} ({row[header.index('slug')]}): valuation_usd {old:,} -> {int(row[column]):,}"


def prepare(label: str, work: Path, seed: int, trash: Trash) -> SizeResult:
    data = work / "data"
    trash.put(data)
    if label == "embedded":
        check = subprocess.run([sys.executable, "-m", "generator", "check", "--data", str(EMBEDDED)], cwd=ROOT,
                               capture_output=True, text=True)
        source = EMBEDDED if check.returncode == 0 else TINY
        shutil.copytree(source, data)
        result = SizeResult(label, str(source.relative_to(ROOT)))
        if source == TINY:
            result.notes.append("data/ does not pass `python -m generator check` yet: measured tests/fixtures/tiny")
    else:
        companies = int(label)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "generator", "synth", "--companies", str(companies), "--seed",
                        str(seed), "--out", str(data)], cwd=ROOT, check=True, capture_output=True)
        result = SizeResult(label, f"synth --companies {companies} --seed {seed}")
        result.synth_seconds = time.perf_counter() - started
    result.rows = count_rows(data)
    return result


# --- the benchmark ---------------------------------------------------------------------------------------------


def _say(label: str, what: str, run: BuildRun) -> None:
    """Each figure as soon as it is measured: a long run stopped later still leaves its numbers in the log."""
    stages = ", ".join(f"{name} {seconds:.1f}" for name, seconds in run.report.get("stages", {}).items())
    print(f"[{label}] {what}: {run.seconds:.1f} s [{stages}], {run.report.get('files', 0):,} files, "
          f"{run.report.get('bytes', 0):,} bytes, peak RSS {_gb(run.peak_rss_bytes)}, rewritten {run.rewritten:,} "
          f"({run.rewritten_same_content} with unchanged content), writer count {run.report.get('written')}",
          file=sys.stderr, flush=True)


def bench_size(
    label: str, work: Path, seed: int, watchdog: Watchdog, keep: bool, trash: Trash, build_only: bool = False,
    no_rebuilds: bool = False, rounds: int = 1, engine: str = "local",
) -> SizeResult:
    work.mkdir(parents=True, exist_ok=True)
    result = prepare(label, work, seed, trash)
    data, out, fresh, snapshot = work / "data", work / "dist", work / "floor", work / "snapshot"
    (work / "build.log").unlink(missing_ok=True)
    try:
        for number in range(1, (1 if build_only else rounds) + 1):
            for leftover in (out, fresh, snapshot, work / ".dist.staging", work / ".dist.retired"):
                trash.put(leftover)
            if rounds > 1:
                print(f"[{label}] round {number} of {rounds}", file=sys.stderr)
            _round(label, data, work, watchdog, result, trash, build_only, no_rebuilds, engine)
            result.rounds.append({
                "build": result.build.seconds if result.build else None, "floor": result.floor_seconds,
                **{name: run.seconds if (run := getattr(result, name)) else None for name in REBUILDS},
            })
    except Aborted as error:
        result.notes.append(f"incomplete: {error}")
    finally:
        for folder in (fresh, snapshot) if keep else (fresh, snapshot, out, work / ".dist.retired"):
            trash.put(folder)
    if build_only:
        result.notes.append("build only (--build-only): no I/O floor, no rebuilds")
    elif no_rebuilds:
        result.notes.append("build and I/O floor only (--no-rebuilds): no rebuilds")
    return result


def _round(
    label: str, data: Path, work: Path, watchdog: Watchdog, result: SizeResult, trash: Trash, build_only: bool,
    no_rebuilds: bool, engine: str = "local",
) -> None:
    """One clean build, then (unless told otherwise) its I/O floor, a forced no-op rebuild, a one-company
    change and a forced no-op again (recycling the retired output); the figures go into ``result`` (a later
    round's replace an earlier one's)."""
    out, fresh, snapshot = work / "dist", work / "floor", work / "snapshot"
    print(f"[{label}] build", file=sys.stderr)
    result.build = run_build(data, out, work, watchdog, engine=engine)
    _say(label, "build", result.build)
    if build_only:
        return
    files = inventory(out)
    print(f"[{label}] I/O floor ({len(files):,} files)", file=sys.stderr)
    result.floor_seconds = io_floor(sorted(files), out, fresh)
    print(f"[{label}] I/O floor: {result.floor_seconds:.1f} s", file=sys.stderr, flush=True)
    trash.put(fresh)
    if no_rebuilds:
        return

    print(f"[{label}] no-op rebuild (unchanged inputs: the build is skipped)", file=sys.stderr)
    result.skip_seconds = run_build(data, out, work, watchdog, engine=engine).wall_seconds

    def rebuild(heading: str, what: str, force: bool) -> BuildRun:
        """A timed rebuild of ``out``, its files compared with a hard-link snapshot of the tree before it."""
        print(f"[{label}] {heading}", file=sys.stderr)
        before = inventory(out)
        link_tree(before, out, snapshot)
        run = run_build(data, out, work, watchdog, force=force, engine=engine)
        compare_rebuild(before, snapshot, out, run)
        _say(label, what, run)
        trash.put(snapshot)
        return run

    result.noop = rebuild("no-op rebuild, forced through the whole pipeline", "forced no-op rebuild", True)
    result.change_description = change_one_company(data)
    result.change = rebuild("rebuild after a one-company change", "one-company change", False)
    result.steady = rebuild("no-op rebuild, forced, recycling the retired output", "forced no-op rebuild, recycled",
                            True)


# --- report ----------------------------------------------------------------------------------------------------


def _gb(value: float) -> str:
    return f"{value / 1024**3:.2f} GiB" if value >= 1024**3 else f"{value / 1024**2:.0f} MiB"


def _bytes(value: int) -> str:
    return f"{value:,}"


def _rules(run: BuildRun | None) -> str:
    if run is None:
        return "-"
    counts = run.report.get("rewrite_rules", {})
    return ", ".join(f"{count} ({where})" for where, count in counts.items()) or "-"


def _summary_row(r: SizeResult) -> str:
    cells = [f"{r.label} ({r.data})", f"{r.rows.get('companies', 0):,}"]
    b = r.build
    if b is None:
        return "| " + " | ".join(cells + ["-"] * 11) + " |"
    cells += [f"{b.report['files']:,}", _bytes(b.report["bytes"]), f"{b.seconds:.1f}"]
    if r.floor_seconds:
        cells += [f"{r.floor_seconds:.1f}", f"{b.seconds / r.floor_seconds:.1f}x"]
    else:
        cells += ["-", "-"]
    cells.append(_gb(b.peak_rss_bytes))
    cells += [f"{r.noop.seconds:.1f}", f"{r.noop.rewritten:,}"] if r.noop else ["-", "-"]
    if r.change:
        cells += [f"{r.change.seconds:.1f}", f"{r.change.rewritten:,} ({r.change.rewritten_same_content})"]
    else:
        cells += ["-", "-"]
    cells.append(_rules(b))
    return "| " + " | ".join(cells) + " |"


def markdown(results: list[SizeResult], argv: list[str]) -> str:
    lines = [
        f"Command: `python bench/build.py {' '.join(argv)}`".rstrip(),
        "",
        f"Machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.system()} "
        f"{platform.release()}.",
        "",
        "| dataset | companies | files | bytes | build s | floor s | build/floor | peak RSS | forced no-op s "
        "| no-op rewritten | 1-change s | 1-change rewritten (unchanged content) | rewrite rules |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [_summary_row(r) for r in results]
    lines.append("")
    lines.append(targets(results))
    fit = memory_fit(results)
    if fit:
        lines += ["", fit]
    for r in results:
        lines += ["", f"### {r.label}: {r.data}", ""]
        lines += [f"- {note}" for note in r.notes]
        lines.append("- input rows: " + ", ".join(f"{name} {count:,}" for name, count in r.rows.items()))
        if r.synth_seconds is not None:
            lines.append(f"- synthesis: {r.synth_seconds:.1f} s")
        b = r.build
        if b is None:
            continue
        report = b.report
        lines.append(f"- build: {b.seconds:.2f} s in `build()` ({b.wall_seconds:.2f} s process wall incl. "
                     f"interpreter start and imports), peak RSS {_gb(b.peak_rss_bytes)}")
        if r.floor_seconds is not None:
            lines.append(f"- I/O floor: {r.floor_seconds:.2f} s for the same {report['files']:,} files and "
                         f"{report['bytes']:,} bytes; build/floor {b.seconds / r.floor_seconds:.1f}x")
        if r.skip_seconds is not None:
            lines.append(f"- no-op rebuild with unchanged inputs (data, code, library versions): skipped, "
                         f"{r.skip_seconds:.2f} s process wall, 0 files touched")
        for name, run in (("no-op rebuild (--force: the whole pipeline)", r.noop), ("one-company change", r.change),
                          ("forced no-op rebuild after it, recycling the retired output", r.steady)):
            if run is not None:
                lines.append(
                    f"- {name}: {run.seconds:.2f} s, peak RSS {_gb(run.peak_rss_bytes)}, {run.rewritten:,} files "
                    f"rewritten ({run.report.get('written')} by the writer's count), "
                    f"{run.rewritten_same_content} of them with unchanged content, {run.removed:,} removed"
                )
        if r.change_description:
            lines.append(f"- the change: {r.change_description}")
        if len(r.rounds) > 1:
            lines += ["", "| round | build s | floor s | build/floor | forced no-op s (/build) | 1-change s (/build) "
                      "| recycled forced no-op s (/build) |", "|---:|---:|---:|---:|---:|---:|---:|"]
            for number, seconds in enumerate(r.rounds, 1):
                lines.append(f"| {number} | {_cell(seconds, 'build')} | {_cell(seconds, 'floor')} | "
                             f"{_share(seconds, 'build', 'floor')} | {_cell(seconds, 'noop')} "
                             f"({_share(seconds, 'noop', 'build')}) | {_cell(seconds, 'change')} "
                             f"({_share(seconds, 'change', 'build')}) | {_cell(seconds, 'steady')} "
                             f"({_share(seconds, 'steady', 'build')}) |")
            medians = [r.ratio(part, whole) for part, whole in (("build", "floor"), ("noop", "build"),
                                                                 ("change", "build"), ("steady", "build"))]
            lines += ["", "Medians over the rounds: " + ", ".join(
                f"{name} {'-' if value is None else f'{value:.2f}x'}"
                for name, value in zip(("build/floor", "forced no-op/build", "1-change/build",
                                        "recycled forced no-op/build"), medians, strict=True))]
            lines.append("The tables below are the last round's.")
        lines += ["", "| stage | build s | share | forced no-op s | 1-change s |", "|---|---:|---:|---:|---:|"]
        for stage, seconds in report["stages"].items():
            noop = r.noop.report["stages"].get(stage) if r.noop else None
            change = r.change.report["stages"].get(stage) if r.change else None
            lines.append(f"| {stage} | {seconds:.2f} | {seconds / max(b.seconds, 1e-9):.0%} | "
                         f"{'-' if noop is None else f'{noop:.2f}'} | {'-' if change is None else f'{change:.2f}'} |")
        lines += ["", "| endpoint | files | bytes |", "|---|---:|---:|"]
        by_files = report.get("files_by_endpoint", {})
        for endpoint in sorted(by_files):
            lines.append(f"| {endpoint} | {by_files[endpoint]:,} | {report['bytes_by_endpoint'][endpoint]:,} |")
        lines += ["", "| kind | files | bytes |", "|---|---:|---:|"]
        by_kind = report.get("files_by_kind", {})
        for kind in sorted(by_kind):
            lines.append(f"| {kind} | {by_kind[kind]:,} | {report['bytes_by_kind'][kind]:,} |")
        published = (report["files"] - by_kind.get("bookkeeping", 0),
                     report["bytes"] - report["bytes_by_kind"].get("bookkeeping", 0))
        lines += ["", f"Published (without the generator's dotfiles): {published[0]:,} files, {published[1]:,} bytes. "
                  f"Hosts: {fit_summary(*published)}."]
    return "\n".join(lines) + "\n"


def memory_fit(results: list[SizeResult]) -> str:
    """A least-squares line through the clean builds' peak memory against companies, and its value at a million."""
    points = [(r.rows.get("companies", 0), r.build.peak_rss_bytes) for r in results
              if r.build is not None and r.label.isdigit()]
    if len(points) < 2:
        return ""
    n = len(points)
    mean_x, mean_y = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / max(sum((x - mean_x) ** 2 for x, _ in points), 1)
    base = mean_y - slope * mean_x
    return (f"Peak memory fit over {n} sizes: {_gb(base)} + {slope / 1024:.2f} KiB per company; "
            f"projected at 1,000,000 companies: {_gb(base + slope * 1_000_000)}.")


def _cell(seconds: dict[str, float | None], name: str) -> str:
    value = seconds.get(name)
    return "-" if value is None else f"{value:.1f}"


def _share(seconds: dict[str, float | None], part: str, whole: str) -> str:
    top, bottom = seconds.get(part), seconds.get(whole)
    return "-" if not top or not bottom else f"{top / bottom:.2f}x"


def targets(results: list[SizeResult]) -> str:
    checks: list[tuple[str, bool | None]] = []
    by_label = {r.label: r for r in results}
    ten, hundred = by_label.get("10000"), by_label.get("100000")
    for label, (max_files, max_bytes) in FILE_BUDGET.items():
        result = by_label.get(label)
        if result is None or result.build is None:
            continue
        kinds, kind_bytes = result.build.report.get("files_by_kind", {}), result.build.report.get("bytes_by_kind", {})
        files = result.build.report["files"] - kinds.get("bookkeeping", 0)  # published: without the dotfiles
        size = result.build.report["bytes"] - kind_bytes.get("bookkeeping", 0)
        within = files <= max_files and (max_bytes is None or size <= max_bytes)
        limit = f"{max_files:,} files" + (f" and {max_bytes // 1_000_000:,} MB" if max_bytes else "")
        checks.append((f"{label}: at most {limit} published ({files:,} files, {size / 1e6:,.0f} MB)", within))
    if ten is not None:
        over = f", median of {len(ten.rounds)} rounds" if len(ten.rounds) > 1 else ""
        floor = ten.ratio("build", "floor")
        checks.append((f"10k: build <= 2x the I/O floor ({'-' if floor is None else f'{floor:.1f}x'}{over})",
                       floor is not None and floor <= TARGET_RATIO_10K))
        for name, part in (("forced no-op rebuild", "noop"), ("one-company change", "change")):
            ratio = ten.ratio(part, "build")
            if ratio is not None:
                checks.append((f"10k: {name} <= {TARGET_REBUILD_10K}x the clean build ({ratio:.2f}x{over})",
                               ratio <= TARGET_REBUILD_10K))
        checks.append(("10k: peak memory < 2 GiB",
                       ten.build is not None and ten.build.peak_rss_bytes < TARGET_PEAK_10K))
    if hundred is not None:
        runs = [run for run in (hundred.build, *(getattr(hundred, name) for name in REBUILDS)) if run is not None]
        checks.append(("100k: completes under 4 GiB peak memory",
                       hundred.build is not None and max(run.peak_rss_bytes for run in runs) < TARGET_PEAK_100K))
    big = by_label.get("300000")
    if ten is not None and big is not None and ten.build is not None and big.build is not None:
        growth = big.build.peak_rss_bytes / ten.build.peak_rss_bytes
        checks.append((f"300k: peak memory <= {TARGET_PEAK_GROWTH}x the 10k peak ({growth:.2f}x)",
                       growth <= TARGET_PEAK_GROWTH))
    noops = [run for r in results for run in (r.noop, r.steady) if run is not None]
    if noops:
        checks.append(("no-op rebuild rewrites 0 files", all(run.rewritten == 0 for run in noops)))
    changed = [r for r in results if r.change is not None]
    if changed:
        checks.append(("one-company change rewrites only files whose content changed",
                       all(r.change.rewritten_same_content == 0 for r in changed)))
    rule_counts = {json.dumps(r.build.report.get("rewrite_rules"), sort_keys=True) for r in results if r.build}
    if len(rule_counts) > 0:
        checks.append(("the number of rewrite rules is the same at every size", len(rule_counts) == 1))
    lines = ["| target | result |", "|---|---|"]
    lines += [f"| {name} | {'met' if ok else 'NOT MET'} |" for name, ok in checks]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="embedded,10000,100000",
                        help="comma-separated: 'embedded' and/or numbers of synthetic companies")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=("local", "threads"), default="local",
                        help="the build's engine (build --engine): local worker processes or threads of the build")
    parser.add_argument("--work", type=Path, default=HERE / "out", help="work folder (gitignored bench/out)")
    parser.add_argument("--markdown", type=Path, help="also write the Markdown report to this file")
    parser.add_argument("--keep", action="store_true", help="keep each size's built output in the work folder")
    parser.add_argument("--build-only", default="", metavar="SIZES",
                        help="sizes (comma-separated) measured by their build alone, e.g. 100000")
    parser.add_argument("--no-rebuilds", default="", metavar="SIZES",
                        help="sizes (comma-separated) measured by their build and I/O floor only")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure each size this many times (clean build, floor, rebuilds); the targets use "
                             "the median ratios: single runs on a small shared machine vary by +-20 %%")
    parser.add_argument("--min-free-gb", type=float, default=5.0)
    parser.add_argument("--min-free-inodes", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    args.work.mkdir(parents=True, exist_ok=True)
    watchdog = Watchdog(args.work, int(args.min_free_gb * 1e9), args.min_free_inodes)
    trash = Trash(args.work / "trash")
    if trash.folder.exists():  # left by an interrupted run: deleted before anything is measured, then let settle
        print("deleting the trash of an earlier run (then 60 s for the disk to settle)", file=sys.stderr)
        trash.empty()
        os.sync()
        time.sleep(60)
    results: list[SizeResult] = []
    try:
        for label in (s.strip() for s in args.sizes.split(",") if s.strip()):
            if label != "embedded" and not label.isdigit():
                parser.error(f"unknown size {label!r}")
            build_only = label in args.build_only.split(",")
            no_rebuilds = label in args.no_rebuilds.split(",")
            result = bench_size(label, args.work / label, args.seed, watchdog, args.keep, trash, build_only,
                                no_rebuilds, args.rounds, args.engine)
            results.append(result)
            (args.work / "results.json").write_text(
                json.dumps([asdict(r) for r in results], indent=2, default=str), encoding="utf-8")
            report = markdown(results, argv)
            if args.markdown:
                args.markdown.write_text(report, encoding="utf-8")
    finally:
        trash.empty()  # after the last measurement
    print(markdown(results, argv))


if __name__ == "__main__":
    main()
