"""Hits built from catalog entries: a framework memory as a node, the source entry as an episode, and episodes
ranked as their best memory."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

OVERFETCH, MAX_FETCH = 4, 200  # a filtered or episode search asks the framework for this many more, at most


def clamp_score(value: Any) -> float:
    """A framework's score (None, a string, out of range) as a number in [0, 1]."""
    return max(0.0, min(1.0, float(value or 0.0)))


def _entry_extra(entry: dict[str, Any]) -> list[tuple[str, Any]]:
    return [("author", entry.get("author")), ("role", entry.get("role")), ("entry_type", entry.get("entry_type"))]


def node_hit(
    memory_id: str, text: str, entry: dict[str, Any], score: float, backend: str, extra: dict[str, Any]
) -> dict[str, Any]:
    hit = {
        "id": memory_id,
        "kind": "node",
        "score": score,
        "text": text,
        "provenance": {"thread_id": entry["thread_id"], "entry_id": entry["id"]},
        "backend": backend,
        "extra": {k: v for k, v in [*extra.items(), *_entry_extra(entry)] if v},
    }
    if entry.get("event_time"):
        hit["event_time"] = entry["event_time"]
    return hit


def episode_hit(entry: dict[str, Any], score: float, memory_ids: list[str], backend: str) -> dict[str, Any]:
    hit = {
        "id": entry["id"],
        "kind": "episode",
        "score": score,
        "text": entry["body"],
        "provenance": {"thread_id": entry["thread_id"], "entry_id": entry["id"]},
        "backend": backend,
        "extra": {k: v for k, v in [*_entry_extra(entry), ("memory_ids", memory_ids)] if v},
    }
    if entry.get("title"):
        hit["name"] = entry["title"]
    if entry.get("event_time"):
        hit["event_time"] = entry["event_time"]
    return hit


def best_episodes(
    scored: Iterable[tuple[float, str, dict[str, Any]]], limit: int, backend: str
) -> list[dict[str, Any]]:
    """SCORED is (score, memory id, entry) per memory hit; each entry scores as its best memory."""
    best: dict[str, tuple[float, dict[str, Any], list[str]]] = {}
    for score, memory_id, entry in scored:
        prev = best.get(entry["id"])
        best[entry["id"]] = (max(score, prev[0]) if prev else score, entry, (prev[2] if prev else []) + [memory_id])
    ranked = sorted(best.values(), key=lambda x: -x[0])[:limit]
    return [episode_hit(entry, score, ids, backend) for score, entry, ids in ranked]


def stored_episode(catalog: Any, record_id: str, backend: str) -> tuple[dict[str, Any], list[str]] | None:
    """For `get_node` by our entry id: the episode hit of an entry the catalog holds committed, and the ids of the
    framework's memories made from it; None for any other id."""
    entry = catalog.entry(record_id)
    if entry is None or entry["state"] != "committed":
        return None
    ids = catalog.memories(record_id)
    return episode_hit(entry, 1.0, ids, backend), ids
