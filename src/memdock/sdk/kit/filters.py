"""The `filters` object of a search request, as adapters that filter their framework's hits themselves read it."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ...errors import InvalidInputError
from ...times import parse_datetime


def filter_object(params: dict[str, Any], known: Collection[str]) -> dict[str, Any]:
    """PARAMS' `filters` (an empty dict when absent), refused unless it is an object naming only KNOWN filters."""
    f = params.get("filters") or {}
    if not isinstance(f, dict):
        raise InvalidInputError("filters must be an object")
    unknown = sorted(set(f) - set(known))
    if unknown:
        raise InvalidInputError(f"unknown filters {unknown}; known: {sorted(known)}")
    return f


def time_bound(filters: dict[str, Any], key: str) -> float | None:
    """FILTERS[KEY] (an RFC 3339 date-time) as epoch seconds; None when unset."""
    value = filters.get(key)
    if not value:
        return None
    try:
        return parse_datetime(str(value)).timestamp()
    except ValueError:
        raise InvalidInputError(f"filters.{key}: not an RFC 3339 date-time: {value!r}") from None


def thread_ids(filters: dict[str, Any], params: dict[str, Any]) -> list[str]:
    """The threads a search is limited to: filters.thread_ids and the request's group_ids, in order, once each."""
    return list(dict.fromkeys(list(filters.get("thread_ids") or []) + list(params.get("group_ids") or [])))
