"""LeanRAG's entities, aggregates, relations and source chunks as memdock hits, with our ids as provenance."""

from __future__ import annotations

import ast
from typing import Any

BACKEND = "leanrag"
SCORE_SEMANTICS = (
    "(cosine + 1) / 2 between the query and the hit under the configured embedder: the stored vector for "
    "entities and aggregates, the hit's text for facts, communities and source chunks"
)


def split_sources(source_id: str | None) -> list[str]:
    return [s for s in str(source_id or "").split("|") if s]


def provenance(chunks: list[dict[str, Any]]) -> tuple[dict[str, str], dict[str, Any]]:
    """(provenance of the first source chunk, extra listing all of them)."""
    if not chunks:
        return {}, {}
    first = chunks[0]
    prov = {
        k: first[k2]
        for k, k2 in (("thread_id", "thread_id"), ("entry_id", "entry_id"), ("chunk_id", "id"))
        if first.get(k2)
    }
    extra = {
        "chunk_ids": [c["id"] for c in chunks],
        "entry_ids": sorted({c["entry_id"] for c in chunks if c.get("entry_id")}),
        "thread_ids": sorted({c["thread_id"] for c in chunks}),
    }
    return prov, extra


def findings_text(findings: str | None) -> list[dict[str, str]]:
    """LeanRAG stores a community's findings as the repr of a list of {summary, explanation}."""
    if not findings:
        return []
    try:
        value = ast.literal_eval(findings)
    except (ValueError, SyntaxError):
        return [{"summary": findings}]
    return [f for f in value if isinstance(f, dict)] if isinstance(value, list) else []


def hit(
    kind: str,
    hid: str,
    score: float,
    text: str,
    chunks: list[dict[str, Any]],
    extra: dict[str, Any],
    name: str | None = None,
) -> dict[str, Any]:
    prov, more = provenance(chunks)
    out = {
        "id": hid,
        "kind": kind,
        "score": max(0.0, min(1.0, score)),
        "text": text,
        "provenance": prov,
        "backend": BACKEND,
        "extra": {**{k: v for k, v in extra.items() if v is not None and v != ""}, **more},
    }
    if name:
        out["name"] = name
    times = [c["event_time"] for c in chunks if c.get("event_time")]
    if times:
        out["event_time"] = min(times)
    return out
