"""What the pages show, asked of the service (memdock.service.MemoryService): nothing here knows a backend.

Thread names and last activity cost a call each, so they are asked only for the threads on the page shown and
kept while a thread's entry count is unchanged.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from ..contract import DeleteResult, GetResult, SearchResult
from ..service import Entry, Filters, MemoryService, Status

PAGE = 50
READ_ONLY = "read-only: start the page with --allow-writes to forget"


@dataclass(frozen=True)
class ThreadInfo:
    """A thread's name (its title, else the readable part of its id) and the file it came from, if any."""

    name: str
    source: str | None = None


@dataclass(frozen=True)
class ThreadRow:
    id: str
    name: str
    entries: int
    last: str | None


def name_from_id(thread_id: str) -> str:
    """`thread:infra:1a2b3c4d` reads as `infra`; an id of another shape is shown whole."""
    parts = thread_id.split(":")
    return parts[1] if len(parts) == 3 and parts[0] == "thread" and parts[1] else thread_id


def store_size(root: str) -> int | None:
    """Bytes in regular files under ROOT, links not followed (None when ROOT is not a directory)."""
    if not os.path.isdir(root):
        return None
    total, pending = 0, [Path(root)]
    while pending:
        try:
            with os.scandir(pending.pop()) as it:
                for item in it:
                    info = item.stat(follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(Path(item.path))
                    elif stat.S_ISREG(info.st_mode):
                        total += info.st_size
        except OSError:
            continue
    return total


class MemoryView:
    """The service as the pages need it; ALLOW_WRITES gates forgetting."""

    def __init__(self, service: MemoryService, *, allow_writes: bool = False):
        self.service = service
        self.allow_writes = allow_writes
        self._info: dict[str, ThreadInfo] = {}
        self._last: dict[tuple[str, int], str | None] = {}

    @property
    def name(self) -> str:
        return self.service.core.name

    async def status(self) -> Status:
        return await self.service.status()

    async def lacks(self, op: str) -> str | None:
        """Why OP is greyed out (the backend's capabilities say it cannot, or the page is read-only), or None."""
        reason = await asyncio.to_thread(self.service.core.lacking, op)
        if reason is None and op == "delete" and not self.allow_writes:
            return READ_ONLY
        return reason

    async def size(self) -> int | None:
        return await asyncio.to_thread(store_size, self.service.core.backend.location)

    async def thread_info(self, thread_id: str) -> ThreadInfo:
        if thread_id not in self._info:
            info = ThreadInfo(name_from_id(thread_id))
            if not await self.lacks("get_node"):
                item = (await self.service.get_node(thread_id)).item
                if item is not None:
                    extra = item.extra or {}
                    source = item.provenance.get("source") or extra.get("source")
                    info = ThreadInfo(item.name or info.name, source if isinstance(source, str) else None)
            self._info[thread_id] = info
        return self._info[thread_id]

    async def last_activity(self, thread_id: str, entries: int) -> str | None:
        key = (thread_id, entries)
        if key not in self._last and entries:
            last = await self.service.list(thread=thread_id, limit=1, offset=entries - 1)
            self._last[key] = last[0].time if last else None
        return self._last.get(key)

    async def threads(self, offset: int, limit: int = PAGE) -> tuple[list[ThreadRow], int]:
        """The threads from OFFSET (LIMIT of them, by id) and how many there are."""
        held = await self.service.threads()
        shown = sorted(held.items())[offset : offset + limit]

        async def row(tid: str, n: int) -> ThreadRow:
            info = await self.thread_info(tid)
            return ThreadRow(tid, info.name, n, await self.last_activity(tid, n))

        return list(await asyncio.gather(*(row(t, n) for t, n in shown))), len(held)

    async def thread_size(self, thread_id: str) -> int:
        return (await self.service.threads()).get(thread_id, 0)

    async def entries(self, thread_id: str, offset: int, limit: int = PAGE) -> list[Entry]:
        return await self.service.list(thread=thread_id, limit=limit, offset=offset)

    async def search(self, text: str, *, mode: str | None, thread: str | None, limit: int = 20) -> SearchResult:
        filters = Filters.of(thread=thread) if thread else None
        return await self.service.query(text, limit=limit, filters=filters, mode=mode)

    async def node(self, node_id: str) -> GetResult:
        return await self.service.get_node(node_id)

    async def forget(self, item_id: str) -> DeleteResult:
        """Forget ITEM_ID (an entry, a thread, any record) when the page may write; otherwise a degraded answer."""
        lacking = await self.lacks("delete")
        if lacking:
            return DeleteResult(not_found=[item_id], degraded=True, reason=lacking)
        result = await self.service.forget([item_id])
        self._info.pop(item_id, None)
        return result

    async def names(self, ids: list[str]) -> dict[str, str]:
        """A readable name for each of IDS (its node's name, else the start of its text), for the graph view."""
        if await self.lacks("get_node"):
            return {}
        found = await asyncio.gather(*(self.service.get_node(i) for i in ids))
        out = {}
        for node_id, result in zip(ids, found):
            if result.item is not None:
                out[node_id] = result.item.name or result.item.text[:40] or node_id
        return out

    async def describe(self, item_id: str) -> tuple[str, str, str]:
        """(a preview of ITEM_ID's text, what it is, the page to go back to) for the forget confirmation."""
        held = await self.service.threads()
        if item_id in held:
            info = await self.thread_info(item_id)
            return info.name, f"a thread of {held[item_id]:,} entries", "/ui/"
        if await self.lacks("get_node"):
            return "", "", "/ui/"
        item = (await self.service.get_node(item_id)).item
        if item is None:
            return "", "", "/ui/"
        tid = (item.provenance or {}).get("thread_id")
        back = f"/ui/thread?{urlencode({'id': tid})}" if tid else "/ui/"
        text = item.text if len(item.text) <= 400 else item.text[:400] + "…"
        return text, item.kind, back
