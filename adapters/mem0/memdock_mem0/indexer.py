"""`index`: staged entries into mem0 one at a time, in event-time order, each checkpointed once committed.

For each entry the catalog is marked `pending`, whatever mem0 already holds for it is removed
(its recorded memories, and any a killed run stored without reporting, found by metadata), mem0's
`add` runs (with `infer` on: one LLM call extracting memories; off: one raw memory, no LLM), the
returned memory ids are recorded and the entry marked `committed` in one transaction, then the
checkpoint names the entry and its chunks. Content already committed unchanged is skipped without
any model call; changed content replaces the entry's memories.

Scoping: every memory has mem0's `user_id` (the config's, default `memdock`) and `run_id` = its
thread id; the entry, author, role, type and time go into mem0 metadata (`md_*` keys) so searches
can filter on them. `agent_id` is not used: mem0 switches to agent-memory extraction when it is set,
and an entry's author is who spoke, not whose memory it is.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from memdock.bundle import BundleReader
from memdock.sdk import Context

from .runtime import Runtime
from memdock_entries.meta import metadata
from memdock_entries.staging import stage

CHECKPOINT_BATCH = 1000


def remove_entry_memories(rt: Runtime, entry_id: str) -> int:
    gone = set(rt.catalog.memories(entry_id)) | set(rt.stored_for(entry_id))
    for memory_id in gone:
        try:
            rt.memory.delete(memory_id)
        except ValueError:  # mem0: "Memory with id ... not found"
            pass
    return len(gone)


def _batches(ids: list[str], emit: Callable[[list[str]], None]) -> None:
    for i in range(0, len(ids), CHECKPOINT_BATCH):
        emit(ids[i:i + CHECKPOINT_BATCH])


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    started = time.monotonic()
    s = rt.settings
    s.require_models()
    rt.calls.reset()
    reader: BundleReader = ctx.input_bundle()
    staged = stage(reader, rt.catalog, s.max_entry_chars, f"infer={s.infer}")
    checkpoints = 0

    def checkpoint(ids: list[str]) -> None:
        nonlocal checkpoints
        checkpoints += 1
        ctx.checkpoint(ids)

    _batches(staged.ready, checkpoint)
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
        t = time.monotonic()
        where = f"index {entry['id']} (thread {entry['thread_id']})"
        with rt.catalog.transaction():
            rt.catalog.mark(entry, "pending")
        if state is not None:  # never marked pending: mem0 was never given this entry
            removed = rt.run(lambda: remove_entry_memories(rt, entry["id"]), f"{where}: removing the earlier version")
            replaced += 1 if removed or state[0] == "committed" else 0
        message = {"role": "user", "content": entry["body"]}
        result = rt.run(lambda: rt.memory.add([message], user_id=s.user_id, run_id=entry["thread_id"],
                                              metadata=metadata(entry), infer=s.infer), where)
        made = [r["id"] for r in result.get("results", []) if r.get("event") == "ADD"]
        with rt.catalog.transaction():
            rt.catalog.set_memories(entry["id"], made)
            rt.catalog.mark(entry, "committed")
        added += 1
        memories += len(made)
        checkpoint(ids)
        ctx.progress(done, total, f"{entry['id']}: {len(made)} memories in {time.monotonic() - t:.2f}s")
    with rt.catalog.transaction():
        rt.catalog.clear_staged()
    wall = time.monotonic() - started
    return {
        "indexed": staged.counts, "checkpoints": checkpoints, "seconds": wall,
        "details": {"entries_added": added - replaced, "entries_replaced": replaced, "entries_unchanged": unchanged,
                    "memories_added": memories, "infer": s.infer, "ignored": staged.ignored, "calls": rt.calls.summary()},
    }
