"""`query`, `search_*` and `get_*`: graphiti searches per group graph, merged, filtered and normalised.

Thread filters (and `group_ids`) choose the graphs to search. Time, author, role and entry-type
filters are checked afterwards against the catalog's record of each episode (a fact passes when one
of its episodes does), so a filtered search asks graphiti for more candidates than it returns.
Entities are filtered by thread only: they belong to no single entry.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from graphiti_core.edges import EntityEdge
from graphiti_core.errors import EdgeNotFoundError, NodeNotFoundError
from graphiti_core.nodes import EntityNode, EpisodicNode

from memdock.sdk.kit.filters import filter_object, thread_ids, time_bound
from memdock.sdk.params import limit_of, query_text, record_id

from . import hits, recipes
from .runtime import Runtime

FILTERS = {"thread_ids", "time_from", "time_to", "authors", "roles", "entry_types"}
OVERFETCH, MAX_FETCH = 4, 200
NEIGHBOURS = 50


class Filters:
    def __init__(self, params: dict[str, Any]):
        f = filter_object(params, FILTERS)
        self.threads = thread_ids(f, params) or None
        self.since, self.until = time_bound(f, "time_from"), time_bound(f, "time_to")
        self.authors = [str(a).lower() for a in f.get("authors") or []]
        self.roles = {str(r).lower() for r in f.get("roles") or []}
        self.types = {str(t).lower() for t in f.get("entry_types") or []}

    @property
    def on_records(self) -> bool:
        return any((self.since, self.until, self.authors, self.roles, self.types))

    def passes(self, meta: dict[str, Any] | None) -> bool:
        if not self.on_records:
            return True
        if meta is None:
            return False
        when = time_bound({"t": meta.get("event_time")}, "t")
        if (self.since and (when is None or when < self.since)) or (self.until and (when is None or when > self.until)):
            return False
        if self.authors and not _author_matches(meta.get("author"), self.authors):
            return False
        if self.roles and str(meta.get("role") or "").lower() not in self.roles:
            return False
        return not self.types or str(meta.get("entry_type") or "").lower() in self.types


def _author_matches(author: str | None, wanted: list[str]) -> bool:
    """ "Codex (lee)" matches codex, lee, or itself: watercooler writes authors as "agent (user)"."""
    low = (author or "").lower()
    return any(low == w or low.startswith(f"{w} (") or low.endswith(f"({w})") for w in wanted)


def search(rt: Runtime, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    text, limit, filters = query_text(params), limit_of(params), Filters(params)
    groups = rt.catalog.groups(filters.threads)
    if not groups:
        reason = "nothing indexed yet" if filters.threads is None else "no indexed episodes in the requested threads"
        return {"hits": [], "backend": hits.BACKEND, "reason": reason}
    rt.connect()
    fetch = min(MAX_FETCH, limit * OVERFETCH) if filters.on_records else limit
    found = rt.run(_search(rt, operation, text, fetch, groups, filters), operation)
    found.sort(key=lambda h: -h["score"])
    out = found[:limit]
    for rank, h in enumerate(out, 1):
        h["rank"] = rank
    return {"hits": out, "backend": hits.BACKEND, "took_ms": round((time.monotonic() - started) * 1000, 2)}


async def _search(
    rt: Runtime, operation: str, text: str, fetch: int, groups: list[str], filters: Filters
) -> list[dict[str, Any]]:
    """Every group's graph searched at once, with the query embedded once for all of them."""
    rerank = rt.settings.rerank
    cfg = recipes.config(operation, fetch, rerank)
    vector = None
    if cfg.edge_config or cfg.node_config:
        vector = await rt.clients()[1].create([text.replace("\n", " ")])
    graphs = [await rt.graph(gid) for gid in groups]
    results = await asyncio.gather(
        *(g.search_(text, config=cfg, group_ids=[gid], query_vector=vector) for g, gid in zip(graphs, groups))
    )
    threads = rt.catalog.threads_of(groups)
    out: list[dict[str, Any]] = []
    for gid, res in zip(groups, results):
        uuids = [e.uuid for e in res.episodes] + [u for edge in res.edges for u in edge.episodes]
        metas = rt.catalog.describe(uuids)
        for ep, raw in zip(res.episodes, res.episode_reranker_scores):
            if filters.passes(metas.get(ep.uuid)):
                out.append(hits.episode_hit(ep, recipes.normalise("episodes", raw, rerank), metas.get(ep.uuid)))
        for edge, raw in zip(res.edges, res.edge_reranker_scores):
            if not filters.on_records or any(filters.passes(metas.get(u)) for u in edge.episodes):
                out.append(hits.fact_hit(edge, recipes.normalise("edges", raw, rerank), metas))
        for node, raw in zip(res.nodes, res.node_reranker_scores):
            out.append(hits.node_hit(node, recipes.normalise("nodes", raw, rerank), threads.get(gid)))
    return out


def get_node(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    """An episode by our id (entry, chunk) or its uuid; else an entity by uuid, with its facts."""
    node_id = record_id(params)
    episodes = rt.catalog.resolve(node_id)
    groups = rt.catalog.groups()
    if not episodes and not groups:
        return {"item": None}
    rt.connect()
    return {"item": rt.run(_get_node(rt, node_id, episodes, groups), "get_node")}


async def _get_node(
    rt: Runtime, node_id: str, episodes: list[tuple[str, str]], groups: list[str]
) -> dict[str, Any] | None:
    for uuid, gid in episodes:
        g = await rt.graph(gid)
        try:
            ep = await EpisodicNode.get_by_uuid(g.driver, uuid)
        except NodeNotFoundError:
            continue
        return hits.episode_hit(ep, 1.0, rt.catalog.describe([uuid]).get(uuid))
    threads = rt.catalog.threads_of(groups)
    for gid in groups:
        g = await rt.graph(gid)
        try:
            node = await EntityNode.get_by_uuid(g.driver, node_id)
        except NodeNotFoundError:
            continue
        edges = (await EntityEdge.get_by_node_uuid(g.driver, node_id))[:NEIGHBOURS]
        neighbours = [
            {
                "edge_id": e.uuid,
                "type": e.name,
                "direction": "out" if e.source_node_uuid == node_id else "in",
                "other_id": e.target_node_uuid if e.source_node_uuid == node_id else e.source_node_uuid,
                "fact": e.fact,
            }
            for e in edges
        ]
        return hits.node_hit(node, 1.0, threads.get(gid), neighbours)
    return None


def get_edge(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    edge_id = record_id(params)
    groups = rt.catalog.groups()
    if not groups:
        return {"item": None}
    rt.connect()
    return {"item": rt.run(_get_edge(rt, edge_id, groups), "get_edge")}


async def _get_edge(rt: Runtime, edge_id: str, groups: list[str]) -> dict[str, Any] | None:
    for gid in groups:
        g = await rt.graph(gid)
        try:
            edge = await EntityEdge.get_by_uuid(g.driver, edge_id)
        except EdgeNotFoundError:
            continue
        return hits.fact_hit(edge, 1.0, rt.catalog.describe(edge.episodes))
    return None
