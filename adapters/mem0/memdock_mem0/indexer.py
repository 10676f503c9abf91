"""`index` on mem0: the shared entry loop (memdock_entries.indexing), each entry one mem0 `add`.

Scoping: every memory has mem0's `user_id` (the config's, default `memdock`) and `run_id` = its
thread id; the entry, author, role, type and time go into mem0 metadata (`md_*` keys) so searches
can filter on them. `agent_id` is not used: mem0 switches to agent-memory extraction when it is set,
and an entry's author is who spoke, not whose memory it is. With `infer` on, mem0 makes one LLM call
extracting memories from the entry; off, it stores the entry as one raw memory, no LLM. Before an
entry the catalog knew is added again, whatever mem0 holds for it is removed: its recorded memories,
and any a killed run stored without reporting, found by their `md_entry_id`.
"""

from __future__ import annotations

from typing import Any

from memdock_entries.indexing import index_entries, rewriting
from memdock_entries.meta import metadata

from memdock.sdk import Context

from .runtime import Runtime


def remove_entry_memories(rt: Runtime, entry_id: str) -> int:
    gone = set(rt.catalog.memories(entry_id)) | set(rt.stored_for(entry_id))
    for memory_id in gone:
        try:
            rt.memory.delete(memory_id)
        except ValueError:  # mem0: "Memory with id ... not found"
            pass
    return len(gone)


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    s = rt.settings
    s.require_models()
    rt.calls.reset()

    def remove(entry: dict[str, Any], _previous: str, where: str) -> int:
        return rt.run(lambda: remove_entry_memories(rt, entry["id"]), f"{where}: removing the earlier version")

    def add(entry: dict[str, Any], where: str) -> list[str]:
        message = {"role": "user", "content": entry["body"]}
        result = rt.run(
            lambda: rt.memory.add(
                [message], user_id=s.user_id, run_id=entry["thread_id"], metadata=metadata(entry), infer=s.infer
            ),
            where,
        )
        return [r["id"] for r in result.get("results", []) if r.get("event") == "ADD"]

    out = index_entries(ctx, rt.catalog, s.max_entry_chars, f"infer={s.infer}", rewriting(remove, add))
    out["details"].update({"infer": s.infer, "calls": rt.calls.summary()})
    return out
