"""Argument checks the service makes before any backend call: a bad argument never costs a process."""

from __future__ import annotations

from typing import Any, Sequence

from ..errors import InvalidInputError

MIN_LIMIT, MAX_LIMIT = 1, 50
MAX_ID = 256
MAX_QUERY = 10_000
FILTER_KEYS = {"thread_ids", "time_from", "time_to", "authors", "roles", "entry_types"}


def text(value: Any, *, name: str = "query") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} is empty: give the words to search for")
    if len(value) > MAX_QUERY:
        raise InvalidInputError(f"{name} is {len(value)} characters; the limit is {MAX_QUERY}")
    return value


def limit(value: Any) -> int:
    """Clamped to 1-50 rather than refused: an agent asking for 500 results wants many, not an error."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"limit must be an integer, got {value!r}") from None
    return max(MIN_LIMIT, min(MAX_LIMIT, n))


def identifier(value: Any, *, name: str = "id") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} is empty")
    if len(value) > MAX_ID:
        raise InvalidInputError(f"{name} is {len(value)} characters; ids are at most {MAX_ID}")
    return value


def identifiers(values: Sequence[Any], *, name: str = "ids") -> list[str]:
    if isinstance(values, str) or not values:
        raise InvalidInputError(f"{name} must be a non-empty list of ids")
    return [identifier(v, name=name) for v in values]


def filters(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if not value:
        return None
    unknown = set(value) - FILTER_KEYS
    if unknown:
        raise InvalidInputError(f"unknown filter(s) {sorted(unknown)}; known: {sorted(FILTER_KEYS)}")
    return {k: v for k, v in value.items() if v not in (None, [], "")} or None
