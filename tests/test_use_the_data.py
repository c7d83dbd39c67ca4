"""The docs' "Use the data" page (docs/use-the-data.md) runs as written: every line of its code blocks is taken
from the page and run against ``serve`` over the embedded build (pandas, Polars, curl and jq over HTTP; DuckDB
over the same files on disk, as its httpfs extension cannot be installed offline; the R line as text unless R's
arrow is installed), so the page cannot drift. And every table reads as JSON Lines with pandas and DuckDB, with
its rows and columns."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from generator.dataset.schema import TABLES

from .conftest import ROOT, Served

BASE = "http://127.0.0.1:8000"
"""The address of ``serve`` in the README's set-up, which the page's snippets use."""
SECTION = (ROOT / "docs" / "use-the-data.md").read_text(encoding="utf-8")


def _lines(language: str) -> list[str]:
    """The lines of the section's code blocks in ``language``, in order."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", SECTION, re.MULTILINE | re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


PYTHON = _lines("python")
IMPORTS = "\n".join(line for line in PYTHON if line.startswith("import "))
EXPRESSIONS = [line for line in PYTHON if not line.startswith("import ")]
SHELL = _lines("sh")
R = _lines("r")


def _table_of(line: str) -> str:
    """The table a line reads: the name of its .csv, .parquet or .jsonl file."""
    found = re.findall(r"(\w+)\.(?:csv|parquet|jsonl)\b", line)
    assert found, line
    return found[-1]


def _need(tool: str) -> str:
    """A tool the page uses: scripts/test installs it, so CI fails without it; elsewhere the test skips."""
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing: scripts/test installs it")
        pytest.skip(f"{tool} is not installed")
    return path


def _expected(root: Path, table: str) -> tuple[int, list[str]]:
    """A table's rows (the manifest's count) and columns (the CSV export's header)."""
    manifest = json.loads((root / "api" / "export" / "index.json").read_bytes())
    with open(root / "api" / "export" / "csv" / f"{table}.csv", encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle))
    return manifest["data"]["tables"][table], header


def _shape(result: object) -> tuple[int, list[str]]:
    """Rows and column names of a pandas or Polars data frame or a DuckDB relation."""
    return result.shape[0], list(result.columns)  # type: ignore[attr-defined]


def test_the_section_covers_every_tool_over_path_style_urls() -> None:
    code = "\n".join([*PYTHON, *SHELL, *R])
    for call in ("pd.read_csv(", "pd.read_parquet(", "pd.read_json(", "lines=True", "pl.read_parquet(",
                 "read_parquet('", "read_json_auto('", "arrow::read_parquet(", "| jq ", "curl "):
        assert call in code, call
    urls = re.findall(r"https?://[^\s'\")]+", code)
    assert urls and all(u.startswith(f"{BASE}/api/export/") and "?" not in u for u in urls), urls
    assert len(EXPRESSIONS) >= 8 and len(SHELL) >= 2 and len(R) == 1


def test_the_section_names_every_table() -> None:
    listed = re.search(r"\(tables: (.*?); columns", SECTION, re.DOTALL)
    assert listed is not None
    assert re.findall(r"`(\w+)`", listed.group(1)) == [t.name for t in TABLES]


@pytest.mark.parametrize("line", EXPRESSIONS)
def test_python_line_reads_the_table(line: str, front_site: Served, embedded_build: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Each line gives its table's rows and columns. DuckDB reads the files on disk at the same paths (and the URL
    is checked to answer); the zip line opens the dataset.zip that the page's curl line downloads."""
    namespace: dict[str, object] = {}
    exec(IMPORTS, namespace)  # noqa: S102 (the page's own code)
    if "duckdb.sql(" in line:
        url = re.search(rf"{re.escape(BASE)}[^']+", line).group(0)  # type: ignore[union-attr]
        assert front_site.get(url.removeprefix(BASE)).status == 200, url
        runnable = line.replace(BASE, embedded_build.as_posix())
    else:
        runnable = line.replace(BASE, front_site.base)
    if BASE not in line:  # a file the section downloads first
        monkeypatch.chdir(tmp_path)
        name = re.search(r'"([\w.]+\.zip)"', line).group(1)  # type: ignore[union-attr]
        urllib.request.urlretrieve(f"{front_site.base}/api/export/csv/{name}", tmp_path / name)
    assert _shape(eval(runnable, namespace)) == _expected(embedded_build, _table_of(line))  # noqa: S307


def test_shell_lines_run(front_site: Served, embedded_build: Path, tmp_path: Path) -> None:
    _need("curl")
    _need("jq")
    rows = [json.loads(line) for line in (embedded_build / "api/export/jsonl/companies.jsonl").read_text().splitlines()]
    for line in SHELL:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", line.replace(BASE, front_site.base)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (line, done.stderr)
        if "| jq " in line:
            printed = [json.loads(out) for out in done.stdout.splitlines()]
            wanted = [{k: r[k] for k in ("name", "valuation_usd")} for r in rows if r["sector"] == "fintech"]
            assert printed == wanted and wanted
        if "curl -sO" in line:
            name = line.split()[2].rpartition("/")[2]
            manifest = json.loads((embedded_build / "api" / "export" / "index.json").read_bytes())
            dataset = next(f["dataset"] for f in manifest["data"]["formats"] if f["format"] == "csv")
            assert dataset["url"].endswith(f"/{name}")
            assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == dataset["sha256"]


def test_r_line(front_site: Served, embedded_build: Path, tmp_path: Path) -> None:
    """Run with R's arrow where it is installed; else (Debian packages no arrow for R) checked as text: the call
    is ``arrow::read_parquet`` on a URL that answers Parquet with the table's rows and columns."""
    (line,) = R
    url = re.fullmatch(rf'arrow::read_parquet\("({re.escape(BASE)}/api/export/parquet/\w+\.parquet)"\)', line)
    assert url is not None, line
    response = front_site.get(url.group(1).removeprefix(BASE))
    assert response.status == 200 and response.headers["Content-Type"] == "application/vnd.apache.parquet"
    table = pq.read_table(io.BytesIO(response.body))
    assert (table.num_rows, table.column_names) == _expected(embedded_build, _table_of(line))
    rscript = shutil.which("Rscript")
    if rscript and subprocess.run([rscript, "-e", "library(arrow)"], capture_output=True).returncode == 0:
        script = f"x <- {line.replace(BASE, front_site.base)}; cat(nrow(x), ncol(x))"
        done = subprocess.run([rscript, "-e", script], capture_output=True, text=True, timeout=120)
        assert done.stdout.split() == [str(table.num_rows), str(table.num_columns)], done.stderr


@pytest.mark.parametrize("table", [t.name for t in TABLES if (ROOT / "data" / t.file_name).exists()])  # rows to read
def test_every_table_reads_as_json_lines(table: str, front_site: Served, embedded_build: Path) -> None:
    """pandas over HTTP (the path-style file and the front door's query form, by either name) and DuckDB's
    read_json_auto over the file give the table's rows and columns."""
    expected = _expected(embedded_build, table)
    for path in (f"/api/export/jsonl/{table}.jsonl", f"/api/export?format=jsonl&table={table}",
                 f"/api/export?format=ndjson&table={table}"):
        assert _shape(pd.read_json(front_site.base + path, lines=True)) == expected, path
    file = embedded_build / "api" / "export" / "jsonl" / f"{table}.jsonl"
    assert _shape(duckdb.sql(f"SELECT * FROM read_json_auto('{file.as_posix()}')")) == expected


def test_ndjson_is_jsonl_at_the_front_door_only(front_site: Served, site: Served, embedded_build: Path) -> None:
    """The front door takes ``format=ndjson`` (any case) for ``jsonl``; the files and the rewrite rules know the
    format by its one name, so a host with rewrite rules alone answers the other name as an unknown format."""
    export = embedded_build / "api" / "export" / "jsonl"
    for query, file in (("format=NDJSON&table=companies", "companies.jsonl"), ("format=ndjson", "dataset.zip")):
        answer = front_site.get(f"/api/export?{query}")
        assert answer.status == 200 and answer.body == (export / file).read_bytes(), query
        expected = "application/zip" if file.endswith(".zip") else "application/jsonl; charset=utf-8"
        assert answer.headers["Content-Type"] == expected
    assert site.get("/api/export?format=jsonl&table=companies").body == (export / "companies.jsonl").read_bytes()
    assert site.get("/api/export?format=ndjson&table=companies").status == 404
