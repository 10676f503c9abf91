"""Reads never wait behind writes: real MCP clients over real HTTP, recalls fired while a burst of concurrent
remembers is in flight, each answered with its hits (not degraded)."""

import asyncio

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from test_mcp import data
from test_mcp_http import call, http_server

pytestmark = pytest.mark.slow

WRITERS = READERS = 50


def test_recalls_during_a_burst_of_remembers_are_answered(tmp_path):
    async def remember(url: str, n: int, first_done: asyncio.Event):
        async def script(s):
            note = f"standup note {n}: the build farm queue was long again"
            answer = data(await s.call_tool("memory_remember", {"content": note, "thread": "standups"}))
            first_done.set()
            return answer

        return await call(url, script, token=None)

    async def recall(url: str):
        async def script(s):
            return data(await s.call_tool("memory_recall", {"query": "coffee machine", "limit": 3}))

        return await call(url, script, token=None)

    async def scenario(url: str):
        await call(url, lambda s: s.call_tool("memory_remember", {"content": "The coffee machine is on floor 3"}))
        first_done = asyncio.Event()
        writers = [asyncio.create_task(remember(url, n, first_done)) for n in range(WRITERS)]
        await first_done.wait()  # the burst is under way: one remember stored, the others queued or running
        in_flight = sum(not w.done() for w in writers)
        recalls = await asyncio.gather(*(recall(url) for _ in range(READERS)))
        return in_flight, recalls, await asyncio.gather(*writers)

    with http_server("--data-dir", str(tmp_path / "store")) as url:
        in_flight, recalls, remembered = asyncio.run(scenario(url))
    assert in_flight > 0, "the recalls were meant to run during the burst"
    degraded = [r["reason"] for r in recalls if r["degraded"]]
    assert not degraded, f"{len(degraded)} of {READERS} recalls degraded: {degraded[:3]}"
    assert all("coffee machine" in r["hits"][0]["text"] for r in recalls)
    assert not [r for r in remembered if r.get("degraded")]
