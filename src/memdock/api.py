"""The Python API: remember, recall, forget, status (and the graph searches), sync or async.

from memdock import Memory
with Memory(data_dir="notes-store") as memory:
    memory.remember("The staging database moves to eu-west-2 on Friday.", thread="infra", author="ana")
    for hit in memory.recall("when does staging move?", thread="infra").hits:
        print(hit.score, hit.text)

Threads are named the same way everywhere: a name (`infra`) or the id `remember` returned for it
(`thread:infra:...`); see memdock.threads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from .connect import BackendSpec, open_backend
from .contract import DeleteResult, GetResult, SearchResult
from .service import Entry, MemoryService, Remembered, Status
from .service.core import DEFAULT_DEADLINE, ServiceCore
from .service.requests import Count, Forget, Get, Listing, Recall, Search, Update

Many = str | Sequence[str] | None
When = str | datetime | None


class Memory:
    """A memory on one backend (default: the configured one, else sqlite). Use as a context manager or close().

    BACKEND is a backend name or a MemoryBackend object (e.g. memdock.inprocess.InProcessBackend)."""

    def __init__(
        self,
        backend: BackendSpec = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: dict[str, Any] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        sandbox: bool | str | None = None,
    ):
        self._core = ServiceCore(
            open_backend(backend, data_dir=data_dir, config=config, sandbox=sandbox), deadline=deadline
        )

    def remember(
        self,
        content: str,
        *,
        thread: str | None = None,
        author: str | None = None,
        role: str | None = None,
        type: str | None = None,
        title: str | None = None,
        time: When = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Remembered:
        """Store one entry in THREAD (a name or id; default `memory`), with METADATA (a JSON object of your own
        fields, filtered on by recall's `where`). Returns its id and its thread's id."""
        return self._core.remember(
            content, thread=thread, author=author, role=role, type=type, title=title, time=time, metadata=metadata
        )

    def update(
        self, entry_id: str, *, text: str | None = None, metadata: Mapping[str, Any] | None = None
    ) -> Remembered:
        """Replace an entry's TEXT and/or METADATA in place (it keeps its id, thread, author and time; metadata
        given replaces the old). An id the memory does not hold is an InvalidInputError."""
        return self._core.update(Update.of(entry_id, text=text, metadata=metadata))

    def remember_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[Remembered]:
        """Store several entries with one index call: each item is the text, or a mapping with `content` and
        remember's keyword arguments. All items are checked before anything is stored."""
        return self._core.remember_many(items)

    def recall(
        self,
        query: str,
        *,
        thread: Many = None,
        since: When = None,
        until: When = None,
        author: Many = None,
        role: Many = None,
        type: Many = None,
        limit: int = 10,
        mode: str | None = None,
        min_score: float | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> SearchResult:
        """Passages relevant to QUERY, best first, restricted by the filters given. Scores lie in [0, 1]: 1 when a
        passage holds every query term (see the backend's capabilities); MIN_SCORE drops hits below it. WHERE
        keeps entries whose metadata matches: {"key": value}, {"key": [any, of, these]}, {"key": {"$in": [...]}}."""
        return self._core.recall(
            Recall.of(
                query, limit=limit, mode=mode, min_score=min_score, where=where,
                thread=thread, since=since, until=until, author=author, role=role, type=type,
            )
        )  # fmt: skip

    def list(self, *, thread: Many = None, limit: int = 20, offset: int = 0) -> list[Entry]:
        """Entries oldest first, LIMIT of them (1-1000, memdock.limits) from OFFSET: THREAD's (a name or id, or
        several) when given, else the whole memory's. Page with OFFSET += LIMIT until a short page."""
        return self._core.entries(Listing.of(thread=thread, limit=limit, offset=offset))

    def count(self, *, thread: Many = None) -> int:
        """How many entries the memory holds (THREAD's, when given)."""
        return self._core.count(Count.of(thread=thread))

    def threads(self) -> dict[str, int]:
        """Each thread id the memory holds, with its number of entries."""
        return self._core.threads()

    def forget(self, ids: str | Sequence[str]) -> DeleteResult:
        """Delete records by id, with what depends on them (a thread takes its entries, an entry its chunks)."""
        return self._core.delete(Forget.of(ids))

    def status(self) -> Status:
        return self._core.status()

    def search_nodes(self, text: str, *, limit: int = 10, thread: Many = None) -> SearchResult:
        return self._core.search(Search.of("search_nodes", text, limit=limit, thread=thread))

    def search_facts(self, text: str, *, limit: int = 10, thread: Many = None) -> SearchResult:
        return self._core.search(Search.of("search_facts", text, limit=limit, thread=thread))

    def search_episodes(self, text: str, *, limit: int = 10, thread: Many = None) -> SearchResult:
        return self._core.search(Search.of("search_episodes", text, limit=limit, thread=thread))

    def get_node(self, node_id: str) -> GetResult:
        return self._core.get(Get.of("get_node", node_id))

    def get_edge(self, edge_id: str) -> GetResult:
        return self._core.get(Get.of("get_edge", edge_id))

    def close(self) -> None:
        self._core.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncMemory:
    """The same API for asyncio code: each call runs on a thread of its own, never blocking the loop."""

    def __init__(
        self,
        backend: BackendSpec = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: dict[str, Any] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        sandbox: bool | str | None = None,
        workers: int = 2,
    ):
        opened = open_backend(backend, data_dir=data_dir, config=config, workers=workers, sandbox=sandbox)
        self.service = MemoryService(opened, deadline=deadline, workers=workers)

    async def remember(
        self,
        content: str,
        *,
        thread: str | None = None,
        author: str | None = None,
        role: str | None = None,
        type: str | None = None,
        title: str | None = None,
        time: When = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Remembered:
        return await self.service.remember(
            content, thread=thread, author=author, role=role, type=type, title=title, time=time, metadata=metadata
        )

    async def update(
        self, entry_id: str, *, text: str | None = None, metadata: Mapping[str, Any] | None = None
    ) -> Remembered:
        return await self.service.update(Update.of(entry_id, text=text, metadata=metadata))

    async def remember_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[Remembered]:
        return await self.service.remember_many(items)

    async def recall(
        self,
        query: str,
        *,
        thread: Many = None,
        since: When = None,
        until: When = None,
        author: Many = None,
        role: Many = None,
        type: Many = None,
        limit: int = 10,
        mode: str | None = None,
        min_score: float | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> SearchResult:
        return await self.service.recall(
            Recall.of(
                query, limit=limit, mode=mode, min_score=min_score, where=where,
                thread=thread, since=since, until=until, author=author, role=role, type=type,
            )
        )  # fmt: skip

    async def list(self, *, thread: Many = None, limit: int = 20, offset: int = 0) -> list[Entry]:
        return await self.service.entries(Listing.of(thread=thread, limit=limit, offset=offset))

    async def count(self, *, thread: Many = None) -> int:
        return await self.service.count(Count.of(thread=thread))

    async def threads(self) -> dict[str, int]:
        return await self.service.threads()

    async def forget(self, ids: str | Sequence[str]) -> DeleteResult:
        return await self.service.delete(Forget.of(ids))

    async def status(self) -> Status:
        return await self.service.status()

    async def search_nodes(self, text: str, *, limit: int = 10, thread: Many = None) -> SearchResult:
        return await self.service.search(Search.of("search_nodes", text, limit=limit, thread=thread))

    async def search_facts(self, text: str, *, limit: int = 10, thread: Many = None) -> SearchResult:
        return await self.service.search(Search.of("search_facts", text, limit=limit, thread=thread))

    async def search_episodes(self, text: str, *, limit: int = 10, thread: Many = None) -> SearchResult:
        return await self.service.search(Search.of("search_episodes", text, limit=limit, thread=thread))

    async def get_node(self, node_id: str) -> GetResult:
        return await self.service.get(Get.of("get_node", node_id))

    async def get_edge(self, edge_id: str) -> GetResult:
        return await self.service.get(Get.of("get_edge", edge_id))

    async def aclose(self) -> None:
        await self.service.aclose()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
