"""Free-form metadata on an entry (`remember(..., metadata={...})`) and `where` filters over it.

Metadata is a JSON object of the caller's own fields, kept on the entry and on each of its chunks (the
`metadata` field of the v1 records). A `where` filter matches entries whose field equals a value, or is one of
several: `{"project": "apollo"}`, `{"project": ["apollo", "gemini"]}`, `{"project": {"$in": [...]}}`,
`{"done": {"$eq": true}}`. Several keys are AND-ed. Another operator is an UnsupportedOperationError naming it.
A key no entry holds matches nothing (as in Chroma and mem0), which is not an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..errors import InvalidInputError, UnsupportedOperationError

MAX_DEPTH = 4
MAX_BYTES = 16_384
MAX_KEY = 128
MAX_VALUES = 1000
OPERATORS = ("$eq", "$in")
RESERVED = frozenset(
    {
        "id", "content", "text", "body", "thread", "thread_id", "author", "role", "type", "entry_type", "title",
        "time", "event_time", "ingestion_time", "source", "source_line", "position", "entry_id", "chunk_id",
    }
)  # fmt: skip
"""Keys that name a built-in field: filtering or storing them as metadata would say two things at once."""

Scalar = str | int | float | bool | None


def _key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not key.strip():
        raise InvalidInputError(f"{where}: a key must be a non-empty string, got {key!r}")
    if len(key) > MAX_KEY:
        raise InvalidInputError(f"{where}: key {key[:40]!r}... is {len(key)} characters; the limit is {MAX_KEY}")
    if key in RESERVED:
        raise InvalidInputError(
            f"{where}: key {key!r} is a built-in field; pass it as its own argument, or rename the key",
            details={"key": key},
        )
    return key


def _depth(value: Any, level: int, path: str) -> None:
    if level > MAX_DEPTH:
        raise InvalidInputError(f"metadata is nested too deep at {path} (more than {MAX_DEPTH} levels)")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInputError(f"metadata key {k!r} at {path} is not a string")
            _depth(v, level + 1, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _depth(v, level + 1, f"{path}[{i}]")


def check(value: Any) -> dict[str, Any] | None:
    """METADATA as stored: None, or a JSON object of at most MAX_BYTES, MAX_DEPTH levels, no built-in keys."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"metadata must be a JSON object (a dict), got {type(value).__name__}")
    out = {_key(k, "metadata"): v for k, v in value.items()}
    _depth(out, 1, "metadata")
    try:
        size = len(orjson.dumps(out))
    except TypeError as exc:
        raise InvalidInputError(f"metadata is not JSON: {exc}") from None
    if size > MAX_BYTES:
        raise InvalidInputError(f"metadata is {size:,} bytes of JSON; the limit is {MAX_BYTES:,}")
    return out or None


def _scalar(value: Any, where: str) -> Scalar:
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise InvalidInputError(f"{where}: match a string, number, boolean or null, got {type(value).__name__}")
    return value


def where(value: Any) -> dict[str, list[Scalar]] | None:
    """A `where` filter as the wire carries it: each key with the values it may take (any of them)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"where must be an object of key: value, got {type(value).__name__}")
    out: dict[str, list[Scalar]] = {}
    for key, wanted in value.items():
        name = _key(key, "where")
        label = f"where[{name!r}]"
        if isinstance(wanted, Mapping):
            unknown = [op for op in wanted if op not in OPERATORS]
            if unknown or len(wanted) != 1:
                raise UnsupportedOperationError(
                    f"{label}: operator {unknown[0] if unknown else sorted(wanted)!r} is not supported; "
                    f"use a value, a list of values, or one of {', '.join(OPERATORS)}",
                    details={"key": name, "operators": list(OPERATORS)},
                )
            op, wanted = next(iter(wanted.items()))
            if op == "$eq":
                wanted = [wanted]
        values = list(wanted) if isinstance(wanted, (list, tuple, set, frozenset)) else [wanted]
        if not values or len(values) > MAX_VALUES:
            raise InvalidInputError(f"{label}: give 1 to {MAX_VALUES} values, got {len(values)}")
        out[name] = [_scalar(v, label) for v in values]
    return out or None


def parse_pairs(pairs: list[str] | None, flag: str) -> dict[str, Any] | None:
    """CLI KEY=VALUE pairs (VALUE read as JSON when it is a number, true/false/null or quoted, else as text); a
    key given twice collects its values (for --where: any of them)."""
    if not pairs:
        return None
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"{flag} expects KEY=VALUE, got {pair!r}", details={"option": flag})
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = raw
        if isinstance(value, (dict, list)):
            value = raw
        if key in out:
            previous = out[key] if isinstance(out[key], list) else [out[key]]
            out[key] = [*previous, value]
        else:
            out[key] = value
    return out
