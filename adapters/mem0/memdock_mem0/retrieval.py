"""`query`, `search_nodes`, `search_episodes` and `get_node` over mem0's search, with our ids as provenance.

Memories are nodes. Episodes are the source entries: an entry scores as its best memory, and its
text is the entry as mem0 was given it. mem0 keeps a history of events per memory (ADD, UPDATE,
DELETE); this adapter only ever adds and deletes, so those events say nothing a search could use
and `search_facts` is not offered; `get_node` returns a memory's history under `extra`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from memdock_entries.hits import MAX_FETCH, OVERFETCH, clamp_score, episode_hit, stored_episode

from memdock.sdk.params import limit_of, query_text, record_id

from .filters import mem0_filters
from .runtime import Runtime

BACKEND = "mem0"
SCORE_SEMANTICS = (
    "mem0's search score: cosine similarity of the query and memory embeddings (plus mem0's BM25 and "
    "entity boosts when its optional extras are installed), clamped to [0, 1]; episodes score as their best memory"
)


def memory_hit(m: dict[str, Any], score: float | None = None) -> dict[str, Any]:
    meta = m.get("metadata") or {}
    prov = {
        k: v
        for k, v in (("thread_id", meta.get("md_thread_id") or m.get("run_id")), ("entry_id", meta.get("md_entry_id")))
        if v
    }
    extra = {
        "user_id": m.get("user_id"),
        "run_id": m.get("run_id"),
        "hash": m.get("hash"),
        "created_at": m.get("created_at"),
        "updated_at": m.get("updated_at"),
        "author": meta.get("md_author"),
        "role": meta.get("md_role"),
        "entry_type": meta.get("md_type"),
    }
    hit = {
        "id": str(m["id"]),
        "kind": "node",
        "score": clamp_score(m.get("score") if score is None else score),
        "text": m.get("memory") or "",
        "provenance": prov,
        "backend": BACKEND,
        "extra": {k: v for k, v in extra.items() if v is not None},
    }
    if meta.get("md_event_time"):
        hit["event_time"] = meta["md_event_time"]
    return hit


def _memories(rt: Runtime, params: dict[str, Any], top_k: int) -> list[dict[str, Any]]:
    text = query_text(params)
    filters = mem0_filters(params, rt.scope())
    if not rt.catalog.counts().get("memories"):
        return []
    found = rt.run(
        lambda: rt.memory.search(text, top_k=top_k, filters=filters, threshold=rt.settings.min_score), "search"
    )
    return list(found.get("results", []))


def search_memories(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    limit = limit_of(params)
    return {"hits": [memory_hit(m) for m in _memories(rt, params, limit)]}


def search_episodes(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    limit = limit_of(params)
    best: dict[str, tuple[float, list[str]]] = {}
    for m in _memories(rt, params, min(MAX_FETCH, limit * OVERFETCH)):
        eid = (m.get("metadata") or {}).get("md_entry_id")
        if not eid:
            continue
        score, ids = best.get(eid, (0.0, []))
        best[eid] = (max(score, clamp_score(m.get("score"))), ids + [str(m["id"])])
    entries = rt.catalog.entries(best)
    ranked = sorted(((eid, *v) for eid, v in best.items() if eid in entries), key=lambda x: -x[1])[:limit]
    return {"hits": [episode_hit(entries[eid], score, ids, BACKEND) for eid, score, ids in ranked]}


def get_node(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    """A memory by mem0 id (with its history), or an entry by our id (an episode, with its memories)."""
    rid = record_id(params)
    stored = stored_episode(rt.catalog, rid, BACKEND)
    if stored is not None:
        hit, ids = stored
        fetched = (rt.run(partial(rt.memory.get, i), "get_node") for i in ids)
        hit["extra"]["memories"] = [m["memory"] for m in fetched if m]
        return {"item": hit}
    if rt.catalog.entry_of_memory(rid) is None:
        return {"item": None}
    found = rt.run(lambda: rt.memory.get(rid), "get_node")
    if not found:
        return {"item": None}
    hit = memory_hit(found, 1.0)
    hit["extra"]["history"] = [
        {k: h.get(k) for k in ("event", "old_memory", "new_memory", "created_at")}
        for h in rt.run(lambda: rt.memory.history(rid), "get_node: history")
    ]
    return {"item": hit}
