"""Real-data benchmark (not a test): import every file of ../shared/data into a fresh canonical folder, import it
again (must change nothing), then build the API over it.

Usage: ``python bench/real_data.py WORK [--data ../shared/data] [--no-build] [--keep]``. WORK is a scratch folder
(its ``canonical/`` and ``dist/`` are replaced). Prints, for BENCHMARKS.md: the import report, wall seconds and
peak memory (max RSS from ``os.wait4``) of each step, whether the re-import was byte-identical, and the build's
files and bytes. The build output is deleted afterwards unless --keep (it is large: watch ``df -i``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str]) -> tuple[float, int, str]:
    """Run ``python -m generator ARGS``; return (wall seconds, peak RSS bytes, standard output)."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "generator", *args], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python -m generator {' '.join(args)} failed:\n{output}")
    return seconds, usage.ru_maxrss * 1024, output


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--keep", action="store_true")
    options = parser.parse_args()
    canonical, dist = options.work / "canonical", options.work / "dist"
    shutil.rmtree(canonical, ignore_errors=True)
    seconds, peak, report = run(["import", "auto", str(options.data), "--into", str(canonical)])
    print(report)
    print(f"import: {seconds:.1f} s, peak {peak / 2**20:.0f} MiB")
    first = snapshot(canonical)
    seconds, peak, _ = run(["import", "auto", str(options.data), "--into", str(canonical)])
    changed = sorted(name for name, data in snapshot(canonical).items() if first.get(name) != data)
    print(f"re-import: {seconds:.1f} s, peak {peak / 2**20:.0f} MiB, files changed: {', '.join(changed) or 'none'}")
    print(f"canonical folder: {sum(len(d) for d in first.values()):,} bytes in {len(first)} files")
    if options.no_build:
        return
    shutil.rmtree(dist, ignore_errors=True)
    seconds, peak, output = run(["build", "--data", str(canonical), "--out", str(dist), "--force"])
    print(output.splitlines()[0] if output else "")
    print(f"build: {seconds:.1f} s, peak {peak / 2**20:.0f} MiB (build process; workers not included)")
    if not options.keep:
        shutil.rmtree(dist, ignore_errors=True)


if __name__ == "__main__":
    main()
