"""Recall latency through the official MCP client, idle and during a burst of concurrent remembers, over stdio
and streamable HTTP, in one run.

    python bench/mcp_load.py [--recalls 50] [--writes 50]

For each transport a fresh sqlite store gets one note, then RECALLS concurrent `memory_recall` calls are timed
alone (idle), and again while WRITES concurrent `memory_remember` calls are in flight (burst: the recalls start
once the first remember has answered). Prints p50/p99 in ms and how many recalls came back degraded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

Session = Callable[[], Any]


@asynccontextmanager
async def stdio_session(store: str) -> AsyncIterator[Callable[[], Any]]:
    """One stdio server; every caller shares its one session (stdio has one client)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memdock", "mcp", "--data-dir", store], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        @asynccontextmanager
        async def shared() -> AsyncIterator[ClientSession]:
            yield session

        yield shared


@asynccontextmanager
async def http_sessions(store: str) -> AsyncIterator[Callable[[], Any]]:
    """One HTTP server; every caller opens a session of its own (an agent each)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdock", "mcp", "--http", "127.0.0.1:0", "--data-dir", store],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    url = ""
    for line in proc.stderr:
        if "memdock MCP server on " in line:
            url = line.split(" on ", 1)[1].strip()
            break

    @asynccontextmanager
    async def own() -> AsyncIterator[ClientSession]:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session

    try:
        yield own
    finally:
        proc.terminate()
        proc.wait(timeout=60)


async def timed_recall(open_session: Session) -> tuple[float, bool]:
    async with open_session() as s:
        started = time.perf_counter()
        answer = await s.call_tool("memory_recall", {"query": "coffee machine", "limit": 3})
        took = time.perf_counter() - started
    body = json.loads(answer.content[0].text)
    return took, bool(body.get("degraded")) or not body.get("hits")


async def remember(open_session: Session, text: str, done: asyncio.Event | None = None) -> None:
    async with open_session() as s:
        await s.call_tool("memory_remember", {"content": text, "thread": "bench"})
    if done is not None:
        done.set()


async def measure(open_session: Session, recalls: int, writes: int) -> dict[str, tuple[float, float, int]]:
    await remember(open_session, "The office coffee machine is on floor 3")
    idle = await asyncio.gather(*(timed_recall(open_session) for _ in range(recalls)))
    first = asyncio.Event()
    burst = [asyncio.create_task(remember(open_session, f"standup {n}: queue long", first)) for n in range(writes)]
    await first.wait()
    loaded = await asyncio.gather(*(timed_recall(open_session) for _ in range(recalls)))
    await asyncio.gather(*burst)
    return {"idle": summary(idle), f"during {writes} remembers": summary(loaded)}


def summary(rows: list[tuple[float, bool]]) -> tuple[float, float, int]:
    times = sorted(t for t, _ in rows)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times) * 1000, p99 * 1000, sum(bad for _, bad in rows)


async def run(transport: Callable[[str], Any], recalls: int, writes: int) -> dict[str, tuple[float, float, int]]:
    with tempfile.TemporaryDirectory() as tmp:
        async with transport(f"{tmp}/store") as open_session:
            return await measure(open_session, recalls, writes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recalls", type=int, default=50)
    ap.add_argument("--writes", type=int, default=50)
    args = ap.parse_args()
    print(f"{'transport':10}{'recalls':24}{'p50 ms':>10}{'p99 ms':>10}{'degraded':>10}   ({args.recalls} recalls)")
    for name, transport in (("stdio", stdio_session), ("http", http_sessions)):
        for label, (p50, p99, bad) in asyncio.run(run(transport, args.recalls, args.writes)).items():
            print(f"{name:10}{label:24}{p50:>10.1f}{p99:>10.1f}{bad:>10}")


if __name__ == "__main__":
    main()
