"""The index loop shared by the entry-catalog adapters: staged entries one at a time, in event-time order,
each checkpointed once committed.

For each entry: unchanged content (committed with the same hash) is skipped without touching the backend;
otherwise the catalog marks it `pending`, the backend's `write` removes what it held for the entry (when
the catalog knew it) and adds it anew, and the returned memory ids are recorded with the entry marked
`committed` in one transaction before the checkpoint names the entry and its chunks. A run killed midway
leaves at most one `pending` entry, which the next run writes again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memdock.sdk import Context
from memdock.sdk.kit.staging import Checkpoints

from .catalog import Catalog
from .staging import stage


@dataclass
class Written:
    memory_ids: list[str]
    replaced: bool  # an earlier version (or a half-written one) was removed first


def rewriting(
    remove: Callable[[dict[str, Any], str, str], int], add: Callable[[dict[str, Any], str], list[str]]
) -> Callable[[dict[str, Any], str | None], Written]:
    """A WRITE for index_entries: REMOVE(entry, previous state, where) what the backend holds for an entry the catalog
    knew (never called for one it does not: the backend was never given it), then ADD(entry, where) it anew."""

    def write(entry: dict[str, Any], previous: str | None) -> Written:
        where = f"index {entry['id']} (thread {entry['thread_id']})"
        removed = remove(entry, previous, where) if previous is not None else 0
        return Written(add(entry, where), replaced=bool(removed) or previous == "committed")

    return write


def index_entries(
    ctx: Context, catalog: Catalog, max_chars: int, variant: str, write: Callable[[dict[str, Any], str | None], Written]
) -> dict[str, Any]:
    """WRITE(entry, previous state or None) stores one entry in the backend; returns the index result."""
    checkpoint = Checkpoints(ctx)
    staged = stage(ctx.input_bundle(), catalog, max_chars, variant)
    checkpoint(staged.ready)
    total = catalog.staged_count()
    added = replaced = unchanged = memories = 0
    for done, entry in enumerate(catalog.staged(), 1):
        ids = catalog.staged_members(entry["id"])
        state = catalog.state(entry["id"])
        if state == ("committed", entry["content_hash"]):
            unchanged += 1
            checkpoint(ids)
            ctx.progress(done, total, f"{entry['id']}: unchanged")
            continue
        t = time.monotonic()
        with catalog.transaction():
            catalog.mark(entry, "pending")
        written = write(entry, state[0] if state else None)
        with catalog.transaction():
            catalog.set_memories(entry["id"], written.memory_ids)
            catalog.mark(entry, "committed")
        added += 1
        replaced += written.replaced
        memories += len(written.memory_ids)
        checkpoint(ids)
        ctx.progress(done, total, f"{entry['id']}: {len(written.memory_ids)} memories in {time.monotonic() - t:.2f}s")
    with catalog.transaction():
        catalog.clear_staged()
    details = {
        "entries_added": added - replaced,
        "entries_replaced": replaced,
        "entries_unchanged": unchanged,
        "memories_added": memories,
        "ignored": staged.ignored,
    }
    return checkpoint.result(staged.counts, details)
