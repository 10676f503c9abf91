"""Checks of the request parameters every search-capable adapter reads: the text, the limit, one id, the groups."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError
from ..limits import MAX_LIMIT, MIN_LIMIT


def query_text(params: dict[str, Any]) -> str:
    text = params.get("text")
    if not isinstance(text, str):
        raise InvalidInputError("params.text must be a string")
    if not text.strip():
        raise InvalidInputError("params.text is empty: give the words to search for")
    return text


def limit_of(params: dict[str, Any]) -> int:
    limit = params.get("limit", 10)
    if not isinstance(limit, int) or isinstance(limit, bool) or not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise InvalidInputError(f"params.limit must be an integer from {MIN_LIMIT} to {MAX_LIMIT}, got {limit!r}")
    return limit


def record_id(params: dict[str, Any]) -> str:
    value = params.get("id")
    if not isinstance(value, str) or not value or len(value) > 256:
        raise InvalidInputError("params.id must be a non-empty string of at most 256 characters")
    return value


def group_ids(params: dict[str, Any]) -> list[str] | None:
    """The thread ids a structural search is restricted to (params.group_ids), or None for all of them."""
    groups = params.get("group_ids")
    if groups is None:
        return None
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise InvalidInputError("params.group_ids must be a list of thread ids")
    return groups or None
