"""A long-lived service writes through one write worker, not a one-shot adapter process per remember."""

import asyncio

from memdock.api import AsyncMemory, Memory


def _index_calls(backend):
    return [c for c in backend.calls if c.operation == "index"]


def test_async_memory_with_workers_starts_the_write_worker_once(tmp_path):
    async def scenario():
        memory = AsyncMemory("sqlite", data_dir=tmp_path / "store", workers=1)
        try:
            for i in range(6):
                await memory.remember(f"note {i} on the plum harvest", thread="orchard")
            hits = await memory.recall("plum harvest", limit=10)
            return _index_calls(memory.service.core.backend), hits
        finally:
            await memory.aclose()

    calls, hits = asyncio.run(scenario())
    assert len(calls) == 6
    assert {c.mode for c in calls} == {"worker"}
    assert len({c.pid for c in calls}) == 1, "one write worker process served every remember"
    assert len(hits.hits) == 6


def test_the_write_worker_is_not_a_read_worker(tmp_path):
    with Memory("sqlite", data_dir=tmp_path / "store") as memory:
        memory.remember("a note about pears", thread="orchard")
        memory.recall("pears")
        memory.remember("a note about figs", thread="orchard")
        backend = memory._core.backend
        writes = {c.pid for c in backend.calls if c.operation == "index"}
        reads = {c.pid for c in backend.calls if c.operation == "query"}
    assert len(writes) == 1 and reads and not writes & reads
