"""Weighted reciprocal-rank fusion, as the sqlite and postgres adapters fuse their word and vector rankings."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def rrf(rankings: Sequence[Sequence[K]], weights: Sequence[float], k: int) -> dict[K, float]:
    """Weighted reciprocal-rank fusion, divided by its maximum (first in every list) so it lies in [0, 1]."""
    fused: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, key in enumerate(ranking, 1):
            fused[key] = fused.get(key, 0.0) + weight / (k + rank)
    top = sum(weights) / (k + 1)
    return {key: v / top for key, v in fused.items()}
