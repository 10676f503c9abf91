"""What a store answers, to compare two stores that should answer alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def answers(backend: Any, queries: Iterable[str]) -> dict[str, Any]:
    """BACKEND's counts, and the top 10 of each query as chunks (id, score, text), facts and nodes (id, text)."""
    out: dict[str, Any] = {"counts": backend.counts()}
    for q in queries:
        out[q] = [(h.id, round(h.score, 5), h.text) for h in backend.query(q, limit=10).hits]
        out["facts " + q] = [(h.id, h.text) for h in backend.search_facts(q, limit=10).hits]
        out["nodes " + q] = [(h.id, h.text) for h in backend.search_nodes(q, limit=10).hits]
    return out
