"""`query`, `search_nodes`, `search_episodes` and `get_node` over MemU's `retrieve`, with our ids as provenance.

MemU's memory items are nodes; the source entries (MemU resources, one per entry) are episodes, scored as their
best item; MemU's categories, whose summaries MemU rewrites from the items linked to them, are communities, fetched
by id with `get_node`. Search runs MemU's RAG retrieval over items only (no LLM call: intention routing and the
sufficiency check are off), with the thread filter pushed down as MemU's scope `where`; time, author, role and type
are checked against the catalog, fetching more candidates when they are set.
"""

from __future__ import annotations

from typing import Any

from memdock_entries.filters import Filters
from memdock_entries.hits import MAX_FETCH, OVERFETCH, best_episodes, clamp_score, node_hit, stored_episode

from memdock.sdk.params import limit_of, query_text, record_id

from .runtime import Runtime

BACKEND = "memu"
SCORE_SEMANTICS = (
    "MemU's item score: cosine similarity of the query and item embeddings (pgvector), clamped to [0, 1]; "
    "episodes score as their best item"
)


def item_hit(item: dict[str, Any], entry: dict[str, Any], score: float) -> dict[str, Any]:
    extra = {"memory_type": item.get("memory_type"), "resource_id": item.get("resource_id")}
    return node_hit(str(item["id"]), item.get("summary") or "", entry, score, BACKEND, extra)


def _scored(rt: Runtime, params: dict[str, Any], want: int) -> list[tuple[float, dict[str, Any], dict[str, Any]]]:
    text = query_text(params)
    f = Filters.parse(params)
    if not rt.catalog.counts().get("memories"):
        return []
    where: dict[str, Any] = rt.scope()
    if f.threads:
        where["thread_id__in"] = list(f.threads)
    checked = f.since is not None or f.until is not None or f.authors or f.roles or f.types
    rt.service.retrieve_config.item.top_k = min(MAX_FETCH, want * OVERFETCH) if checked else want
    query = [{"role": "user", "content": {"text": text}}]
    found = rt.run(lambda: rt.wait(rt.service.retrieve(query, where=where)), "search")
    items = found.get("items") or []
    entries = rt.catalog.entries(str(i.get("entry_id")) for i in items)
    out = []
    for item in items:
        entry = entries.get(str(item.get("entry_id")))
        if entry is not None and entry["state"] == "committed" and f.passes(entry):
            out.append((clamp_score(item.get("score")), item, entry))
    return out


def search_memories(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    limit = limit_of(params)
    return {"hits": [item_hit(i, e, s) for s, i, e in _scored(rt, params, limit)[:limit]]}


def search_episodes(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    limit = limit_of(params)
    scored = _scored(rt, params, min(MAX_FETCH, limit * OVERFETCH))
    return {"hits": best_episodes(((s, str(i["id"]), e) for s, i, e in scored), limit, BACKEND)}


def _category(rt: Runtime, rid: str) -> dict[str, Any] | None:
    cat = rt.db.memory_category_repo.list_categories(rt.scope()).get(rid)
    if cat is None:
        return None
    linked = [r.item_id for r in rt.db.category_item_repo.list_relations({**rt.scope(), "category_id": rid})]
    return {
        "id": rid,
        "kind": "community",
        "score": 1.0,
        "name": cat.name,
        "text": cat.summary or cat.description or "",
        "provenance": {"source": "memu category"},
        "backend": BACKEND,
        "extra": {"description": cat.description, "item_ids": linked},
    }


def get_node(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    """An entry by our id (an episode, with its items), a memory item or a category by MemU's id."""
    rid = record_id(params)
    stored = stored_episode(rt.catalog, rid, BACKEND)
    if stored is not None:
        hit, ids = stored
        items = (rt.db.memory_item_repo.get_item(i) for i in ids)
        hit["extra"]["memories"] = [i.summary for i in items if i is not None]
        return {"item": hit}
    owner = rt.catalog.entry_of_memory(rid)
    if owner is None:
        return {"item": _category(rt, rid) if rt.catalog.counts().get("entries_committed") else None}
    item = rt.db.memory_item_repo.get_item(rid)
    entry = rt.catalog.entry(owner)
    if item is None or entry is None:
        return {"item": None}
    return {"item": item_hit(item.model_dump(), entry, 1.0)}
