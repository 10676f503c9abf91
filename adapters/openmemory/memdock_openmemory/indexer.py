"""`index` on OpenMemory: the shared entry loop (memdock_entries.indexing), each entry one create request.

Before an entry the catalog knew is created again, whatever the server holds for it is deleted:
its recorded memories, and (when a run stopped with it `pending`) any the server made without the
adapter learning of it, found by the `md_entry_id` in their metadata. With `infer` false the server
stores one memory and returns its id; with `infer` true the server's mem0 extracts several and the
create route returns only the first, so the rest are found by their metadata among the memories
created since the request began.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from memdock_entries.indexing import index_entries, rewriting
from memdock_entries.meta import metadata

from memdock.sdk import Context

from .runtime import Runtime


def remove_entry_memories(rt: Runtime, entry_id: str, where: str, scan: bool) -> int:
    gone = set(rt.catalog.memories(entry_id)) | (set(rt.stored_for(entry_id, where)) if scan else set())
    rt.client.delete(sorted(gone), where)
    return len(gone)


def _create(rt: Runtime, entry: dict[str, Any], where: str) -> list[str]:
    started = int(time.time()) - 1
    first = rt.client.create(entry["body"], metadata(entry), where)
    if not first:
        return []
    if first.get("app_id"):
        rt.learn_app_id(str(first["app_id"]))
    if not rt.settings.infer:
        return [str(first["id"])]
    return list(dict.fromkeys([str(first["id"]), *rt.stored_for(entry["id"], where, since=started)]))


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    s = rt.settings

    def remove(entry: dict[str, Any], previous: str, where: str) -> int:
        return remove_entry_memories(rt, entry["id"], where, scan=previous == "pending")

    out = index_entries(ctx, rt.catalog, s.max_entry_chars, f"infer={s.infer}", rewriting(remove, partial(_create, rt)))
    out["details"].update({"infer": s.infer, "http_requests": rt.client.requests})
    return out
