"""What changed, and who is told: change events, their feeds and their webhooks.

Owns: ``changes`` (the events of a dataset: its dated facts, and the differences one snapshot of the dataset
recorded against the previous one), ``feeds`` (the events as Atom and JSON Feed documents) and ``webhooks`` (signed
delivery of the events a subscriber has not yet had, after a build).

May import ``generator.api`` and ``generator.dataset``.
"""
