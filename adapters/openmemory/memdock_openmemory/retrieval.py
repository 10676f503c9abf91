"""`query`, `search_nodes`, `search_episodes`, `get_node` over OpenMemory's REST search.

OpenMemory's REST API searches by substring (`search_query`, case-insensitive, on the memory's
text); its semantic search is offered only to MCP clients. So a query is split into up to eight
distinct words, each word is one `filter` request scoped to our app, and a memory scores as the
share of the query's words it contains. Filters are checked against the catalog's record of each
memory's entry; memories the catalog does not know (written by other clients) are left out.
"""

from __future__ import annotations

import re
from typing import Any

from memdock_entries.filters import Filters
from memdock_entries.hits import best_episodes, node_hit, stored_episode

from memdock.sdk.params import limit_of, query_text, record_id

from .runtime import Runtime

BACKEND = "openmemory"
MAX_WORDS, MAX_PER_WORD = 8, 500
STOP = {
    "the",
    "a",
    "an",
    "and",
    "or",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "is",
    "are",
    "was",
    "it",
    "we",
    "with",
    "by",
}
SCORE_SEMANTICS = (
    "share of the query's distinct words (up to 8, stopwords dropped) found in the memory's text by "
    "OpenMemory's substring search, in [0, 1]; episodes score as their best memory"
)


def words_of(text: str) -> list[str]:
    words = [w for w in dict.fromkeys(re.findall(r"[a-z0-9]+", text.lower())) if len(w) > 1]
    return ([w for w in words if w not in STOP] or words)[:MAX_WORDS]


def _scored(rt: Runtime, params: dict[str, Any]) -> list[tuple[float, dict[str, Any], dict[str, Any]]]:
    """(score, memory, entry) for every memory of ours matching a word of the query and the filters, best first."""
    words = words_of(query_text(params))
    filters = Filters.parse(params)
    app = rt.app_id("search")
    if not words or app is None:
        return []
    found: dict[str, tuple[set[str], dict[str, Any]]] = {}
    for word in words:
        for n, m in enumerate(rt.pages("search", search_query=word, app_ids=[app])):
            if n >= MAX_PER_WORD:
                break
            found.setdefault(str(m["id"]), (set(), m))[0].add(word)
    owners = {mid: rt.catalog.entry_of_memory(mid) for mid in found}
    entries = rt.catalog.entries(e for e in owners.values() if e)
    out = []
    for mid, (hit_words, m) in found.items():
        entry = entries.get(owners[mid] or "")
        if entry is not None and entry["state"] == "committed" and filters.passes(entry):
            out.append((len(hit_words) / len(words), m, entry))
    out.sort(key=lambda x: (-x[0], -(x[1].get("created_at") or 0)))
    return out


def memory_hit(m: dict[str, Any], entry: dict[str, Any], score: float) -> dict[str, Any]:
    extra = {k: m.get(k) for k in ("app_id", "app_name", "state", "categories", "created_at")}
    return node_hit(str(m["id"]), m.get("content") or m.get("text") or "", entry, score, BACKEND, extra)


def search_memories(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    limit = limit_of(params)
    return {"hits": [memory_hit(m, e, s) for s, m, e in _scored(rt, params)[:limit]]}


def search_episodes(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    scored = ((score, str(m["id"]), entry) for score, m, entry in _scored(rt, params))
    return {"hits": best_episodes(scored, limit_of(params), BACKEND)}


def get_node(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    """A memory by the server's id, or an entry by our id (an episode, with its memory ids)."""
    rid = record_id(params)
    stored = stored_episode(rt.catalog, rid, BACKEND)
    if stored is not None:
        return {"item": stored[0]}
    owner = rt.catalog.entry_of_memory(rid)
    if owner is None:
        return {"item": None}
    found = rt.client.get(rid, "get_node")
    if not found or found.get("state") in ("deleted", "archived"):
        return {"item": None}
    return {"item": memory_hit(found, rt.catalog.entry(owner) or {"id": owner, "thread_id": None}, 1.0)}
