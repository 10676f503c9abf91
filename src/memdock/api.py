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
from typing import Any

from . import verbs
from .connect import BackendSpec, open_backend
from .service import MemoryService
from .service.core import DEFAULT_DEADLINE, ServiceCore
from .verbs import Many as Many
from .verbs import When as When
from .verbs import async_verb, sync_verb


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

    remember = sync_verb(verbs.remember)
    update = sync_verb(verbs.update)
    remember_many = sync_verb(verbs.remember_many)
    recall = sync_verb(verbs.recall)
    list = sync_verb(verbs.list_entries, "list")
    count = sync_verb(verbs.count)
    threads = sync_verb(verbs.threads)
    forget = sync_verb(verbs.forget)
    status = sync_verb(verbs.status)
    search_nodes = sync_verb(verbs.search_nodes)
    search_facts = sync_verb(verbs.search_facts)
    search_episodes = sync_verb(verbs.search_episodes)
    get_node = sync_verb(verbs.get_node)
    get_edge = sync_verb(verbs.get_edge)

    def close(self) -> None:
        self._core.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncMemory:
    """The same API for asyncio code: each call runs on a thread of its own, never blocking the loop.

    Its verbs and Memory's are made from one table (memdock.verbs): the same arguments, checks and requests."""

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

    remember = async_verb(verbs.remember)
    update = async_verb(verbs.update)
    remember_many = async_verb(verbs.remember_many)
    recall = async_verb(verbs.recall)
    list = async_verb(verbs.list_entries, "list")
    count = async_verb(verbs.count)
    threads = async_verb(verbs.threads)
    forget = async_verb(verbs.forget)
    status = async_verb(verbs.status)
    search_nodes = async_verb(verbs.search_nodes)
    search_facts = async_verb(verbs.search_facts)
    search_episodes = async_verb(verbs.search_episodes)
    get_node = async_verb(verbs.get_node)
    get_edge = async_verb(verbs.get_edge)

    async def aclose(self) -> None:
        await self.service.aclose()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
