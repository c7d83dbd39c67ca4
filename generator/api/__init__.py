"""The API: the route registry and everything made from it that is not host-specific: the response models, the
SQL that yields each route's rows, listing pages with facets, profiles, exports, the OpenAPI document, problem
documents and the rewrite rules.

Owns: ``registry``, ``routes``, ``responses``, ``response_base``, ``profiles``, ``queries`` and ``sql/``,
``listing``, ``details``, ``exports``, ``openapi``, ``openapi_schemas``, ``problems``, ``rewrites``, ``access`` (the
API-key scheme). May import ``generator.output`` and ``generator.dataset``.
"""
