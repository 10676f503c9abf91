"""Stored payload records to normalised hits, in the shapes the sqlite adapter answers with, for the adapters that
keep each record whole (tantivy, postgres): BACKEND names the adapter in every hit."""

from __future__ import annotations

from typing import Any

_NODE_KIND = {"thread": "thread", "entry": "entry", "entity": "node"}


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and v != ""}


def _finish(hit: dict[str, Any], rec: dict[str, Any], rank: int | None) -> dict[str, Any]:
    if rank is not None:
        hit["rank"] = rank
    if rec.get("event_time"):
        hit["event_time"] = rec["event_time"]
    return hit


def chunk_hit(
    backend: str, rec: dict[str, Any], score: float, rank: int | None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    hit = {
        "id": rec["id"],
        "kind": "chunk",
        "score": score,
        "text": rec["text"],
        "provenance": _clean(
            {
                "thread_id": rec["thread_id"],
                "entry_id": rec["entry_id"],
                "chunk_id": rec["id"],
                "source": rec.get("source"),
            }
        ),
        "backend": backend,
        "extra": _clean(
            {k: rec.get(k) for k in ("position", "start", "end", "author", "role", "entry_type")} | (extra or {})
        ),
    }
    return _finish(hit, rec, rank)


def node_text(rec: dict[str, Any]) -> str:
    if rec["kind"] == "thread":
        return " ".join(x for x in (rec.get("topic"), rec.get("status"), rec.get("ball")) if x)
    if rec["kind"] == "entity":
        return " ".join([rec["entity_type"], rec["name"], *(rec.get("aliases") or [])])
    return rec["body"]


def node_hit(
    backend: str,
    rec: dict[str, Any],
    score: float,
    rank: int | None,
    *,
    as_episode: bool = False,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    kind = rec["kind"]
    details = {
        "node_type": kind,
        "position": rec.get("position"),
        "author": rec.get("author"),
        "role": rec.get("role"),
        **({"entity_type": rec.get("entity_type")} if kind == "entity" else {"entry_type": rec.get("entry_type")}),
    }
    for k in ("status", "ball", "aliases", "source"):
        details[k] = rec.get(k)
    hit = {
        "id": rec["id"],
        "kind": "episode" if as_episode else _NODE_KIND[kind],
        "score": score,
        "text": node_text(rec),
        "provenance": _clean(
            {
                "thread_id": rec.get("thread_id"),
                "entry_id": rec["id"] if kind == "entry" else None,
                "source": rec.get("source"),
            }
        ),
        "backend": backend,
        "extra": _clean(details | (extra or {})),
    }
    name = rec.get("name") if kind == "entity" else rec.get("title")
    if name:
        hit["name"] = name
    return _finish(hit, rec, rank)


def fact_hit(backend: str, rec: dict[str, Any], score: float, rank: int | None) -> dict[str, Any]:
    hit = {
        "id": rec["id"],
        "kind": "fact",
        "score": score,
        "text": rec["fact"],
        "provenance": _clean(
            {
                "thread_id": rec.get("thread_id"),
                "entry_id": rec["source_id"] if rec.get("source_kind") == "entry" else None,
            }
        ),
        "backend": backend,
        "extra": _clean(
            {
                "type": rec["type"],
                "source_id": rec["source_id"],
                "target_id": rec["target_id"],
                "weight": rec.get("weight"),
            }
        ),
    }
    return _finish(hit, rec, rank)
