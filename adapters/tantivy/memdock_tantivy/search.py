"""`query` over chunks and the structural searches over nodes and facts, all BM25 on term queries."""

from __future__ import annotations

from typing import Any

from memdock.errors import InvalidInputError
from memdock.sdk.params import group_ids, limit_of, query_text, record_id

from . import hits, queries, store, text_once
from .reader import Reader

NO_WORDS = "the query has no searchable words"
NEIGHBOURS = 50
CHUNK_FIELDS = {"head": queries.HEADER_BOOST, "body": 1.0}
NODE_FIELDS = {"name": queries.HEADER_BOOST, "text": 1.0}
CHUNKS_PER_HIT = 5  # entries found through their chunks: the first LIMIT distinct among the best 5 * LIMIT chunks


def _answer(found: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"hits": found, "backend": hits.BACKEND, **extra}


def run_query(reader: Reader, words: queries.Words, params: dict[str, Any]) -> dict[str, Any]:
    text, limit = query_text(params), limit_of(params)
    mode = params.get("mode") or "auto"
    if mode not in ("auto", "bm25", "vector", "hybrid"):
        raise InvalidInputError(f"params.mode must be auto, bm25, vector or hybrid, got {mode!r}")
    extra: dict[str, Any] = {}
    if mode in ("vector", "hybrid"):
        extra = {
            "degraded": True,
            "reason": f"mode {mode} needs embeddings, which the tantivy adapter does not have; answered with bm25",
        }
    required = queries.filter_clauses(reader.keys, params.get("filters"))
    terms = words.terms(text)
    if not terms:
        return _answer([], reason=NO_WORDS)
    q = queries.combine(queries.text_query(reader.schema, terms, CHUNK_FIELDS), required)
    found = [
        hits.chunk_hit(rec, queries.score(s), rank, {"mode": "bm25", "bm25": s})
        for rank, (s, rec) in enumerate(reader.search(q, limit, chunks=True), 1)
    ]
    return _answer(found, **extra)


def search_nodes(
    reader: Reader, words: queries.Words, params: dict[str, Any], *, episodes: bool = False
) -> dict[str, Any]:
    """Threads, entries and entities whose name or text matches; entries only when EPISODES.

    A group (thread) restricts threads and entries to it; entities, which belong to no thread, are kept only
    when an edge of that thread mentions them. In a store of layout 8 or later an entry whose chunks hold its text
    is indexed by its title only, and found through its chunks as well: it ranks by its title's BM25 or its best
    chunk's, whichever is better (as the sqlite adapter ranks entries)."""
    terms, limit, groups = words.terms(query_text(params)), limit_of(params), group_ids(params)
    if not terms:
        return _answer([], reason=NO_WORDS)
    required = [queries.key(reader.keys, "kind", ["entry"])] if episodes else []  # only nodes have name/text
    if groups:
        in_group = queries.key(reader.keys, "thread_id", groups)
        mentioned = sorted({e["target_id"] for e in reader.where("thread_id", groups, kind="edge")})
        if mentioned and not episodes:
            entities = queries.combine(
                queries.key(reader.keys, "id", mentioned), [queries.key(reader.keys, "kind", ["entity"])]
            )
            in_group = queries.Query.boolean_query([(queries.Occur.Should, in_group), (queries.Occur.Should, entities)])
        required.append(in_group)
    q = queries.combine(queries.text_query(reader.schema, terms, NODE_FIELDS), required)
    ranked = reader.search(q, limit)
    if reader.indexes.version >= store.CHUNKED_ENTRIES:
        ranked = _better(ranked, _entries_by_chunk(reader, terms, limit, groups), limit)
    return _answer(
        [
            hits.node_hit(rec, queries.score(s), rank, as_episode=episodes, extra={"bm25": s})
            for rank, (s, rec) in enumerate(ranked, 1)
        ]
    )


def _entries_by_chunk(
    reader: Reader, terms: list[str], limit: int, groups: list[str] | None
) -> list[tuple[float, dict[str, Any]]]:
    """The entries whose chunks match best, each with its best chunk's BM25 (in GROUPS' threads when given: the
    entry's thread, not its chunk's, which may be sent with another)."""
    required = [queries.key(reader.keys, "thread_id", groups)] if groups else []
    q = queries.combine(queries.text_query(reader.schema, terms, CHUNK_FIELDS), required)
    best: dict[str, float] = {}
    for s, rec in reader.search(q, CHUNKS_PER_HIT * limit, chunks=True):
        best.setdefault(rec["entry_id"], s)
    if not best:
        return []
    # only an entry stored as its chunks hold it: another keeps its body indexed (and ranks by it, as before layout
    # 8), and a chunk left from an earlier text of it must not find it by words it no longer holds
    entries = {r["id"]: r for r in reader.stored(queries.key(reader.keys, "id", list(best)), "entry")}
    found = [
        (s, entries[i])
        for i, s in best.items()
        if i in entries and entries[i].get(text_once.FLAG) and (not groups or entries[i]["thread_id"] in groups)
    ][:limit]
    reader.bodies([rec for _, rec in found])  # only the kept ones' bodies are read from their chunks
    return found


def _better(
    ranked: list[tuple[float, dict[str, Any]]], more: list[tuple[float, dict[str, Any]]], limit: int
) -> list[tuple[float, dict[str, Any]]]:
    """RANKED and MORE as one ranking, each node once with its better score (ties in the order given)."""
    found = {rec["id"]: (s, rec) for s, rec in ranked}
    for s, rec in more:
        if rec["id"] not in found or s > found[rec["id"]][0]:
            found[rec["id"]] = (s, rec)
    return sorted(found.values(), key=lambda hit: -hit[0])[:limit]


def search_facts(reader: Reader, words: queries.Words, params: dict[str, Any]) -> dict[str, Any]:
    terms, limit, groups = words.terms(query_text(params)), limit_of(params), group_ids(params)
    if not terms:
        return _answer([], reason=NO_WORDS)
    required = [queries.key(reader.keys, "thread_id", groups)] if groups else []
    q = queries.combine(queries.text_query(reader.schema, terms, {"fact": 1.0}), required)
    return _answer(
        [hits.fact_hit(rec, queries.score(s), rank) for rank, (s, rec) in enumerate(reader.search(q, limit), 1)]
    )


def neighbours(reader: Reader, node_id: str) -> list[dict[str, Any]]:
    out = [
        {"edge_id": e["id"], "type": e["type"], "direction": "out", "other_id": e["target_id"], "fact": e["fact"]}
        for _, e in reader.search(queries.key(reader.keys, "source_id", [node_id]), NEIGHBOURS)
    ]
    out += [
        {"edge_id": e["id"], "type": e["type"], "direction": "in", "other_id": e["source_id"], "fact": e["fact"]}
        for _, e in reader.search(queries.key(reader.keys, "target_id", [node_id]), NEIGHBOURS)
    ]
    return out[:NEIGHBOURS]


def get_node(reader: Reader, params: dict[str, Any]) -> dict[str, Any]:
    node_id = record_id(params)
    rec = reader.get(node_id)
    if rec is None or rec["kind"] == "edge":
        return {"item": None}
    if rec["kind"] == "chunk":
        return {"item": hits.chunk_hit(rec, 1.0, 1)}
    return {"item": hits.node_hit(rec, 1.0, None, extra={"edges": neighbours(reader, node_id)})}


def get_edge(reader: Reader, params: dict[str, Any]) -> dict[str, Any]:
    rec = reader.get(record_id(params))
    return {"item": hits.fact_hit(rec, 1.0, None) if rec and rec["kind"] == "edge" else None}
