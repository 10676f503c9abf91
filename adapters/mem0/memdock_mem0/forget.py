"""`delete` on mem0: the shared cascade, with mem0's own delete doing the removing (history and entity links too)."""

from __future__ import annotations

from typing import Any

from memdock_entries.forget import delete as cascade

from .indexer import remove_entry_memories
from .runtime import Runtime


def delete(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    return cascade(
        rt.catalog,
        params,
        remove_entry=lambda eid, state: rt.run(lambda: remove_entry_memories(rt, eid), f"delete entry {eid}"),
        remove_memory=lambda mid: rt.run(lambda: rt.memory.delete(mid), f"delete memory {mid}"),
    )
