"""memdock's query filters as mem0 search filters on the metadata the indexer wrote (`md_*` keys)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from memdock.errors import InvalidInputError

KNOWN = {"thread_ids", "time_from", "time_to", "authors", "roles", "entry_types"}


def _epoch(filters: dict[str, Any], key: str) -> float:
    try:
        t = datetime.fromisoformat(str(filters[key]).replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInputError(f"filters.{key}: not an RFC 3339 date-time: {filters[key]!r}") from None
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()


def mem0_filters(params: dict[str, Any], scope: dict[str, str]) -> dict[str, Any]:
    """SCOPE plus the request's filters; one thread becomes mem0's run_id, several a metadata `in`."""
    f = params.get("filters") or {}
    if not isinstance(f, dict):
        raise InvalidInputError("filters must be an object")
    unknown = sorted(set(f) - KNOWN)
    if unknown:
        raise InvalidInputError(f"unknown filters {unknown}; known: {sorted(KNOWN)}")
    out: dict[str, Any] = dict(scope)
    threads = list(dict.fromkeys(list(f.get("thread_ids") or []) + list(params.get("group_ids") or [])))
    if len(threads) == 1:
        out["run_id"] = threads[0]
    elif threads:
        out["md_thread_id"] = {"in": threads}
    if f.get("time_from") and f.get("time_to"):
        out["md_event_ts"] = {"gte": _epoch(f, "time_from"), "lte": _epoch(f, "time_to")}
    elif f.get("time_from"):
        out["md_event_ts"] = {"gte": _epoch(f, "time_from")}
    elif f.get("time_to"):
        out["md_event_ts"] = {"lte": _epoch(f, "time_to")}
    for key, field in (("authors", "md_author_keys"), ("roles", "md_role"), ("entry_types", "md_type")):
        if f.get(key):
            out[field] = {"in": [str(v).lower() for v in f[key]]}
    return out
