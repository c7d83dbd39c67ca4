"""Docs cannot drift: generated files are current, and the README names every endpoint and command."""

from __future__ import annotations

from click.testing import CliRunner

from generator.api.registry import ROUTES
from generator.api.semantics import FRONT_DOOR_RULES
from generator.cli import main
from generator.dataset.dictionary import data_dictionary
from generator.dataset.schema import TABLES

from .conftest import ROOT


def test_data_dictionary_is_current() -> None:
    assert (ROOT / "data" / "README.md").read_text(encoding="utf-8") == data_dictionary(), (
        "data/README.md is out of date: run python -m generator data-dictionary")


def test_data_dictionary_documents_every_column() -> None:
    text = data_dictionary()
    for table in TABLES:
        assert f"## `{table.file_name}`" in text
        for column in table.model.model_fields:
            assert f"| `{column}` |" in text, (table.name, column)


def test_readme_names_every_endpoint_and_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for route in ROUTES:
        assert f"`{route.path}" in readme, route.path
    for command in main.commands:
        assert f"python -m generator {command}" in readme, command


def test_check_commands_pass_on_the_committed_files() -> None:
    runner = CliRunner()
    for command in ("data-dictionary", "netlify-toml"):
        path = ROOT / ("data/README.md" if command == "data-dictionary" else "netlify.toml")
        result = runner.invoke(main, [command, "--check", "--path", str(path)])
        assert result.exit_code == 0, result.output


def test_readme_states_the_front_doors_rules_as_the_site_does() -> None:
    """The landing page and the OpenAPI document render ``generator.api.semantics``; the README says the same
    (each rule named, with its examples)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### The front door"):readme.index("#### Which host gives which")]
    for rule in FRONT_DOOR_RULES:
        assert f"**{rule.label}" in section, rule.label
        for example in rule.examples:
            assert f"`{example}`" in section, (rule.label, example)
