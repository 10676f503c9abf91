"""`delete` on OpenMemory: the shared cascade, with the server's delete route doing the removing."""

from __future__ import annotations

from typing import Any

from memdock_entries.forget import delete as cascade

from .indexer import remove_entry_memories
from .runtime import Runtime


def delete(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    return cascade(
        rt.catalog,
        params,
        remove_entry=lambda eid, state: remove_entry_memories(rt, eid, f"delete entry {eid}", scan=state == "pending"),
        remove_memory=lambda mid: rt.client.delete([mid], f"delete memory {mid}"),
    )
