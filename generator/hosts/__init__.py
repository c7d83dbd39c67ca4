"""What speaks to hosts: the generated configs (netlify.toml, nginx, _headers), the hosts' published limits, the
local ``serve``, the landing page and the Jinja2 templates.

Owns: ``configs``, ``limits``, ``serve``, ``templates``, ``landing`` (with its ``charts``).

May import ``generator.frontdoor``, ``generator.api``, ``generator.output`` and ``generator.dataset``.
"""
