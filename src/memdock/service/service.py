"""MemoryService: the async face of ServiceCore, for servers and agents.

Each call runs the synchronous core on a thread of the service's own, so the event loop never blocks on
a backend; the core enforces the deadline, and `asyncio.wait_for` is a backstop a little beyond it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from ..contract import DeleteResult, GetResult, MemoryBackend, SearchResult
from .core import DEFAULT_DEADLINE, INDEX_DEADLINE, ServiceCore
from .filters import Filters
from .results import Entry, Remembered, Status

R = TypeVar("R")
BACKSTOP = 2.0


class MemoryService:
    """The service over BACKEND (opened by `memdock.connect.open_backend`, which this service then owns).
    WORKERS sizes the thread pool: calls beyond it wait their turn."""

    def __init__(self, backend: MemoryBackend, *, deadline: float = DEFAULT_DEADLINE, workers: int = 2):
        self.core = ServiceCore(backend, deadline=deadline)
        self.deadline = deadline
        self._threads = ThreadPoolExecutor(max_workers=workers + 1, thread_name_prefix="memdock-service")

    async def _call(
        self,
        fn: Callable[..., R],
        *args: Any,
        degraded: Callable[[str], R],
        seconds: float | None = None,
        **kwargs: Any,
    ) -> R:
        loop = asyncio.get_running_loop()
        budget = (seconds or self.deadline) + BACKSTOP
        try:
            return await asyncio.wait_for(loop.run_in_executor(self._threads, partial(fn, *args, **kwargs)), budget)
        except TimeoutError:
            return degraded(f"no answer within {budget:g}s")

    async def query(
        self,
        text: str,
        *,
        limit: int = 10,
        filters: Filters | None = None,
        mode: str | None = None,
        min_score: float | None = None,
    ) -> SearchResult:
        return await self._call(
            self.core.query, text, limit=limit, filters=filters, mode=mode, min_score=min_score, degraded=_no_hits
        )

    async def search_nodes(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return await self._call(self.core.search_nodes, text, limit=limit, thread=thread, degraded=_no_hits)

    async def search_facts(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return await self._call(self.core.search_facts, text, limit=limit, thread=thread, degraded=_no_hits)

    async def search_episodes(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return await self._call(self.core.search_episodes, text, limit=limit, thread=thread, degraded=_no_hits)

    async def get_node(self, node_id: str) -> GetResult:
        return await self._call(self.core.get_node, node_id, degraded=_no_item)

    async def get_edge(self, edge_id: str) -> GetResult:
        return await self._call(self.core.get_edge, edge_id, degraded=_no_item)

    async def remember(self, content: str, **fields: Any) -> Remembered:
        return await self._call(
            self.core.remember,
            content,
            **fields,
            seconds=max(self.deadline, INDEX_DEADLINE),
            degraded=lambda why: Remembered("", "", degraded=True, reason=why),
        )

    async def remember_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[Remembered]:
        items = list(items)
        return await self._call(
            self.core.remember_many,
            items,
            seconds=max(self.deadline, INDEX_DEADLINE),
            degraded=lambda why: [Remembered("", "", degraded=True, reason=why) for _ in items],
        )

    async def list(self, *, thread: Any, limit: int = 20, offset: int = 0) -> list[Entry]:
        return await self._call(self.core.list, thread=thread, limit=limit, offset=offset, degraded=lambda why: [])

    async def threads(self) -> dict[str, int]:
        return await self._call(self.core.threads, degraded=lambda why: {})

    async def forget(self, ids: Sequence[str] | str) -> DeleteResult:
        return await self._call(self.core.forget, ids, degraded=lambda why: DeleteResult(degraded=True, reason=why))

    async def status(self) -> Status:
        return await self._call(
            self.core.status, degraded=lambda why: Status(self.core.name, degraded=True, reason=why)
        )

    async def aclose(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def close(self) -> None:
        self.core.close()
        self._threads.shutdown(wait=False, cancel_futures=True)

    async def __aenter__(self) -> MemoryService:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _no_hits(why: str) -> SearchResult:
    return SearchResult(degraded=True, reason=why)


def _no_item(why: str) -> GetResult:
    return GetResult(degraded=True, reason=why)
