"""Jinja2 rendering of the generated config files and pages in ``templates/``."""

from __future__ import annotations

from pathlib import Path

import jinja2

_INSTALLED = Path(__file__).resolve().parent.parent / "_templates"
"""Where a wheel or non-editable install puts the templates (pyproject.toml maps templates/ there)."""
TEMPLATE_DIR = _INSTALLED if _INSTALLED.is_dir() else Path(__file__).resolve().parents[2] / "templates"
"""The templates: installed beside the package, or at the top of the source checkout."""

_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
    autoescape=jinja2.select_autoescape(["html", "html.j2"]),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


def render(name: str, **context: object) -> str:
    return _environment.get_template(name).render(**context)


def load(name: str) -> None:
    """Compile a template ahead of its first ``render`` (the environment keeps it)."""
    _environment.get_template(name)
