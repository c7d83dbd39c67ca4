"""One build in its own process, for bench/build.py: run ``pipeline.build.build`` and write its report as JSON.

Usage: ``python bench/run_build.py DATA OUT REPORT.json [--force] [--engine local|threads]``. The parent measures
wall time and peak memory of this process (``os.wait4``); this side records what only the build knows: per-stage
seconds, files and bytes per endpoint, files rewritten, and the number of rewrite rules.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _rule_count(out: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    try:
        from generator.api.rewrites import rules

        counts["registry"] = len(rules())
    except Exception:  # noqa: BLE001 - the count is informative; a refactor must not break the benchmark
        pass
    for name in ("netlify.toml", "api/netlify.toml"):
        path = out / name
        if path.is_file():
            counts[name] = path.read_text(encoding="utf-8").count("[[redirects]]")
    return counts


def main(data: Path, out: Path, report_path: Path, force: bool = False, engine: str = "local") -> None:
    started = time.perf_counter()
    from generator.pipeline.build import BuildConfig, build

    imported = time.perf_counter()

    def progress(message: str) -> None:  # into the build log, so a run stopped half-way shows how far it got
        print(f"{time.perf_counter() - imported:9.1f}s {message}", file=sys.stderr, flush=True)

    report = build(BuildConfig(data, out, force=force, engine=engine), progress)
    finished = time.perf_counter()
    result = {
        "import_seconds": imported - started,
        "build_seconds": finished - imported,
        "stages": dict(report.stages),
        "files": report.files,
        "bytes": report.bytes,
        "written": report.written,
        "files_by_endpoint": dict(getattr(report, "files_by_endpoint", {})),
        "bytes_by_endpoint": dict(getattr(report, "bytes_by_endpoint", {})),
        "files_by_kind": dict(getattr(report, "files_by_kind", {})),
        "bytes_by_kind": dict(getattr(report, "bytes_by_kind", {})),
        "rewrite_rules": _rule_count(out),
        "self_maxrss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }
    report_path.write_text(json.dumps(result, indent=2), encoding="utf-8")  # stages stay in build order


if __name__ == "__main__":
    options = sys.argv[4:]
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), force="--force" in options,
         engine=options[options.index("--engine") + 1] if "--engine" in options else "local")
