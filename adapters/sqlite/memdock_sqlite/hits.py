"""Rows to normalised hits, and raw scores to the declared [0, 1] range."""

from __future__ import annotations

import json
from typing import Any

from memdock_entries import fusion

BACKEND = "sqlite"
RRF_K = 10  # tuned on LoCoMo with all-MiniLM-L6-v2: k=10 beat k=60 at every weight tried (bench/locomo.py)
VECTOR_WEIGHT = 0.25
"""The vector ranking's weight in hybrid fusion (the word ranking's is 1). Rotated over bench/locomo.py's five
folds (session 12), two chose 0.25 and three 0.5; on all five they are level at R@10 (0.749 / 0.750) and 0.25 is
ahead at R@5 (0.666 / 0.662) and on multi-hop questions."""


def bm25_score(raw: float) -> float:
    """FTS5's bm25() is negative, lower is better; s/(1+s) of its negation is monotonic into [0, 1)."""
    s = max(0.0, -raw)
    return s / (1.0 + s)


def cosine_score(cos: float) -> float:
    return max(0.0, min(1.0, (cos + 1.0) / 2.0))


def rrf(rankings: list[list[int]], weights: list[float], k: int = RRF_K) -> dict[int, float]:
    """Weighted reciprocal-rank fusion over its maximum (memdock_entries.fusion, shared with postgres)."""
    return fusion.rrf(rankings, weights, k)


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and v != ""}


CHUNK_COLUMNS = (
    'c.rowid, c.id, c.entry_id, c.thread_id, c.position, c.header, c.body, c.start, c."end", '
    "c.author, c.role, c.entry_type, c.event_time, c.attrs"
)


def chunk_hit(row: tuple, score: float, rank: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    _, cid, entry_id, thread_id, position, header, body, start, end, author, role, entry_type, event_time, attrs = row
    hit = {
        "id": cid,
        "kind": "chunk",
        "score": score,
        "rank": rank,
        "text": f"{header}\n{body}" if header else body,
        "provenance": _clean(
            {"thread_id": thread_id, "entry_id": entry_id, "chunk_id": cid, "source": json.loads(attrs).get("source")}
        ),
        "backend": BACKEND,
        "extra": _clean(
            {
                "position": position,
                "start": start,
                "end": end,
                "author": author,
                "role": role,
                "entry_type": entry_type,
                **(extra or {}),
            }
        ),
    }
    if event_time:
        hit["event_time"] = event_time
    return hit


NODE_COLUMNS = (
    "n.rowid, n.id, n.kind, n.name, n.text, n.thread_id, n.position, n.author, n.role, n.entry_type, "
    "n.event_time, n.attrs"
)
_NODE_KIND = {"thread": "thread", "entry": "entry", "entity": "node"}


def node_hit(
    row: tuple, score: float, rank: int | None, *, as_episode: bool = False, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    _, nid, kind, name, text, thread_id, position, author, role, entry_type, event_time, attrs = row
    attrs_d = json.loads(attrs)
    details = {"node_type": kind, "position": position, "author": author, "role": role}
    if kind == "entity":
        details["entity_type"] = entry_type
    else:
        details["entry_type"] = entry_type
    for key in ("status", "ball", "aliases", "source"):
        details[key] = attrs_d.get(key)
    hit = {
        "id": nid,
        "kind": "episode" if as_episode else _NODE_KIND[kind],
        "score": score,
        "text": text,
        "provenance": _clean(
            {"thread_id": thread_id, "entry_id": nid if kind == "entry" else None, "source": attrs_d.get("source")}
        ),
        "backend": BACKEND,
        "extra": _clean({**details, **(extra or {})}),
    }
    if rank is not None:
        hit["rank"] = rank
    if name:
        hit["name"] = name
    if event_time:
        hit["event_time"] = event_time
    return hit


EDGE_COLUMNS = (
    "e.rowid, e.id, e.type, e.source_id, e.target_id, e.thread_id, e.weight, e.event_time, e.fact, "
    "(SELECT kind FROM nodes WHERE id = e.source_id)"
)


def fact_hit(row: tuple, score: float, rank: int | None) -> dict[str, Any]:
    _, eid, etype, source_id, target_id, thread_id, weight, event_time, fact, source_kind = row
    hit = {
        "id": eid,
        "kind": "fact",
        "score": score,
        "text": fact,
        "provenance": _clean({"thread_id": thread_id, "entry_id": source_id if source_kind == "entry" else None}),
        "backend": BACKEND,
        "extra": _clean({"type": etype, "source_id": source_id, "target_id": target_id, "weight": weight}),
    }
    if rank is not None:
        hit["rank"] = rank
    if event_time:
        hit["event_time"] = event_time
    return hit
