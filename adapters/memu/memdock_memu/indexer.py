"""`index` on MemU: the shared entry loop (memdock_entries.indexing), each entry one MemU `memorize`.

Each entry is written as a text file into MemU's resources folder and memorized as a `document` (MemU's
preprocessing prompt is switched off: entries are already text), scoped by user, thread and entry. MemU makes one
LLM call per memory type (extraction), embeds the items, links them to its categories and makes one LLM call per
category touched (its summary). Before an entry the catalog knew is memorized again, whatever MemU holds for it is
removed, found by its `entry_id` scope.
"""

from __future__ import annotations

from typing import Any

from memdock_entries.indexing import index_entries, rewriting

from memdock.sdk import Context

from .runtime import Runtime


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    s = rt.settings
    s.require_models()
    rt.calls.reset()

    def remove(entry: dict[str, Any], _previous: str, where: str) -> int:
        return rt.run(lambda: rt.remove_entry(entry["id"]), f"{where}: removing the earlier version")

    out = index_entries(
        ctx, rt.catalog, s.max_entry_chars, f"memory_types={','.join(s.memory_types)}", rewriting(remove, rt.memorize)
    )
    out["details"].update({"memory_types": list(s.memory_types), "calls": rt.calls.summary()})
    return out
