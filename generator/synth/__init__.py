"""Synthetic canonical datasets of any size for benchmarks and scale tests (``dataset``), with their vocabulary
(``vocab``) and market events (``events``).

May import ``generator.dataset`` only.
"""
