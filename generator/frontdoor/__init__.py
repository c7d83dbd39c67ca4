"""The query front door: every query a person writes from the spec, answered exactly from the published files.

Owns: ``space`` (the query-space description the build writes into the output, generated from the registry and
the data), ``resolver``, ``listing`` and ``indexed`` (the Python resolver ``serve`` and the Python client run;
``indexed`` answers through a route's query index, ``generator.api.query_index``), ``common``,
``client`` (a client for hosts that run no code), ``keys`` (the API-key gate of ``serve --keys``) and ``js/`` (the
JavaScript resolver and key gate the Netlify Edge Function, the Cloudflare Pages worker and the JavaScript client
run).

May import ``generator.api`` and ``generator.dataset``.
"""
