"""MemoryService: the async face of ServiceCore, for servers and agents.

Each call runs the synchronous core on a thread of the service's own, so the event loop never blocks on
a backend; the core enforces the deadline, and `asyncio.wait_for` is a backstop a little beyond it.

Reads and writes run in separate lanes. Writes are serialised by the store's lock anyway, so they get one
thread of their own: a burst of remembers queues there, and never takes the threads a recall needs (the
store's readers never wait on its writer: the adapters read through their own snapshot, e.g. SQLite WAL).
Given a WRITER (how to open the same backend again), the lane hands each batch of remembers to a process of
its own (service/write_process.py), so their Python never holds the GIL a recall needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from ..contract import DeleteResult, GetResult, MemoryBackend, SearchResult
from .batcher import WriteBatcher
from .core import DEFAULT_DEADLINE, INDEX_DEADLINE, MAX_BATCH, ServiceCore, notes_of
from .remember import Note
from .requests import Count, Forget, Get, Listing, Recall, Search, Update
from .results import Entry, Remembered, Status
from .write_process import Opener, WriteProcess

R = TypeVar("R")
BACKSTOP = 2.0


class MemoryService:
    """The service over BACKEND (opened by `memdock.connect.open_backend`, which this service then owns).
    WORKERS sizes the thread pool: calls beyond it wait their turn. WRITER opens BACKEND again in another
    process (picklable, e.g. a functools.partial of memdock.connect.open_backend): remembers are written there."""

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        deadline: float = DEFAULT_DEADLINE,
        workers: int = 2,
        writer: Opener | None = None,
    ):
        self.core = ServiceCore(backend, deadline=deadline)
        self.deadline = deadline
        self._threads = ThreadPoolExecutor(max_workers=workers + 1, thread_name_prefix="memdock-read")
        self._writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memdock-write")
        self._writer = writer
        self.write_process: WriteProcess | None = None
        self._batcher = WriteBatcher(self._writes, self._remember_notes, MAX_BATCH)

    def warm_up(self) -> None:
        """Start now what the first requests would otherwise wait for (a server does before it listens): the
        backend's query workers, when it keeps some, and the write process, when there is a writer."""
        start_workers = getattr(self.core.backend, "start_workers", None)
        if start_workers is not None:
            start_workers()
        self._writes.submit(self._write_process).result()

    def _write_process(self) -> WriteProcess | None:
        """The write process (on the write lane), started once the backend's capabilities are known (without
        them the core answers a remember degraded, in this process)."""
        if self._writer is not None and self.write_process is None:
            caps = self.core.capabilities()
            if caps is not None:
                self.write_process = WriteProcess(self._writer, caps, self.core.deadline)
                self.write_process.start()
        return self.write_process

    def _remember_notes(self, notes: list[Note]) -> list[Remembered]:
        """On the write lane: NOTES written by the write process when there is one, else here."""
        process = self._write_process()
        if process is None:
            return self.core.remember_notes(notes)
        return process.remember_notes(notes)

    async def _call(
        self,
        fn: Callable[..., R],
        *args: Any,
        degraded: Callable[[str], R],
        seconds: float | None = None,
        write: bool = False,
        **kwargs: Any,
    ) -> R:
        loop = asyncio.get_running_loop()
        deadline = seconds or self.deadline
        lane = self._threads
        if write:
            lane = self._writes
            self._batcher.close_batch()
        try:
            job = loop.run_in_executor(lane, partial(fn, *args, **kwargs))
            return await asyncio.wait_for(job, deadline + BACKSTOP)
        except TimeoutError:
            return degraded(f"no answer within the {deadline:g}s deadline")

    async def recall(self, request: Recall) -> SearchResult:
        return await self._call(self.core.recall, request, degraded=_no_hits)

    async def query(self, text: str, **options: Any) -> SearchResult:
        """recall with the request built (and checked, on the caller's thread) from Recall.of's arguments."""
        return await self.recall(Recall.of(text, **options))

    async def search(self, request: Search) -> SearchResult:
        return await self._call(self.core.search, request, degraded=_no_hits)

    async def search_nodes(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return await self.search(Search.of("search_nodes", text, limit=limit, thread=thread))

    async def search_facts(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return await self.search(Search.of("search_facts", text, limit=limit, thread=thread))

    async def search_episodes(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return await self.search(Search.of("search_episodes", text, limit=limit, thread=thread))

    async def get(self, request: Get) -> GetResult:
        return await self._call(self.core.get, request, degraded=_no_item)

    async def get_node(self, node_id: str) -> GetResult:
        return await self.get(Get.of("get_node", node_id))

    async def get_edge(self, edge_id: str) -> GetResult:
        return await self.get(Get.of("get_edge", edge_id))

    async def remember(self, content: str, **fields: Any) -> Remembered:
        return (await self._remember([Note.of(content, **fields)]))[0]

    async def remember_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[Remembered]:
        return await self._remember(notes_of(items))

    async def _remember(self, notes: list[Note]) -> list[Remembered]:
        """NOTES indexed with whatever other remembers are waiting (see batcher.py); checked before queueing."""
        if not notes:
            return []
        deadline = max(self.deadline, INDEX_DEADLINE)
        try:
            return await asyncio.wait_for(self._batcher.submit(notes), deadline + BACKSTOP)
        except TimeoutError:
            why = f"no answer within the {deadline:g}s deadline"
            return [Remembered("", "", degraded=True, reason=why) for _ in notes]

    async def update(self, request: Update) -> Remembered:
        return await self._call(
            self.core.update,
            request,
            seconds=max(self.deadline, INDEX_DEADLINE),
            write=True,
            degraded=lambda why: Remembered(request.id, "", degraded=True, reason=why),
        )

    async def entries(self, request: Listing) -> list[Entry]:
        return await self._call(self.core.entries, request, degraded=lambda why: [])

    async def list(self, *, thread: Any = None, limit: int = 20, offset: int = 0) -> list[Entry]:
        return await self.entries(Listing.of(thread=thread, limit=limit, offset=offset))

    async def count(self, request: Count | None = None) -> int:
        return await self._call(self.core.count, request, degraded=lambda why: 0)

    async def threads(self) -> dict[str, int]:
        return await self._call(self.core.threads, degraded=lambda why: {})

    async def delete(self, request: Forget) -> DeleteResult:
        return await self._call(
            self.core.delete, request, write=True, degraded=lambda why: DeleteResult(degraded=True, reason=why)
        )

    async def forget(self, ids: Sequence[str] | str) -> DeleteResult:
        return await self.delete(Forget.of(ids))

    async def status(self) -> Status:
        return await self._call(
            self.core.status, degraded=lambda why: Status(self.core.name, degraded=True, reason=why)
        )

    async def aclose(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def close(self) -> None:
        if self.write_process is not None:
            self.write_process.close()
        self.core.close()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._writes.shutdown(wait=False, cancel_futures=True)

    async def __aenter__(self) -> MemoryService:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _no_hits(why: str) -> SearchResult:
    return SearchResult(degraded=True, reason=why)


def _no_item(why: str) -> GetResult:
    return GetResult(degraded=True, reason=why)
