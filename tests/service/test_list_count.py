"""The whole memory listed (paged) and counted, without naming a thread, sync and async."""

import asyncio

import pytest

from memdock import AsyncMemory, Memory
from memdock.errors import InvalidInputError


def test_list_and_count_everything_paged(tmp_path):
    with Memory(data_dir=tmp_path / "store") as memory:
        memory.remember_many(
            [
                {"content": f"note {n}", "thread": "a" if n % 2 else "b", "time": f"2026-01-0{n + 1}T00:00:00Z"}
                for n in range(7)
            ]
        )
        assert memory.count() == 7 and memory.count(thread="a") == 3 and memory.count(thread=["a", "b"]) == 7
        pages, offset = [], 0
        while page := memory.list(limit=3, offset=offset):
            pages.append([e.text for e in page])
            offset += 3
        assert pages == [["note 0", "note 1", "note 2"], ["note 3", "note 4", "note 5"], ["note 6"]]
        with pytest.raises(InvalidInputError, match="thread is empty"):
            memory.list(thread=[])

    async def run():
        async with AsyncMemory(data_dir=tmp_path / "store") as memory:
            return await memory.count(), len(await memory.list(limit=100))

    assert asyncio.run(run()) == (7, 7)
