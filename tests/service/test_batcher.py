"""Group commit: remembers that arrive while the write lane is busy go to the backend together, in order."""

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from memdock.service.batcher import WriteBatcher
from memdock.service.remember import Note
from memdock.service.results import Remembered


def _lane_with_gate():
    gate, entered, calls = threading.Event(), threading.Event(), []

    def write(notes):
        calls.append([n.content for n in notes])
        entered.set()
        gate.wait(60)
        return [Remembered(f"entry:{n.content}", "thread:t") for n in notes]

    return gate, entered, calls, write


def test_notes_waiting_behind_a_write_are_indexed_in_one_call():
    gate, entered, calls, write = _lane_with_gate()
    lane = ThreadPoolExecutor(max_workers=1)
    batcher = WriteBatcher(lane, write, max_notes=100)

    async def scenario():
        first = batcher.submit([Note.of("n0")])
        await asyncio.get_running_loop().run_in_executor(None, entered.wait, 60)  # n0 is being written
        rest = [batcher.submit([Note.of(f"n{i}")]) for i in range(1, 20)]
        gate.set()
        return await first, await asyncio.gather(*rest)

    first, rest = asyncio.run(scenario())
    lane.shutdown()
    assert calls == [["n0"], [f"n{i}" for i in range(1, 20)]]
    assert first[0].id == "entry:n0" and [r[0].id for r in rest] == [f"entry:n{i}" for i in range(1, 20)]


def test_a_batch_is_capped_and_a_failure_reaches_every_caller_in_it():
    lane = ThreadPoolExecutor(max_workers=1)
    sizes = []

    def write(notes):
        sizes.append(len(notes))
        raise OSError("disk full")

    batcher = WriteBatcher(lane, write, max_notes=3)

    async def scenario():
        futures = [batcher.submit([Note.of(f"n{i}"), Note.of(f"m{i}")]) for i in range(3)]
        return await asyncio.gather(*futures, return_exceptions=True)

    results = asyncio.run(scenario())
    lane.shutdown()
    assert all(isinstance(r, OSError) for r in results)
    assert all(size <= 3 for size in sizes) and sum(sizes) == 6


def test_closing_a_batch_keeps_later_notes_out_of_it():
    gate, entered, calls, write = _lane_with_gate()
    lane = ThreadPoolExecutor(max_workers=1)
    batcher = WriteBatcher(lane, write, max_notes=100)

    async def scenario():
        first = batcher.submit([Note.of("n0")])
        await asyncio.get_running_loop().run_in_executor(None, entered.wait, 60)
        before = batcher.submit([Note.of("before")])
        batcher.close_batch()  # e.g. a forget goes down the lane here
        after = batcher.submit([Note.of("after")])
        gate.set()
        await asyncio.gather(first, before, after)

    asyncio.run(scenario())
    lane.shutdown()
    assert calls == [["n0"], ["before"], ["after"]]
