"""Score fusion: a hybrid ranking by a convex combination of a chunk's word share and its cosine.

Reciprocal-rank fusion (`hits.rrf`) throws away what the word ranking knows best: that many chunks tie. On a
conversation a question's words often reach a turn only through its speaker's name, which every turn of that
speaker holds ("What exercises has John done?" against "I'm doing kickboxing"), so hundreds of turns share one word
score and their word ranks are an arbitrary order among equals, which RRF then treats as a real one. Here a chunk's
value is (1 - WEIGHT) x its share of the query (`scoring.coverage`, in [0, 1]) + WEIGHT x its cosine on the same
footing (`scoring.cosine`), so the cosine decides among equal word scores and a clear word lead still wins. Every
word candidate gets its own cosine (the vector search is asked for exactly those chunks), and the vector search's
own nearest chunks join with a word share of 0.

The value is the hit's score: in [0, 1] whatever the store's size, so `min_score` keeps one meaning, and the steps
after the first ranking read it as bm25 mode reads its score.
"""

from __future__ import annotations

from typing import Any

from .scoring import TIE_DIGITS, cosine

Ranked = list[tuple[int, float, dict[str, Any]]]

COSINE_WEIGHT = 0.2
"""Chosen by four folds of five (the fifth: 0.3) of
`bench/locomo.py --hybrid --hybrid-idea hybrid_cosine_weight=off,0.05,0.1,0.2,0.3,0.5`, all-MiniLM-L6-v2
(docs/concepts/recall.md)."""


def fuse(
    lexical: list[tuple[int, float]],
    cover: dict[int, float],
    cosines: dict[int, float],
    dense: list[tuple[int, float]],
    weight: float,
) -> Ranked:
    """LEXICAL ((rowid, BM25), ordered by word share then BM25) and DENSE ((rowid, cosine), nearest first) as one
    ranking by (1 - WEIGHT) x word share + WEIGHT x cosine footing; COSINES holds the word candidates' own cosines
    (a candidate without one has no vector and counts 0). Equal values keep the word ranking's order, then the
    vector ranking's."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"hybrid_cosine_weight must lie in [0, 1], got {weight!r}")
    bm25_of = dict(lexical)
    cos_of = dict(dense) | cosines
    order = [rid for rid, _ in lexical] + [rid for rid, _ in dense if rid not in bm25_of]
    value = {
        rid: (1.0 - weight) * cover.get(rid, 0.0) + weight * (cosine(cos_of[rid]) if rid in cos_of else 0.0)
        for rid in order
    }
    ranks = sorted(range(len(order)), key=lambda i: (-round(value[order[i]], TIE_DIGITS), i))
    out: Ranked = []
    for i in ranks:
        rid = order[i]
        parts = {"bm25": bm25_of.get(rid), "cosine": cos_of.get(rid), "coverage": cover.get(rid)}
        out.append((rid, value[rid], {name: v for name, v in parts.items() if v is not None}))
    return out
