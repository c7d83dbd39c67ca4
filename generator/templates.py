"""Jinja2 rendering of the generated config files and pages in ``templates/``."""

from __future__ import annotations

from pathlib import Path

import jinja2

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"

_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
    autoescape=jinja2.select_autoescape(["html", "html.j2"]),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


def render(name: str, **context: object) -> str:
    return _environment.get_template(name).render(**context)
