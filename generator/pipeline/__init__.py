"""The build's orchestration: ``build()`` and its stages, the worker processes that render listings and
profiles (``fanout``), table-by-table validation in workers (``tablewise``) and reloading unchanged tables from
the previous output (``reload``).

May import every package below it: ``generator.events``, ``generator.hosts``, ``generator.frontdoor``,
``generator.api``, ``generator.output``, ``generator.dataset``.
"""
