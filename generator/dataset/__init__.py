"""The dataset: the canonical tables' schema (pydantic models) and vocabulary, the ISO country table, strict CSV
cells, validation and loading into DuckDB, the data dictionary, and the one serializer of JSON bytes.

Owns: ``schema``, ``attribution``, ``vocabulary``, ``countries``, ``cells``, ``lines``, ``issues``, ``load``,
``database``, ``serialize``, ``dictionary``.
Imports no other package of the generator: it is the bottom of the stack
(pipeline -> hosts -> frontdoor -> api -> output -> dataset).
"""
