"""Loading the published JSON Schemas (schemas/v1) into self-contained documents.

Each record schema refers to shared definitions in defs.schema.json; on load
those references are inlined under the schema's own $defs, so any engine can
compile it without a reference registry.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import orjson

from .resources import schemas_dir

RECORD_TYPES = ("thread", "entry", "edge", "chunk", "embedding", "entity", "query", "hit")
_DEFS_PREFIX = "defs.schema.json#/$defs/"


def available(version: str = "v1") -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in schemas_dir(version).glob("*.schema.json"))


@cache
def _raw(name: str, version: str) -> dict[str, Any]:
    path = schemas_dir(version) / f"{name}.schema.json"
    if not path.is_file():
        raise KeyError(f"no schema {name!r} in {schemas_dir(version)}")
    return orjson.loads(path.read_bytes())


def _rewrite_refs(node: Any, embeds: set[str]) -> Any:
    """Point references at local $defs: defs.schema.json#/$defs/X -> #/$defs/X, NAME.schema.json -> #/$defs/NAME."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith(_DEFS_PREFIX):
                out[k] = "#/$defs/" + v[len(_DEFS_PREFIX) :]
            elif k == "$ref" and isinstance(v, str) and v.endswith(".schema.json"):
                name = v.removesuffix(".schema.json")
                embeds.add(name)
                out[k] = f"#/$defs/{name}"
            else:
                out[k] = _rewrite_refs(v, embeds)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v, embeds) for v in node]
    return node


def _open_objects(node: Any) -> Any:
    """Drop additionalProperties:false everywhere: the reading of a newer MINOR keeps unknown fields."""
    if isinstance(node, dict):
        return {k: _open_objects(v) for k, v in node.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [_open_objects(v) for v in node]
    return node


@cache
def load(name: str, version: str = "v1", *, lenient: bool = False) -> dict[str, Any]:
    """The self-contained schema for NAME; lenient=True accepts unknown fields (newer MINOR payloads)."""
    embeds: set[str] = set()
    schema = _rewrite_refs(copy.deepcopy(_raw(name, version)), embeds)
    if name != "defs":
        defs = dict(_raw("defs", version)["$defs"])
        for other in sorted(embeds):
            body = _rewrite_refs(copy.deepcopy(_raw(other, version)), set())
            defs[other] = {k: v for k, v in body.items() if k not in ("$schema", "$id", "$defs")}
        defs.update(schema.get("$defs", {}))
        schema["$defs"] = defs
    if lenient:
        schema = _open_objects(schema)
    return schema
