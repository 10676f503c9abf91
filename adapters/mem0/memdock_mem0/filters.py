"""memdock's query filters as mem0 search filters on the metadata the indexer wrote (`md_*` keys)."""

from __future__ import annotations

from typing import Any

from memdock_entries.filters import Filters


def mem0_filters(params: dict[str, Any], scope: dict[str, str]) -> dict[str, Any]:
    """SCOPE plus the request's filters; one thread becomes mem0's run_id, several a metadata `in`."""
    f = Filters.parse(params)
    out: dict[str, Any] = dict(scope)
    if len(f.threads) == 1:
        out["run_id"] = f.threads[0]
    elif f.threads:
        out["md_thread_id"] = {"in": list(f.threads)}
    bounds = {k: v for k, v in (("gte", f.since), ("lte", f.until)) if v is not None}
    if bounds:
        out["md_event_ts"] = bounds
    for values, field in ((f.authors, "md_author_keys"), (f.roles, "md_role"), (f.types, "md_type")):
        if values:
            out[field] = {"in": list(values)}
    return out
