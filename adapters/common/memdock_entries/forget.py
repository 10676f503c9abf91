"""`delete` for the entry-catalog adapters: threads, entries, chunks or memories by id, cascading through the catalog.

An entry or chunk id removes the entry's memories (and with the entry every record id it stood
for: its chunks); a thread id removes all its entries; a memory id removes that memory only. The
backend's own removal is given as two callables, so this file knows nothing of mem0 or HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memdock.errors import InvalidInputError

from .catalog import Catalog


def delete(
    catalog: Catalog,
    params: dict[str, Any],
    remove_entry: Callable[[str, str], Any],
    remove_memory: Callable[[str], Any],
) -> dict[str, Any]:
    """REMOVE_ENTRY(entry_id, state) drops what the backend holds for an entry; REMOVE_MEMORY(memory_id) one memory."""
    ids = params.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a non-empty list of ids")
    deleted: list[str] = []
    not_found: list[str] = []
    cascaded = 0
    for rid in dict.fromkeys(ids):
        if catalog.entry_of_memory(rid) is not None:
            remove_memory(rid)
            with catalog.transaction():
                catalog.forget_memory(rid)
            deleted.append(rid)
            continue
        entries = catalog.resolve(rid)
        is_thread = catalog.has_thread(rid)
        if not entries and not is_thread:
            not_found.append(rid)
            continue
        gone = {rid}
        for eid in entries:
            remove_entry(eid, (catalog.state(eid) or ("committed", ""))[0])
            gone.update(catalog.members(eid))
            with catalog.transaction():
                catalog.forget(eid)
        if is_thread:
            with catalog.transaction():
                catalog.forget_thread(rid)
        new = sorted(gone - set(deleted) - {rid})
        cascaded += len(new)
        deleted.extend([rid, *new])
    return {"deleted": deleted, "not_found": not_found, "cascaded": cascaded}
