"""`delete` on MemU: the shared cascade, MemU's repositories doing the removing (an entry's items, their category
links and its resource; or one memory item)."""

from __future__ import annotations

from typing import Any

from memdock_entries.forget import delete as cascade

from .runtime import Runtime


def delete(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    return cascade(
        rt.catalog,
        params,
        remove_entry=lambda eid, state: rt.run(lambda: rt.remove_entry(eid), f"delete entry {eid}"),
        remove_memory=lambda mid: rt.run(lambda: rt.remove_item(mid), f"delete memory item {mid}"),
    )
