"""Docs cannot drift: generated files are current, the README is a front page whose queries answer as shown, the
docs site names every endpoint and command and states the front door's rules as the site does, and the site
builds with ``mkdocs build --strict`` (broken links and anchors fail) into a temporary folder."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.api import problems, semantics
from generator.api.registry import ROUTES
from generator.api.semantics import FRONT_DOOR_RULES
from generator.cli import main
from generator.dataset.dictionary import data_dictionary
from generator.dataset.schema import TABLES

from .conftest import ROOT, Served

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
BASE = "http://127.0.0.1:8000"
"""The address of ``serve`` in the README's set-up, which its queries use."""
README_LINES = 150
PARALLEL_PAGES = ("adding-a-filter.md", "provenance.md")
"""Pages other work writes; the nav holds them (a build without them fails)."""


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The body of a ``## heading`` section, up to the next heading of level 2."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def _nav_pages() -> list[str]:
    """Every page the mkdocs nav lists, in order (``- Title: page.md`` lines)."""
    return re.findall(r"^\s*- [^:\n]+: (\S+\.md)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)


def test_data_dictionary_is_current() -> None:
    assert (ROOT / "data" / "README.md").read_text(encoding="utf-8") == data_dictionary(), (
        "data/README.md is out of date: run python -m generator data-dictionary")


def test_data_dictionary_documents_every_column() -> None:
    text = data_dictionary()
    for table in TABLES:
        assert f"## `{table.file_name}`" in text
        for column in table.model.model_fields:
            assert f"| `{column}` |" in text, (table.name, column)


def test_check_commands_pass_on_the_committed_files() -> None:
    runner = CliRunner()
    for command in ("data-dictionary", "netlify-toml"):
        path = ROOT / ("data/README.md" if command == "data-dictionary" else "netlify.toml")
        result = runner.invoke(main, [command, "--check", "--path", str(path)])
        assert result.exit_code == 0, result.output


# --- the README: a front page ---------------------------------------------------------------------------------


def test_readme_is_a_front_page() -> None:
    """At most ~150 lines; exactly two set-up commands (build and serve the embedded data; the whole suite, which
    is CI's); the front door in one paragraph; a map of the docs; licence and disclaimer."""
    assert len(README.splitlines()) <= README_LINES, len(README.splitlines())
    setup = _blocks(_section(README, "Set-up"), "sh")
    assert [b.count("\n") for b in setup] == [1, 1], setup
    assert "pip install -e ." in setup[0] and "build --data data --out dist" in setup[0] and " serve " in setup[0]
    assert setup[1] == "bash scripts/test\n"
    assert "bash scripts/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    front_door = _section(README, "The front door")
    assert semantics.WHERE in front_door and semantics.REWRITE_ONLY in front_door
    assert "[docs/queries.md](docs/queries.md)" in front_door
    for heading in ("First queries", "Documentation", "Licence and disclaimer"):
        assert f"\n## {heading}\n" in README, heading


def test_readme_states_the_datasets_disclaimer() -> None:
    """The disclaimer the API and the landing page carry (``data/dataset.json``), word for word."""
    disclaimer = json.loads((ROOT / "data" / "dataset.json").read_text(encoding="utf-8"))["disclaimer"]
    assert f"**{disclaimer}**" in _section(README, "Licence and disclaimer")


def test_readme_maps_every_page_of_the_docs_site() -> None:
    """Every page of the nav is linked from the README's map, and every link of the README leads to a file."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    assert links
    for link in links:
        if not re.match(r"^[a-z]+:", link):
            assert (ROOT / link).is_file() or Path(link).name in PARALLEL_PAGES, link
    mapped = {Path(link).name for link in links if link.startswith("docs/")}
    assert set(_nav_pages()) - {"index.md"} <= mapped, set(_nav_pages()) - mapped


def test_first_queries_answer_as_shown(front_site: Served) -> None:
    """Each query of the README's "First queries", run against ``serve`` over the embedded build, prints exactly
    the answer the README shows under it."""
    section = _section(README, "First queries")
    commands, answers = _blocks(section, "sh"), _blocks(section, "text")
    assert len(commands) == len(answers) == 3, (commands, answers)
    for tool in ("curl", "jq"):
        if shutil.which(tool) is None:
            if os.environ.get("CI"):
                pytest.fail(f"{tool} is missing: scripts/test installs it")
            pytest.skip(f"{tool} is not installed")
    for command, answer in zip(commands, answers, strict=True):
        assert command.count(BASE) == 1, command
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command.replace(BASE, front_site.base)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout == answer, (command, done.stdout)


# --- the docs site --------------------------------------------------------------------------------------------


def test_docs_name_every_endpoint_and_command() -> None:
    endpoints, commands = _doc("endpoints.md"), _doc("commands.md")
    for route in ROUTES:
        assert f"`{route.path}" in endpoints, route.path
    for command in main.commands:
        assert f"python -m generator {command}" in commands, command


def test_docs_state_the_front_doors_rules_as_the_site_does() -> None:
    """The landing page and the OpenAPI document render ``generator.api.semantics``; the docs' front door section
    says the same (each rule named, with its examples)."""
    queries = _doc("queries.md")
    section = queries[queries.index("## The front door"):queries.index("### Which host gives which")]
    for rule in FRONT_DOOR_RULES:
        assert f"**{rule.label}" in section, rule.label
        for example in rule.examples:
            assert f"`{example}`" in section, (rule.label, example)


def test_errors_page_names_every_problem() -> None:
    """Every problem document the build writes has its row (the listings' combination problems by their pattern)."""
    page = _doc("errors.md")
    for path, body in problems.problem_files():
        document = json.loads(body)
        generic = re.sub(r"/[a-z-]+-filter-combination", "/ROUTE-filter-combination", path)
        assert f"`{generic}`" in page, path
        assert f"| {document['status']} |" in page, (path, document["status"])


def test_every_docs_page_is_in_the_nav() -> None:
    pages = _nav_pages()
    assert len(pages) == len(set(pages))
    on_disk = {p.name for p in DOCS.glob("*.md")}
    assert on_disk <= set(pages), on_disk - set(pages)
    assert set(PARALLEL_PAGES) <= set(pages)


def _mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs is missing: the test extras (pip install -e '.[test]') install it")
        pytest.skip("mkdocs is not installed")


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, offline: no theme fonts, no plugin that fetches."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], cwd=config.parent, capture_output=True, text=True,
                          timeout=300, env=env)


def test_docs_site_builds_strict(tmp_path: Path) -> None:
    _mkdocs()
    started = time.monotonic()
    done = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-4000:]
    print(f"mkdocs build --strict: {seconds:.1f} s into {tmp_path / 'site'}")
    for page in _nav_pages():
        assert (tmp_path / "site" / page.replace(".md", ".html")).is_file(), page
    dictionary = (tmp_path / "site" / "dictionary.html").read_text(encoding="utf-8")
    for table in TABLES:  # the generated dictionary, included whole
        assert table.file_name in dictionary, table.file_name
    assert "Build benchmarks" in (tmp_path / "site" / "benchmarks.html").read_text(encoding="utf-8")
    for page in (tmp_path / "site").rglob("*.html"):  # read offline too: no font, script or style from elsewhere
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<(?:link|script)[^>]+(?:href|src)="(?:https?:)?//', text), page


def test_docs_site_build_fails_on_a_broken_link(tmp_path: Path) -> None:
    """Control: the same build over a copy whose page links to a missing page and a missing anchor fails."""
    _mkdocs()
    copy = tmp_path / "repo"
    shutil.copytree(DOCS, copy / "docs")
    for name in ("mkdocs.yml", "README.md", "BENCHMARKS.md", "data/README.md"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, copy / name)
    for name in PARALLEL_PAGES:
        if not (copy / "docs" / name).exists():
            (copy / "docs" / name).write_text(f"# {name}\n", encoding="utf-8")
    page = copy / "docs" / "errors.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[gone](no-such-page.md), [here](keys.md#no-such-anchor)\n",
                    encoding="utf-8")
    done = _build(copy / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stderr and "no-such-anchor" in done.stderr
