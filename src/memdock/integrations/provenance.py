"""What a memdock hit says about where it came from, as the flat metadata other frameworks' documents carry."""

from __future__ import annotations

from typing import Any

from ..errors import BackendError
from ..records import Hit


def answered_hits(result: Any) -> list[Hit]:
    """RESULT's hits; a degraded answer with none (the backend failed, timed out, refused the query) is a
    BackendError with its reason rather than an empty list a framework would take for "nothing relevant"."""
    if getattr(result, "degraded", False) and not result.hits:
        reason = getattr(result, "reason", None) or "no reason given"
        raise BackendError(f"memdock recall failed (degraded, no hits): {reason}", details={"reason": reason})
    return list(result.hits)


def metadata(hit: Hit) -> dict[str, Any]:
    """The hit's id, kind, score, backend and time, its provenance (thread_id, entry_id, chunk ids...) and the
    scalar fields of its extra (author, role, ...), under stable keys prefixed nowhere: a memdock hit is the
    whole document."""
    out: dict[str, Any] = {"id": hit.id, "kind": hit.kind, "score": hit.score, "backend": hit.backend}
    if hit.event_time:
        out["event_time"] = hit.event_time
    if hit.name:
        out["name"] = hit.name
    out.update(hit.provenance)
    for key, value in (hit.extra or {}).items():
        if key not in out and (value is None or isinstance(value, (str, int, float, bool))):
            out[key] = value
    return out
