"""`query`: chunks ranked by BM25 (FTS5, header weighted above body), by vector, or by both fused."""

from __future__ import annotations

import sqlite3
from typing import Any

from memdock_entries import timeframe

from memdock.errors import InvalidInputError
from memdock.sdk.params import limit_of, min_score_of, query_text

from . import candidates, context, fts, hits, neighbours, rerank, score_fusion, scoring, spread, substance
from .embedders import Embedder
from .filters import where, with_metadata
from .vector_index import VectorIndex

MIN_CANDIDATES = 100
DATED_CANDIDATES = 400
"""Word candidates of a question naming a date (timeframe.py; `dated_candidates`, MIN_CANDIDATES turns it off). The
turns dated within it often hold fewer of the question's words than the best turns of other days, and fall outside
the first MIN_CANDIDATES before the named-date step (rerank.py) can raise them. On LoCoMo dev every fold chose 400 or
200 (docs/concepts/recall.md)."""


def _allowed(conn: sqlite3.Connection, filters: dict[str, Any] | None) -> set[int] | None:
    conds, args = where(filters, "c", conn)
    if not conds:
        return None
    return {r[0] for r in conn.execute(f"SELECT c.rowid FROM chunks c WHERE {' AND '.join(conds)}", args)}


def _rows(conn: sqlite3.Connection, rowids: list[int]) -> dict[int, tuple]:
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    return {
        r[0]: r for r in conn.execute(f"SELECT {hits.CHUNK_COLUMNS} FROM chunks c WHERE c.rowid IN ({marks})", rowids)
    }


def run(
    conn: sqlite3.Connection,
    params: dict[str, Any],
    *,
    embedder: Embedder | None,
    vectors: VectorIndex,
    identity: object,
    vector_weight: float = hits.VECTOR_WEIGHT,
    rrf_k: int = hits.RRF_K,
    lexical_order: str = "coverage",
    fusion: str = "score",
    cosine_weight: float = score_fusion.COSINE_WEIGHT,
    neighbour_weight: float | None = None,
    pool_weight: float | None = None,
    time_weight: float | None = None,
    date_weight: float | None = None,
    addressed_weight: float | None = None,
    context_weight: float | None = None,
    context_turns: int = context.CONTEXT_TURNS,
    substance_weight: float | None = None,
    spread_weight: float | None = None,
    many_pool_weight: float | None = None,
    dated_candidates: int = DATED_CANDIDATES,
    dated_cue_weight: float = rerank.DATED_CUE_WEIGHT,
) -> dict[str, Any]:
    text, limit = query_text(params), limit_of(params)
    filters = with_metadata(params.get("filters"), params.get("where"))
    result: dict[str, Any] = {"backend": hits.BACKEND}
    mode = _mode(params, embedder, result)
    words = fts.terms(text)
    k = max(limit * 5, _pool_size(text, dated_candidates))
    lexical, cover = _lexical(conn, words, filters, k, limit, result) if mode != "vector" else ([], {})
    dense, cosines = _dense(
        conn,
        text,
        mode,
        filters,
        k,
        lexical if fusion == "score" else [],
        embedder=embedder,
        vectors=vectors,
        identity=identity,
    )
    if mode == "bm25" and not words:
        result["reason"] = "the query has no searchable words"
    if mode == "hybrid" and fusion == "score":
        ranked = score_fusion.fuse(lexical, cover, cosines, dense, cosine_weight)
    else:
        ranked = _first_ranking(mode, lexical, dense, cover, lexical_order, vector_weight, rrf_k)
    by_score = mode == "bm25" or (mode == "hybrid" and fusion == "score")
    tuned = (neighbour_weight, pool_weight, many_pool_weight, time_weight, date_weight, addressed_weight)
    ranked = _arrange(conn, ranked, text, mode, filters, limit, rrf_k, by_score, *tuned, dated_cue_weight)
    if mode != "vector":
        ranked = _around(
            conn,
            ranked,
            filters,
            limit,
            rrf_k,
            by_score=by_score,
            context_turns=context_turns,
            context_weight=context_weight,
            substance_weight=substance_weight,
        )
        weight, formats = _default(spread_weight, spread.SPREAD_WEIGHT)
        ranked = spread.spread(conn, ranked, text, weight, by_score=by_score, k=rrf_k, formats=formats)
    ranked = _above(min_score_of(params), ranked)
    ranked = ranked[:limit]
    rows = _rows(conn, [rid for rid, _, _ in ranked])
    result["hits"] = [
        hits.chunk_hit(rows[rid], score, rank, {"mode": mode, **extra})
        for rank, (rid, score, extra) in enumerate(ranked, 1)
        if rid in rows
    ]
    return result


def _pool_size(text: str, dated_candidates: int) -> int:
    """How many word candidates to rank: DATED_CANDIDATES for a question naming a date, else MIN_CANDIDATES."""
    if dated_candidates > MIN_CANDIDATES and timeframe.spans(text):
        return dated_candidates
    return MIN_CANDIDATES


def _mode(params: dict[str, Any], embedder: Embedder | None, result: dict[str, Any]) -> str:
    """The mode asked for, auto resolved; a mode that needs embeddings where none are configured is answered with
    bm25, and RESULT says so."""
    mode = params.get("mode") or "auto"
    if mode not in ("auto", "bm25", "vector", "hybrid"):
        raise InvalidInputError(f"params.mode must be auto, bm25, vector or hybrid, got {mode!r}")
    if mode == "auto":
        return "hybrid" if embedder else "bm25"
    if mode in ("vector", "hybrid") and embedder is None:
        result.update(
            degraded=True, reason=f"mode {mode} needs embeddings, which are not configured; answered with bm25"
        )
        return "bm25"
    return str(mode)


def _lexical(
    conn: sqlite3.Connection,
    words: list[str],
    filters: dict[str, Any] | None,
    k: int,
    limit: int,
    result: dict[str, Any],
) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """The K best word candidates as (rowid, BM25) and each one's share of the query; how a big store's ranking
    was narrowed goes into RESULT's reason."""
    if not words:
        return [], {}
    chosen = candidates.plan(conn, words, filters)
    weights = scoring.weights_of(conn, chosen)
    levels = candidates.rank(conn, chosen, filters, k, limit, weights.__getitem__)
    if chosen.narrowed and levels:
        result["reason"] = "; ".join(filter(None, [result.get("reason"), _narrowed(chosen, levels)]))
    return [row for level in levels for row in level.rows], scoring.coverage(conn, weights, levels)


def _dense(
    conn: sqlite3.Connection,
    text: str,
    mode: str,
    filters: dict[str, Any] | None,
    k: int,
    lexical: list[tuple[int, float]],
    *,
    embedder: Embedder | None,
    vectors: VectorIndex,
    identity: object,
) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """The K chunks nearest the query, and the cosine of each of the LEXICAL candidates (score fusion reads every
    word candidate's own cosine, not only the nearest K's)."""
    if mode not in ("vector", "hybrid") or embedder is None:
        return [], {}
    query = embedder.embed_query(text)
    dense = vectors.search(conn, embedder.name, identity, query, k, _allowed(conn, filters))
    if mode != "hybrid" or not lexical:
        return dense, {}
    rowids = {rid for rid, _ in lexical}
    return dense, dict(vectors.search(conn, embedder.name, identity, query, len(rowids), rowids))


def _first_ranking(
    mode: str,
    lexical: list[tuple[int, float]],
    dense: list[tuple[int, float]],
    cover: dict[int, float],
    lexical_order: str,
    vector_weight: float,
    rrf_k: int,
) -> Ranked:
    """The ranking by words, by vectors or both fused, before any step reorders it."""
    by_coverage = sorted(lexical, key=lambda pair: (-round(cover[pair[0]], scoring.TIE_DIGITS), pair[1]))
    if mode == "bm25":
        ranked = [(rid, cover[rid], {"bm25": raw}) for rid, raw in by_coverage]
    elif mode == "vector":
        ranked = [(rid, scoring.cosine(cos), {"cosine": cos}) for rid, cos in dense]
    else:
        order_by = by_coverage if lexical_order == "coverage" else lexical
        fused = hits.rrf([[rid for rid, _ in order_by], [rid for rid, _ in dense]], [1.0, vector_weight], rrf_k)
        bm25_of, cos_of = dict(lexical), dict(dense)
        order = sorted(fused, key=lambda rid: -fused[rid])
        ranked = [
            (
                rid,
                max(cover.get(rid, 0.0), scoring.cosine(cos_of[rid]) if rid in cos_of else 0.0),
                _parts(bm25=bm25_of.get(rid), cosine=cos_of.get(rid), rrf=fused[rid]),
            )
            for rid in order
        ]
    return ranked


Ranked = list[tuple[int, float, dict[str, Any]]]


def _arrange(
    conn: sqlite3.Connection,
    ranked: Ranked,
    text: str,
    mode: str,
    filters: dict[str, Any] | None,
    limit: int,
    rrf_k: int,
    by_score: bool,
    neighbour_weight: float | None,
    pool_weight: float | None,
    many_pool_weight: float | None,
    time_weight: float | None,
    date_weight: float | None,
    addressed_weight: float | None,
    dated_cue_weight: float = rerank.DATED_CUE_WEIGHT,
) -> Ranked:
    """What the words alone do not decide: answers lent by the questions above them (neighbours.py), then the
    session, time-cue, named-date and addressed-turn reordering (rerank.py), pooling at MANY_POOL_WEIGHT for a
    question asking for several things (spread.py). A vector ranking is left as it is."""
    if mode == "vector":
        return ranked
    weight, formats = (
        (neighbours.CONVERSATION_WEIGHT, neighbours.CONVERSATIONS)
        if neighbour_weight is None
        else (neighbour_weight, None)
    )
    if weight > 0:
        allowed = _allowed(conn, filters) if filters else None
        ranked = neighbours.expand(conn, ranked, weight, limit, rrf_k, allowed, by_score=by_score, formats=formats)
    formats = rerank.CONVERSATIONS if pool_weight is None and time_weight is None else None
    if spread.asks_for_many(text):
        pool_weight = spread.MANY_POOL_WEIGHT if many_pool_weight is None else many_pool_weight
    given = {"pool": pool_weight, "time": time_weight, "dated": date_weight, "addressed": addressed_weight}
    weights = rerank.Weights(**{name: w for name, w in given.items() if w is not None})
    return rerank.reorder(
        conn, ranked, text, weights, by_score=by_score, k=rrf_k, formats=formats, dated_cue=dated_cue_weight
    )


def _around(
    conn: sqlite3.Connection,
    ranked: Ranked,
    filters: dict[str, Any] | None,
    limit: int,
    rrf_k: int,
    *,
    by_score: bool,
    context_turns: int,
    context_weight: float | None,
    substance_weight: float | None,
) -> Ranked:
    """A turn that says more above one that says less among equal matches (substance.py), then the turns around
    the best hits (context.py); unset, each applies in conversations only, as answers do."""
    weight, formats = _default(substance_weight, substance.SUBSTANCE_WEIGHT)
    ranked = substance.weigh(conn, ranked, weight, by_score=by_score, k=rrf_k, formats=formats)
    weight, formats = _default(context_weight, context.CONTEXT_WEIGHT)
    if weight <= 0 or context_turns <= 0:
        return ranked
    allowed = _allowed(conn, filters) if filters else None
    return context.lend(
        conn, ranked, weight, context_turns, limit, allowed, by_score=by_score, k=rrf_k, formats=formats
    )


def _default(weight: float | None, default: float) -> tuple[float, frozenset[str] | None]:
    """A weight as configured, applied in every thread; unset, DEFAULT in conversations only."""
    return (default, neighbours.CONVERSATIONS) if weight is None else (weight, None)


def _above(min_score: float | None, ranked: Ranked) -> Ranked:
    return ranked if min_score is None else [item for item in ranked if item[1] >= min_score]


def _parts(**scores: float | None) -> dict[str, float]:
    """The scores a fused hit had in each ranking it appeared in (a ranking that missed it is left out)."""
    return {name: value for name, value in scores.items() if value is not None}


def _narrowed(chosen: candidates.Plan, levels: list[candidates.Level]) -> str:
    """How a big store's ranking was narrowed (candidates.py), said in the result's reason."""
    fewest = levels[-1]
    said = "ranked by levels of shared words" if len(chosen.terms) > 1 else "ranked"
    if any(level.newest_only for level in levels):
        said += f", at most the {candidates.BUDGET:,} newest chunks of each"
    left_out = [t for t in chosen.terms if t not in fewest.held]
    if left_out:
        said += f"; {_words(chosen, left_out)} counted in the score, not in the ranking"
    return said


def _words(chosen: candidates.Plan, words: list[str]) -> str:
    return ", ".join(f"{w!r} (in {chosen.dfs[w]:,} chunks)" for w in words)
