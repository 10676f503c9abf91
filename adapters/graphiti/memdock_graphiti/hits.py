"""graphiti's nodes, facts and episodes as memdock hits, with our ids as provenance and graphiti's fields under
extra."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memdock import times

BACKEND = "graphiti"


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return times.format(value)
    return str(value)


TEMPORAL = ("valid_at", "invalid_at")  # kept even when null: a fact with no invalid_at still holds


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k in TEMPORAL or (v is not None and v != "" and v != [])}


def provenance(meta: dict[str, Any] | None) -> dict[str, Any]:
    if not meta:
        return {}
    chunk = meta["source_id"] if meta.get("source_id") != meta.get("entry_id") else None
    return _clean({"thread_id": meta.get("thread_id"), "entry_id": meta.get("entry_id"), "chunk_id": chunk})


def _hit(
    kind: str,
    uuid: str,
    score: float,
    text: str,
    prov: dict[str, Any],
    extra: dict[str, Any],
    name: str | None = None,
    event_time: str | None = None,
) -> dict[str, Any]:
    hit = {
        "id": uuid,
        "kind": kind,
        "score": score,
        "text": text,
        "provenance": prov,
        "backend": BACKEND,
        "extra": _clean(extra),
    }
    if name:
        hit["name"] = name
    if event_time:
        hit["event_time"] = event_time
    return hit


def episode_hit(ep: Any, score: float, meta: dict[str, Any] | None) -> dict[str, Any]:
    return _hit(
        "episode",
        ep.uuid,
        score,
        ep.content,
        provenance(meta),
        {
            "uuid": ep.uuid,
            "group_id": ep.group_id,
            "valid_at": _iso(ep.valid_at),
            "created_at": _iso(ep.created_at),
            "source": getattr(ep.source, "value", str(ep.source)),
            "source_description": ep.source_description,
            "author": (meta or {}).get("author"),
            "role": (meta or {}).get("role"),
            "entry_type": (meta or {}).get("entry_type"),
        },
        name=ep.name,
        event_time=(meta or {}).get("event_time") or _iso(ep.valid_at),
    )


def fact_hit(edge: Any, score: float, metas: dict[str, dict[str, Any]]) -> dict[str, Any]:
    known = [metas[u] for u in edge.episodes if u in metas]
    first = known[0] if known else None
    return _hit(
        "fact",
        edge.uuid,
        score,
        edge.fact,
        provenance(first),
        {
            "uuid": edge.uuid,
            "group_id": edge.group_id,
            "valid_at": _iso(edge.valid_at),
            "invalid_at": _iso(edge.invalid_at),
            "expired_at": _iso(edge.expired_at),
            "created_at": _iso(edge.created_at),
            "relation": edge.name,
            "source_node_uuid": edge.source_node_uuid,
            "target_node_uuid": edge.target_node_uuid,
            "episodes": list(edge.episodes),
            "entry_ids": sorted({m["entry_id"] for m in known if m.get("entry_id")}),
        },
        name=edge.name,
        event_time=_iso(edge.valid_at),
    )


def node_hit(
    node: Any, score: float, thread_id: str | None, neighbours: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return _hit(
        "node",
        node.uuid,
        score,
        node.summary or node.name,
        _clean({"thread_id": thread_id}),
        {
            "uuid": node.uuid,
            "group_id": node.group_id,
            "labels": list(node.labels),
            "created_at": _iso(node.created_at),
            "edges": neighbours,
        },
        name=node.name,
    )
