"""JSON Schema as OpenAPI 3.0.3 spells it, from pydantic models, in the forms client generators accept.

pydantic emits JSON Schema 2020-12. OpenAPI 3.0 has no ``null`` type: a nullable value is ``nullable: true``
beside a ``type``, a nullable enum also lists ``null`` among its values (3.0.3 requires it), and ``nullable``
beside a bare ``$ref``/``allOf`` has no effect (validators then refuse the null). So a nullable reference is
written as the referenced schema inlined with ``nullable: true``.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

REF_PREFIX = "#/components/schemas/"
NULL = {"type": "null"}


def _schema_map(schema: dict[str, Any], key: str, value: Any) -> bool:
    """True when ``value`` under ``key`` is a map of names to schemas (whose keys are names, not keywords)."""
    return key in ("properties", "$defs") and isinstance(value, dict)


def to_openapi_30(schema: Any) -> Any:
    """Rewrite a JSON Schema 2020-12 fragment (as pydantic emits it) into OpenAPI 3.0's dialect."""
    if isinstance(schema, list):
        return [to_openapi_30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("$defs", "title"):
            continue
        if _schema_map(schema, key, value):
            out[key] = {name: to_openapi_30(sub) for name, sub in value.items()}
        else:
            out[key] = to_openapi_30(value)
    for combinator in ("anyOf", "oneOf"):
        options = out.get(combinator)
        if options and NULL in options:
            rest = [o for o in options if o != NULL]
            del out[combinator]
            if len(rest) == 1:
                out.update({k: v for k, v in rest[0].items() if k not in out or k == "$ref"})
            else:
                out[combinator] = rest
            out["nullable"] = True
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if "$ref" in out:
        out["$ref"] = out["$ref"].replace("#/$defs/", REF_PREFIX)
    if out.get("nullable") and "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def resolve_nullable_refs(schema: Any, components: dict[str, Any]) -> Any:
    """Inline the target of every nullable or annotated ``$ref`` (3.0 ignores a ``$ref``'s siblings)."""
    if isinstance(schema, list):
        return [resolve_nullable_refs(item, components) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: resolve_nullable_refs(v, components) for k, v in schema.items()}
    if "$ref" in out and len(out) > 1:
        target = copy.deepcopy(components[out.pop("$ref").removeprefix(REF_PREFIX)])
        target.update(out)
        if target.get("nullable") and "enum" in target and None not in target["enum"]:
            target["enum"] = [*target["enum"], None]
        out = target
    return out


@functools.cache
def json_schema(model: type[BaseModel], mode: str) -> dict[str, Any]:
    """pydantic's JSON schema of a model, made once per process (read only: ``to_openapi_30`` copies what it
    rewrites)."""
    return model.model_json_schema(ref_template=REF_PREFIX + "{model}", mode=mode)  # type: ignore[arg-type]


class SchemaRegistry:
    """Component schemas by name; a name is refused when two different schemas would share it."""

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}

    def add(self, name: str, schema: dict[str, Any]) -> dict[str, str]:
        if name in self.schemas and self.schemas[name] != schema:
            raise ValueError(f"two different OpenAPI component schemas named {name}")
        self.schemas[name] = schema
        return {"$ref": f"{REF_PREFIX}{name}"}

    def ref(self, model: type[BaseModel], name: str | None = None, mode: str = "serialization") -> dict[str, str]:
        schema = json_schema(model, mode)
        for def_name, definition in schema.get("$defs", {}).items():
            self.add(def_name, to_openapi_30(definition))
        return self.add(name or model.__name__, to_openapi_30(schema))

    def finished(self, paths: Any) -> dict[str, Any]:
        """The components ``paths`` reach, sorted, with nullable references inlined (an inlined schema that
        nothing else references is left out)."""
        resolved = {name: resolve_nullable_refs(schema, self.schemas) for name, schema in self.schemas.items()}
        reached: set[str] = set()
        pending = list(_refs(paths))
        while pending:
            name = pending.pop()
            if name not in reached:
                reached.add(name)
                pending += _refs(resolved[name])
        return {name: resolved[name] for name in sorted(reached)}


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("$ref"), str) and value["$ref"].startswith(REF_PREFIX):  # not a response's
            yield value["$ref"].removeprefix(REF_PREFIX)
        for item in value.values():
            yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)
