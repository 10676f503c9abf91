"""`query` over chunks and the structural searches over nodes and facts, on Postgres full-text search.

The query's words go through the same English configuration as the stored text (stop words dropped, stems kept)
and are OR-ed, so a passage holding any of them is a candidate, as with BM25. Chunks are ranked as the sqlite
adapter ranks them: by the idf-weighted share of the query's words a chunk holds (BM25's idf, the store counted
as at least 1000 chunks, a word's chunk count read from the GIN index and capped at 20,000), ties ordered by
ts_rank_cd (cover density; normalisation 32, r/(r+1)), where sqlite orders them by BM25; a hit that asks a
question brings the turn after it, as in sqlite (the neighbours module), and the hits are then reordered by
their session, time cues, a date the question names and turns addressing the speaker it names, as sqlite
reorders them (rerank.py; scores stay each chunk's own). Nodes and facts are ranked by ts_rank_cd alone. A
(headers, titles, names) counts 1.0 in ts_rank_cd, B (bodies) 0.4.
"""

from __future__ import annotations

from typing import Any

import psycopg
from memdock_entries import record_hits as hits

from memdock.errors import InvalidInputError
from memdock.sdk.params import group_ids, limit_of, query_text, record_id

from . import filters, fusion, neighbours, rerank, vectors
from .lookup import fetch

BACKEND = "postgres"
NO_WORDS = "the query has no searchable words"
NEIGHBOURS = 50
MAX_TERMS, MIN_STORE, DF_CAP, TIE_DIGITS, MIN_CANDIDATES = 64, 1000, 20000, 6, 100
# The query's distinct lexemes (at most MAX_TERMS: an OR over thousands of words costs a scan for no gain).
LEXEMES = f"(SELECT l FROM unnest(tsvector_to_array(to_tsvector('english', %(text)s))) AS l LIMIT {MAX_TERMS}) AS x"
TSQUERY = f"WITH q AS (SELECT to_tsquery('simple', string_agg(quote_literal(x.l), ' | ')) AS q FROM {LEXEMES}) "
WEIGHTED = (
    f"WITH t AS (SELECT x.l AS term, to_tsquery('simple', quote_literal(x.l)) AS tq FROM {LEXEMES}), "
    f"n AS (SELECT greatest(count(*), {MIN_STORE})::float8 AS n FROM chunks), "
    "w AS (SELECT t.tq, ln(1 + (n.n - d.df + 0.5) / (d.df + 0.5)) AS idf FROM t, n, LATERAL "
    f"(SELECT count(*) AS df FROM (SELECT 1 FROM chunks c WHERE c.tsv @@ t.tq LIMIT {DF_CAP}) x) d), "
    "q AS (SELECT to_tsquery('simple', (SELECT string_agg(quote_literal(term), ' | ') FROM t)) AS q, "
    "(SELECT sum(idf) FROM w) AS whole) "
)


def _answer(found: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"hits": found, "backend": BACKEND, **extra}


def _ranked(
    conn: psycopg.Connection, text: str, body: str, args: dict[str, Any], head: str = TSQUERY
) -> list[tuple[Any, ...]] | None:
    """The ranked (rec, score, ...) rows of BODY, a query over `q.q`; None when the text has no searchable words."""
    sql = f"{head} SELECT q.q IS NULL, r.* FROM q LEFT JOIN LATERAL ({body}) r ON true"
    rows = conn.execute(sql, {"text": text, **args}).fetchall()
    if rows and rows[0][0]:
        return None
    return [(row[1], *map(float, row[2:])) for row in rows if row[1] is not None]


def _mode(params: dict[str, Any], embedder: Any) -> tuple[str, dict[str, Any]]:
    """The mode to answer in, and what the answer says when it is not the one asked for."""
    mode = params.get("mode") or "auto"
    if mode not in ("auto", "bm25", "vector", "hybrid"):
        raise InvalidInputError(f"params.mode must be auto, bm25, vector or hybrid, got {mode!r}")
    if mode == "auto":
        return ("hybrid" if embedder else "bm25"), {}
    if mode in ("vector", "hybrid") and embedder is None:
        reason = f"mode {mode} needs embeddings, which are not configured; answered with bm25"
        return "bm25", {"degraded": True, "reason": reason}
    return mode, {}


def _lexical(conn: psycopg.Connection, text: str, k: int, where: str, args: dict[str, Any]) -> fusion.Ranked | None:
    body = (
        "SELECT c.rec, round(least(1, (SELECT sum(w.idf) FROM w WHERE c.tsv @@ w.tq) / q.whole)::numeric, "
        f"{TIE_DIGITS}) AS s, ts_rank_cd(c.tsv, q.q, 32) AS r FROM chunks c "
        f"WHERE c.tsv @@ q.q{where} ORDER BY s DESC, r DESC, c.id LIMIT %(k)s"
    )
    rows = _ranked(conn, text, body, {**args, "k": k}, WEIGHTED)
    if rows is None:
        return None
    return [(rec, s, {"mode": "bm25", "coverage": s, "ts_rank_cd": r}) for rec, s, r in rows]


def run_query(conn: psycopg.Connection, params: dict[str, Any], ranking: fusion.Ranking | None = None) -> dict:
    ranking = ranking or fusion.Ranking()
    text, limit = query_text(params), limit_of(params)
    min_score = params.get("min_score")
    if min_score is not None and (
        not isinstance(min_score, (int, float)) or isinstance(min_score, bool) or not 0 <= min_score <= 1
    ):
        raise InvalidInputError(f"params.min_score must be a number in [0, 1], got {min_score!r}")
    mode, extra = _mode(params, ranking.embedder)
    args: dict[str, Any] = {}
    where = filters.where(params, "c", args)
    k = max(limit * 5, MIN_CANDIDATES)  # past the page: the reordering may lift a candidate into it
    lexical = _lexical(conn, text, k, where, args) if mode != "vector" else []
    dense: list[tuple[dict[str, Any], float]] = []
    if mode != "bm25" and ranking.embedder is not None:
        if vectors.ready(conn, ranking.embedder.name):
            dense = vectors.nearest(conn, ranking.embedder.embed([text])[0], k, where, args)
        else:
            extra["reason"] = f"no chunk has a {ranking.embedder.name} vector yet (index or prepare embeds them)"
    if lexical is None and not dense:
        return _answer([], reason=NO_WORDS, **extra)
    if mode == "vector":
        ranked = [(rec, fusion.cosine(cos), {"mode": "vector", "cosine": cos}) for rec, cos in dense]
    else:
        ranked = (lexical or []) if mode == "bm25" else fusion.fuse(lexical or [], dense, ranking)
        ranked = neighbours.expand(conn, ranked, *neighbours.settings(ranking.neighbour_weight), limit, where, args)
        by_score, weights, formats = mode == "bm25", ranking.weights, ranking.formats
        ranked = rerank.reorder(conn, ranked, text, weights, by_score=by_score, k=ranking.rrf_k, formats=formats)
    if min_score is not None:
        ranked = [item for item in ranked if item[1] >= min_score]
    found = [hits.chunk_hit(BACKEND, rec, s, rank, part) for rank, (rec, s, part) in enumerate(ranked[:limit], 1)]
    return _answer(found, **extra)


def search_nodes(conn: psycopg.Connection, params: dict[str, Any], *, episodes: bool = False) -> dict[str, Any]:
    """Threads, entries and entities whose name or text matches; entries only when EPISODES.

    A group (thread) restricts threads and entries to it; entities, which belong to no thread, are kept only
    when an edge of that thread mentions them."""
    text, limit, groups = query_text(params), limit_of(params), group_ids(params)
    args: dict[str, Any] = {"limit": limit, "groups": groups}
    in_group = " AND n.thread_id = ANY(%(groups)s)" if groups else ""
    parts = [f"SELECT n.rec, n.tsv FROM entries n WHERE n.tsv @@ q.q{in_group}"]
    if not episodes:
        parts.append(f"SELECT n.rec, n.tsv FROM threads n WHERE n.tsv @@ q.q{in_group.replace('thread_id', 'id')}")
        mentioned = " AND n.id IN (SELECT target_id FROM edges WHERE thread_id = ANY(%(groups)s))" if groups else ""
        parts.append(f"SELECT n.rec, n.tsv FROM entities n WHERE n.tsv @@ q.q{mentioned}")
    body = (
        f"SELECT u.rec, ts_rank_cd(u.tsv, q.q, 32) AS s FROM ({' UNION ALL '.join(parts)}) u "
        "ORDER BY s DESC, u.rec->>'id' LIMIT %(limit)s"
    )
    ranked = _ranked(conn, text, body, args)
    if ranked is None:
        return _answer([], reason=NO_WORDS)
    return _answer(
        [
            hits.node_hit(BACKEND, rec, s, rank, as_episode=episodes, extra={"ts_rank_cd": s})
            for rank, (rec, s) in enumerate(ranked, 1)
        ]
    )


def search_facts(conn: psycopg.Connection, params: dict[str, Any]) -> dict[str, Any]:
    text, limit, groups = query_text(params), limit_of(params), group_ids(params)
    in_group = " AND e.thread_id = ANY(%(groups)s)" if groups else ""
    body = (
        "SELECT e.rec, ts_rank_cd(e.tsv, q.q, 32) AS s FROM edges e "
        f"WHERE e.tsv @@ q.q{in_group} ORDER BY s DESC, e.id LIMIT %(limit)s"
    )
    ranked = _ranked(conn, text, body, {"limit": limit, "groups": groups})
    if ranked is None:
        return _answer([], reason=NO_WORDS)
    return _answer([hits.fact_hit(BACKEND, rec, s, rank) for rank, (rec, s) in enumerate(ranked, 1)])


def edges_of(conn: psycopg.Connection, node_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "(SELECT rec, 'out' FROM edges WHERE source_id = %(id)s ORDER BY id LIMIT %(n)s) UNION ALL "
        "(SELECT rec, 'in' FROM edges WHERE target_id = %(id)s ORDER BY id LIMIT %(n)s)",
        {"id": node_id, "n": NEIGHBOURS},
    ).fetchall()
    out = [
        {
            "edge_id": e["id"],
            "type": e["type"],
            "direction": d,
            "other_id": e["target_id"] if d == "out" else e["source_id"],
            "fact": e["fact"],
        }
        for e, d in rows
    ]
    return out[:NEIGHBOURS]


def get_node(conn: psycopg.Connection, params: dict[str, Any]) -> dict[str, Any]:
    node_id = record_id(params)
    rec = fetch(conn, [node_id]).get(node_id)
    if rec is None:
        return {"item": None}
    if rec["kind"] == "chunk":
        return {"item": hits.chunk_hit(BACKEND, rec, 1.0, 1)}
    return {"item": hits.node_hit(BACKEND, rec, 1.0, None, extra={"edges": edges_of(conn, node_id)})}


def get_edge(conn: psycopg.Connection, params: dict[str, Any]) -> dict[str, Any]:
    edge_id = record_id(params)
    rec = fetch(conn, [edge_id], ("edges",)).get(edge_id)
    return {"item": hits.fact_hit(BACKEND, rec, 1.0, None) if rec else None}
