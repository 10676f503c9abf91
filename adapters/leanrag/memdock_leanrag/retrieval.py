"""`query`, `search_*` and `get_*` over LeanRAG's graph.

The search is LeanRAG's retrieval (query_graph.py) without its answer-writing LLM call: the query's
vector against every entity and aggregate (`search_vector_search`), the reasoning chain between the
top matches up their trees (`get_reasoning_chain`: relations found with `search_nodes_link`), the
communities on those paths (`get_aggregation_description`: `search_community`), and the source chunks
named most often by the matches. Our `database_utils` records what each step read; those rows become
hits. `search_facts` also takes the extracted relations that touch the matched entities.
Time, author, role and type filters apply to each hit's source chunks (a hit passes if one does);
hits whose source chunks were all deleted are dropped.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from typing import Any

import numpy as np

from memdock.sdk.kit.filters import filter_object, thread_ids, time_bound
from memdock.sdk.params import limit_of, query_text, record_id

from . import hits
from .runtime import Runtime

FILTERS = {"thread_ids", "time_from", "time_to", "authors", "roles", "entry_types"}
MAX_FETCH = 200


class Filters:
    def __init__(self, params: dict[str, Any]):
        f = filter_object(params, FILTERS)
        self.threads = set(thread_ids(f, params))
        self.since, self.until = time_bound(f, "time_from"), time_bound(f, "time_to")
        self.authors = [str(a).lower() for a in f.get("authors") or []]
        self.roles = {str(r).lower() for r in f.get("roles") or []}
        self.types = {str(t).lower() for t in f.get("entry_types") or []}

    @property
    def active(self) -> bool:
        return bool(self.threads or self.since or self.until or self.authors or self.roles or self.types)

    def passes(self, c: dict[str, Any]) -> bool:
        if self.threads and c["thread_id"] not in self.threads:
            return False
        when = time_bound(c, "event_time")
        if (self.since and (when is None or when < self.since)) or (self.until and (when is None or when > self.until)):
            return False
        if self.authors:
            low = (c.get("author") or "").lower()
            if not any(low == w or low.startswith(f"{w} (") or low.endswith(f"({w})") for w in self.authors):
                return False
        if self.roles and str(c.get("role") or "").lower() not in self.roles:
            return False
        return not self.types or str(c.get("entry_type") or "").lower() in self.types


class _Graph:
    """Reads of our own columns (ids, levels, source chunks) beside LeanRAG's calls."""

    def __init__(self, rt: Runtime):
        self.rt = rt
        self.con = sqlite3.connect(rt.graph_dir / "leanrag.sqlite", timeout=30)

    def entity(self, name: str) -> tuple | None:
        return self.con.execute(
            "SELECT node_id, entity_name, description, source_id, parent, level, entity_type FROM entities "
            "WHERE entity_name = ? ORDER BY level LIMIT 1",
            (name,),
        ).fetchone()

    def relation_sources(self, src: str, tgt: str) -> list[str]:
        rows = self.con.execute(
            "SELECT source_id FROM relations WHERE src_tgt = ? AND tgt_src = ? AND source_id IS NOT NULL", (src, tgt)
        ).fetchall()
        out = [s for r in rows for s in hits.split_sources(r[0])]
        if not out:
            for name in (src, tgt):
                e = self.entity(name)
                out += hits.split_sources(e[3]) if e else []
        return list(dict.fromkeys(out))

    def touching(self, names: list[str], limit: int) -> list[tuple]:
        marks = ",".join("?" * len(names))
        return self.con.execute(
            f"SELECT src_tgt, tgt_src, description, weight, level FROM relations WHERE level = 0 AND "
            f"(src_tgt IN ({marks}) OR tgt_src IN ({marks})) LIMIT ?",
            (*names, *names, limit),
        ).fetchall()

    def close(self) -> None:
        self.con.close()


def _cos(rt: Runtime, query: np.ndarray, texts: list[str]) -> list[float]:
    if not texts:
        return []
    m = rt.embedder.embed(texts)
    q = query / (float(np.linalg.norm(query)) or 1.0)
    norms = np.linalg.norm(m, axis=1)
    norms[norms == 0] = 1.0
    return [float(x) for x in (m @ q) / norms]


def search(rt: Runtime, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    text, limit, filters = query_text(params), limit_of(params), Filters(params)
    if not (rt.graph_dir / "leanrag.sqlite").exists():
        return {"hits": [], "backend": hits.BACKEND, "reason": "nothing indexed yet"}
    lr = rt.leanrag()
    dbu, qg = lr.dbu, lr.query_graph
    fetch = min(MAX_FETCH, max(rt.settings.top_k, limit * (4 if filters.active else 1)))
    qvec = rt.embedder.embed([text])[0]
    config = {"working_dir": str(rt.graph_dir)}
    with dbu.recording() as record:
        found = dbu.search_vector_search(str(rt.graph_dir), [qvec], topk=fetch, level_mode=2)
        scores = dict(dbu.LAST_SCORES)
        top = [f[0] for f in found[: rt.settings.top_k]]
        if operation in ("query", "search_facts") and len(top) > 1:
            path, _ = qg.get_reasoning_chain(config, top)
            if operation == "query":
                qg.get_aggregation_description(config, path)
    graph = _Graph(rt)
    try:
        out = _hits(rt, graph, operation, qvec, found, scores, record, limit)
    finally:
        graph.close()
    chunks = rt.catalog.chunks_by_key(k for h in out for k in h.pop("_keys"))
    kept = []
    for h in out:
        mine = [chunks[k] for k in h.pop("_chunk_keys") if k in chunks]
        if not mine or (filters.active and not any(filters.passes(c) for c in mine)):
            continue
        mine.sort(key=lambda c: not filters.passes(c))
        kept.append(hits.hit(h["kind"], h["id"], h["score"], h["text"], mine, h["extra"], h.get("name")))
    best: dict[str, dict[str, Any]] = {}
    for h in kept:
        if h["id"] not in best or h["score"] > best[h["id"]]["score"]:
            best[h["id"]] = h
    ranked = sorted(best.values(), key=lambda h: -h["score"])[:limit]
    for rank, h in enumerate(ranked, 1):
        h["rank"] = rank
    return {"hits": ranked, "backend": hits.BACKEND, "took_ms": round((time.monotonic() - started) * 1000, 2)}


def _raw(
    kind: str, hid: str, score: float, text: str, keys: list[str], extra: dict[str, Any], name: str | None = None
) -> dict:
    return {
        "kind": kind,
        "id": hid,
        "score": score,
        "text": text,
        "_keys": keys,
        "_chunk_keys": keys,
        "extra": extra,
        "name": name,
    }


def _hits(
    rt: Runtime,
    graph: _Graph,
    operation: str,
    qvec: np.ndarray,
    found: list[tuple],
    scores: dict[str, float],
    record: list[tuple[str, Any]],
    limit: int,
) -> list[dict[str, Any]]:
    dbu = rt.leanrag().dbu
    out: list[dict[str, Any]] = []
    if operation in ("query", "search_nodes"):
        for name, parent, description, source_id in found:
            e = graph.entity(name)
            level = e[5] if e else 0
            out.append(
                _raw(
                    "node" if level == 0 else "community",
                    dbu.node_id(name),
                    (scores.get(name, -1.0) + 1) / 2,
                    description or name,
                    hits.split_sources(source_id),
                    {"level": level, "parent": parent, "entity_type": e[6] if e else None},
                    name,
                )
            )
    facts: list[tuple] = [row for kind, row in record if kind == "relation"]
    if operation == "search_facts":
        names = [f[0] for f in found if (graph.entity(f[0]) or (0,) * 6)[5] == 0]
        if names:
            facts += graph.touching(names, MAX_FETCH)
    if facts and operation in ("query", "search_facts"):
        uniq = list({(r[0], r[1], r[4]): r for r in facts}.values())
        texts = [f"{r[0]} -> {r[1]}: {r[2]}" for r in uniq]
        for r, t, c in zip(uniq, texts, _cos(rt, qvec, texts)):
            out.append(
                _raw(
                    "fact",
                    dbu.fact_id(r[0], r[1], r[4]),
                    (c + 1) / 2,
                    t,
                    graph.relation_sources(r[0], r[1]),
                    {"source": r[0], "target": r[1], "level": r[4], "weight": r[3]},
                    f"{r[0]} -> {r[1]}",
                )
            )
    if operation == "query":
        comms = list({row[0]: row for kind, row in record if kind == "community"}.values())
        texts = [f"{row[0]}: {row[1]}" for row in comms]
        for row, t, c in zip(comms, texts, _cos(rt, qvec, texts)):
            e = graph.entity(row[0])
            out.append(
                _raw(
                    "community",
                    dbu.node_id(row[0]),
                    (c + 1) / 2,
                    t,
                    hits.split_sources(e[3]) if e else [],
                    {"findings": hits.findings_text(row[2]), "level": e[5] if e else None},
                    row[0],
                )
            )
    if operation in ("query", "search_episodes"):
        keys = dbu.chunk_keys_ranked([f[3] for f in found], max(2 * limit, 10))  # candidates, then ranked by cosine
        chunks = rt.catalog.chunks_by_key(keys)
        present = [chunks[k] for k in keys if k in chunks]
        for chunk, sim in zip(present, _cos(rt, qvec, [c["text"] for c in present])):
            out.append(_raw("episode", chunk["id"], (sim + 1) / 2, chunk["text"], [chunk["key"]], {}, chunk["id"]))
    return out


def get_node(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    """A chunk or entry by our id (as an episode), or an entity or aggregate by its leanrag:node id."""
    nid = record_id(params)
    chunk = rt.catalog.chunk(nid)
    kind, chunk_ids = rt.catalog.resolve(nid)
    if chunk is not None or kind == "entry":
        named = [rt.catalog.chunk(c) for c in ([nid] if chunk else chunk_ids)]
        rows = list(rt.catalog.chunks_by_key(r["key"] for r in named if r).values())
        if not rows:
            return {"item": None}
        return {"item": hits.hit("episode", nid, 1.0, "\n".join(r["text"] for r in rows), rows, {}, nid)}
    if not nid.startswith("leanrag:node:") or not (rt.graph_dir / "leanrag.sqlite").exists():
        return {"item": None}
    with contextlib.closing(sqlite3.connect(rt.graph_dir / "leanrag.sqlite")) as con:
        row = con.execute(
            "SELECT entity_name, description, source_id, parent, level, entity_type FROM entities "
            "WHERE node_id = ? ORDER BY level LIMIT 1",
            (nid,),
        ).fetchone()
        if row is None:
            return {"item": None}
        name = row[0]
        edges = con.execute(
            "SELECT src_tgt, tgt_src, description, level FROM relations WHERE src_tgt = ? OR tgt_src = ? LIMIT 50",
            (name, name),
        ).fetchall()
        children = [
            r[0]
            for r in con.execute(
                "SELECT entity_name FROM entities WHERE parent = ? AND entity_name != ? LIMIT 100", (name, name)
            )
        ]
        community = con.execute(
            "SELECT entity_description, findings FROM communities WHERE entity_name = ?", (name,)
        ).fetchone()
    dbu = rt.leanrag().dbu
    chunks = list(rt.catalog.chunks_by_key(hits.split_sources(row[2])).values())
    if not chunks:
        return {"item": None}
    neighbours = [
        {
            "edge_id": dbu.fact_id(s, t, lv),
            "direction": "out" if s == name else "in",
            "other": t if s == name else s,
            "fact": d,
        }
        for s, t, d, lv in edges
    ]
    extra = {
        "level": row[4],
        "parent": row[3],
        "entity_type": row[5],
        "edges": neighbours,
        "children": children,
        "findings": hits.findings_text(community[1]) if community else None,
    }
    return {"item": hits.hit("node" if row[4] == 0 else "community", nid, 1.0, row[1] or name, chunks, extra, name)}


def get_edge(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    eid = record_id(params)
    if not eid.startswith("leanrag:fact:") or not (rt.graph_dir / "leanrag.sqlite").exists():
        return {"item": None}
    graph = _Graph(rt)
    try:
        row = graph.con.execute(
            "SELECT src_tgt, tgt_src, description, weight, level FROM relations WHERE fact_id = ? LIMIT 1", (eid,)
        ).fetchone()
        keys = graph.relation_sources(row[0], row[1]) if row else []
    finally:
        graph.close()
    chunks = list(rt.catalog.chunks_by_key(keys).values())
    if row is None or not chunks:
        return {"item": None}
    return {
        "item": hits.hit(
            "fact",
            eid,
            1.0,
            f"{row[0]} -> {row[1]}: {row[2]}",
            chunks,
            {"source": row[0], "target": row[1], "level": row[4], "weight": row[3]},
            f"{row[0]} -> {row[1]}",
        )
    }
