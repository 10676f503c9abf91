"""The Python API: remember, recall, forget, status (and the graph searches), sync or async.

from memdock import Memory
with Memory(data_dir="notes-store") as memory:
    memory.remember("The staging database moves to eu-west-2 on Friday.", thread="infra", author="ana")
    for hit in memory.recall("when does staging move?").hits:
        print(hit.score, hit.text)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .contract import DeleteResult, GetResult, SearchResult
from .service import MemoryService, Remembered, ServiceCore, arguments
from .service.core import DEFAULT_DEADLINE
from .service.remember import thread_id_for

API_NAMES = {
    "thread_ids": "thread",
    "time_from": "since",
    "time_to": "until",
    "authors": "author",
    "roles": "role",
    "entry_types": "type",
}


def _filters(
    thread: str | Sequence[str] | None,
    since: str | datetime | None,
    until: str | datetime | None,
    author: str | Sequence[str] | None,
    role: str | Sequence[str] | None,
    type: str | Sequence[str] | None,
) -> dict[str, Any] | None:
    """recall's keyword arguments as query filters; thread names become their thread ids."""
    threads = None if thread is None else [thread_id_for(t) for t in arguments.threads(thread)]
    raw = {
        "thread_ids": threads,
        "time_from": since,
        "time_to": until,
        "authors": author,
        "roles": role,
        "entry_types": type,
    }
    return arguments.filters(raw, names=API_NAMES)


class Memory:
    """A memory on one backend (default: the configured one, else sqlite). Use as a context manager or close()."""

    def __init__(
        self,
        backend: str | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: dict[str, Any] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        sandbox: bool | str | None = None,
    ):
        self._core = ServiceCore(backend, data_dir=data_dir, config=config, deadline=deadline, sandbox=sandbox)

    def remember(
        self,
        content: str,
        *,
        thread: str | None = None,
        author: str | None = None,
        role: str | None = None,
        type: str | None = None,
        title: str | None = None,
        time: str | datetime | None = None,
    ) -> Remembered:
        return self._core.remember(content, thread=thread, author=author, role=role, type=type, title=title, time=time)

    def recall(
        self,
        query: str,
        *,
        thread: str | Sequence[str] | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        author: str | Sequence[str] | None = None,
        role: str | Sequence[str] | None = None,
        type: str | Sequence[str] | None = None,
        limit: int = 10,
        mode: str | None = None,
    ) -> SearchResult:
        return self._core.query(
            query, limit=limit, filters=_filters(thread, since, until, author, role, type), mode=mode
        )

    def forget(self, ids: str | Sequence[str]) -> DeleteResult:
        return self._core.forget(ids)

    def status(self) -> dict[str, Any]:
        return self._core.status()

    def search_nodes(self, text: str, *, limit: int = 10, threads: Sequence[str] | None = None) -> SearchResult:
        return self._core.search_nodes(text, limit=limit, group_ids=threads)

    def search_facts(self, text: str, *, limit: int = 10, threads: Sequence[str] | None = None) -> SearchResult:
        return self._core.search_facts(text, limit=limit, group_ids=threads)

    def search_episodes(self, text: str, *, limit: int = 10, threads: Sequence[str] | None = None) -> SearchResult:
        return self._core.search_episodes(text, limit=limit, group_ids=threads)

    def get_node(self, node_id: str) -> GetResult:
        return self._core.get_node(node_id)

    def get_edge(self, edge_id: str) -> GetResult:
        return self._core.get_edge(edge_id)

    def close(self) -> None:
        self._core.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncMemory:
    """The same API for asyncio code, over MemoryService."""

    def __init__(
        self,
        backend: str | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: dict[str, Any] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        sandbox: bool | str | None = None,
    ):
        self.service = MemoryService(backend, data_dir=data_dir, config=config, deadline=deadline, sandbox=sandbox)

    async def remember(self, content: str, **fields: Any) -> Remembered:
        return await self.service.remember(content, **fields)

    async def recall(
        self,
        query: str,
        *,
        thread: str | Sequence[str] | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        author: str | Sequence[str] | None = None,
        role: str | Sequence[str] | None = None,
        type: str | Sequence[str] | None = None,
        limit: int = 10,
        mode: str | None = None,
    ) -> SearchResult:
        return await self.service.query(
            query, limit=limit, filters=_filters(thread, since, until, author, role, type), mode=mode
        )

    async def forget(self, ids: str | Sequence[str]) -> DeleteResult:
        return await self.service.forget(ids)

    async def status(self) -> dict[str, Any]:
        return await self.service.status()

    async def search_nodes(self, text: str, *, limit: int = 10, threads: Sequence[str] | None = None) -> SearchResult:
        return await self.service.search_nodes(text, limit=limit, group_ids=threads)

    async def search_facts(self, text: str, *, limit: int = 10, threads: Sequence[str] | None = None) -> SearchResult:
        return await self.service.search_facts(text, limit=limit, group_ids=threads)

    async def search_episodes(
        self, text: str, *, limit: int = 10, threads: Sequence[str] | None = None
    ) -> SearchResult:
        return await self.service.search_episodes(text, limit=limit, group_ids=threads)

    async def get_node(self, node_id: str) -> GetResult:
        return await self.service.get_node(node_id)

    async def get_edge(self, edge_id: str) -> GetResult:
        return await self.service.get_edge(edge_id)

    async def aclose(self) -> None:
        await self.service.aclose()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
