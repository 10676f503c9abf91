"""`delete`: forget threads, entries, chunks or memories by id, cascading through the catalog.

An entry or chunk id removes the entry's memories from mem0 (and with the entry every record id
it stood for: its chunks); a thread id removes all its entries; a memory id removes that memory only.
"""

from __future__ import annotations

from typing import Any

from memdock.errors import InvalidInputError

from .indexer import remove_entry_memories
from .runtime import Runtime


def _ids(params: dict[str, Any]) -> list[str]:
    ids = params.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a non-empty list of ids")
    return list(dict.fromkeys(ids))


def delete(rt: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    deleted: list[str] = []
    not_found: list[str] = []
    cascaded = 0
    for rid in _ids(params):
        owner = rt.catalog.entry_of_memory(rid)
        if owner is not None:
            rt.run(lambda: rt.memory.delete(rid), f"delete memory {rid}")
            with rt.catalog.transaction():
                rt.catalog.forget_memory(rid)
            deleted.append(rid)
            continue
        entries = rt.catalog.resolve(rid)
        is_thread = rt.catalog.has_thread(rid)
        if not entries and not is_thread:
            not_found.append(rid)
            continue
        gone = {rid}
        for eid in entries:
            rt.run(lambda: remove_entry_memories(rt, eid), f"delete {rid}: entry {eid}")
            gone.update(rt.catalog.members(eid))
            with rt.catalog.transaction():
                rt.catalog.forget(eid)
        if is_thread:
            with rt.catalog.transaction():
                rt.catalog.forget_thread(rid)
        new = sorted(gone - set(deleted) - {rid})
        cascaded += len(new)
        deleted.extend([rid, *new])
    return {"deleted": deleted, "not_found": not_found, "cascaded": cascaded}
