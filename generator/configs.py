"""Generated host configuration: netlify.toml (and the nginx config of an offline mirror)."""

from __future__ import annotations

from generator import templates
from generator.rewrites import HEADERS, rules


def netlify_toml() -> str:
    return templates.render("netlify.toml.j2", rules=rules(), headers=HEADERS)
