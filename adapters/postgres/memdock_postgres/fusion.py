"""Hybrid ranking as the sqlite adapter fuses it: weighted reciprocal-rank fusion of the word ranking (coverage,
then ts_rank_cd) and the vector ranking (cosine), the word ranking weighted 1 and the vectors 0.25, k = 10 (the
figures memdock_sqlite.hits gives for these defaults, measured on LoCoMo)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memdock_entries.embedders import Embedder
from memdock_entries.fusion import rrf
from memdock_entries.rerank import CONVERSATIONS, Weights

RRF_K = 10
VECTOR_WEIGHT = 0.25
Ranked = list[tuple[dict[str, Any], float, dict[str, Any]]]


@dataclass(frozen=True)
class Ranking:
    """How `query` ranks: the neighbour weight (None: the default), the reordering's weights and the thread formats
    it applies to (memdock_entries.rerank.configured), and the embedder with its fusion settings."""

    neighbour_weight: float | None = None
    weights: Weights = Weights()
    formats: frozenset[str] | None = CONVERSATIONS
    embedder: Embedder | None = None
    vector_weight: float = VECTOR_WEIGHT
    rrf_k: int = RRF_K


def cosine(cos: float) -> float:
    """A sentence-embedding cosine on the [0, 1] footing sqlite gives it: 0.2 (unrelated for MiniLM) is 0, 0.8
    and above 1."""
    return max(0.0, min(1.0, (cos - 0.2) / 0.6))


def fuse(lexical: Ranked, dense: list[tuple[dict[str, Any], float]], ranking: Ranking) -> Ranked:
    """LEXICAL (scored by coverage) and DENSE (by cosine) fused; each hit scored by its fused value, which
    orders it, with its coverage and cosine beside it."""
    recs = {rec["id"]: rec for rec, _ in dense} | {rec["id"]: rec for rec, _, _ in lexical}
    fused = rrf(
        [[rec["id"] for rec, _, _ in lexical], [rec["id"] for rec, _ in dense]],
        [1.0, ranking.vector_weight],
        ranking.rrf_k,
    )
    parts: dict[str, dict[str, Any]] = {rec["id"]: dict(extra) for rec, _, extra in lexical}
    for rec, cos in dense:
        parts.setdefault(rec["id"], {})["cosine"] = cos
    order = sorted(fused, key=lambda i: (-round(fused[i], 9), i))
    return [(recs[i], fused[i], {**parts[i], "mode": "hybrid", "rrf": fused[i]}) for i in order]
