"""`index`: staged entries to OpenMemory one at a time, in event-time order, each checkpointed once committed.

Each entry is marked `pending`, whatever the server already holds for it is deleted (recorded
memories, and any a killed run created without recording, found by the `md_entry_id` in their
metadata), it is created (`infer` false: one memory, whose id the server returns; true: the server's
mem0 extracts several and returns only the first, so the rest are found by their metadata among the
memories created since the request began), the ids are recorded and the entry marked `committed`,
then checkpointed. Unchanged entries are skipped without a request.
"""

from __future__ import annotations

import time
from typing import Any

from memdock.sdk import Context
from memdock_entries.meta import metadata
from memdock_entries.staging import stage

from .runtime import Runtime

CHECKPOINT_BATCH = 1000


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
        rt._app_id = str(first["app_id"])
    if not rt.settings.infer:
        return [str(first["id"])]
    return list(dict.fromkeys([str(first["id"]), *rt.stored_for(entry["id"], where, since=started)]))


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    started = time.monotonic()
    s = rt.settings
    staged = stage(ctx.input_bundle(), rt.catalog, s.max_entry_chars, f"infer={s.infer}")
    checkpoints = 0

    def checkpoint(ids: list[str]) -> None:
        nonlocal checkpoints
        checkpoints += 1
        ctx.checkpoint(ids)

    for i in range(0, len(staged.ready), CHECKPOINT_BATCH):
        checkpoint(staged.ready[i:i + CHECKPOINT_BATCH])
    total = rt.catalog.staged_count()
    added = replaced = unchanged = memories = 0
    for done, entry in enumerate(rt.catalog.staged(), 1):
        ids = rt.catalog.staged_members(entry["id"])
        state = rt.catalog.state(entry["id"])
        if state == ("committed", entry["content_hash"]):
            unchanged += 1
            checkpoint(ids)
            ctx.progress(done, total, f"{entry['id']}: unchanged")
            continue
        where = f"index {entry['id']} (thread {entry['thread_id']})"
        with rt.catalog.transaction():
            rt.catalog.mark(entry, "pending")
        if state is not None:  # never marked pending: the server was never sent this entry
            removed = remove_entry_memories(rt, entry["id"], where, scan=state[0] == "pending")
            replaced += 1 if removed or state[0] == "committed" else 0
        made = _create(rt, entry, where)
        with rt.catalog.transaction():
            rt.catalog.set_memories(entry["id"], made)
            rt.catalog.mark(entry, "committed")
        added += 1
        memories += len(made)
        checkpoint(ids)
        ctx.progress(done, total, f"{entry['id']}: {len(made)} memories")
    with rt.catalog.transaction():
        rt.catalog.clear_staged()
    return {"indexed": staged.counts, "checkpoints": checkpoints, "seconds": time.monotonic() - started,
            "details": {"entries_added": added - replaced, "entries_replaced": replaced, "entries_unchanged": unchanged,
                        "memories_added": memories, "infer": s.infer, "ignored": staged.ignored,
                        "http_requests": rt.client.requests}}
