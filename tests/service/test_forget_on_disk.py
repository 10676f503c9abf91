"""Issue 33, broken 3: after `forget` returns, the forgotten text is on no file of the store (data, WAL, work
dirs), even when a long-lived worker answered a recall of it first; and still none after the process exits.

Journal and ledger are covered by their own tests (the journal rewrite); this searches the backend's files.
"""

import asyncio
import json
import os
from pathlib import Path

import pytest

from memdock import Memory

CANARY = "zq-canary-forget-7731-periwinkle"


def holders(store: Path, canary: str = CANARY) -> list[str]:
    """Every file under STORE whose bytes hold CANARY, but the journal (rewritten separately, issue 33 item 4)."""
    out = []
    for p in store.rglob("*"):
        inside = p.relative_to(store).parts
        if p.is_file() and not p.is_symlink() and "journal" not in inside and canary.encode() in p.read_bytes():
            out.append(str(p.relative_to(store)))
    return out


def test_forget_through_memory_after_a_recall_leaves_no_trace(tmp_path):
    store = tmp_path / "store"
    with Memory("sqlite", data_dir=store) as memory:
        for n in range(3):
            memory.remember(f"filler note {n} about the harbour crane schedule", thread="other")
        kept = memory.remember(f"the vault code is {CANARY}", thread="secret")
        assert memory.recall(CANARY).hits
        forgot = memory.forget([kept.thread_id])
        assert kept.thread_id in forgot.deleted
        assert not memory.recall(CANARY).hits
        during = holders(store)
    after = holders(store)
    assert during == [] and after == [], (during, after)


def test_forget_over_mcp_stdio_after_a_recall_leaves_no_trace(tmp_path):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    import sys

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    sys.path.insert(0, str(Path(__file__).parent))
    from test_mcp import data

    store = tmp_path / "store"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdock", "mcp", "--data-dir", str(store)],
        env={**os.environ, "MEMDOCK_HOME": str(tmp_path / "home")},
    )

    async def scenario():
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            for n in range(3):
                await s.call_tool("memory_remember", {"content": f"filler {n} on the crane", "thread": "other"})
            kept = data(await s.call_tool("memory_remember", {"content": f"vault code {CANARY}", "thread": "secret"}))
            recalled = data(await s.call_tool("memory_recall", {"query": CANARY}))
            forgot = data(await s.call_tool("memory_forget", {"ids": [kept["thread_id"]]}))
            assert kept["thread_id"] in forgot["deleted"], forgot
            return recalled, forgot, holders(store)

    recalled, forgot, during = asyncio.run(scenario())
    assert recalled["hits"], recalled
    assert json.dumps(forgot)
    assert during == [] and holders(store) == []
