"""Stateless front ends: two `memdock mcp --http` servers, and two Python `Memory` objects, each with its own data
dir (as on two hosts), on one Postgres memory: each sees what the other wrote as soon as the write returns."""

import asyncio
import sys
from pathlib import Path

import pytest
from postgres_support import gate

from memdock.api import Memory

pytestmark = gate

SERVICE_TESTS = Path(__file__).resolve().parents[1] / "service"


def _ids(result: dict) -> set[str]:
    return {h["provenance"]["entry_id"] for h in result["hits"]}


@pytest.mark.timeout(600)
def test_two_mcp_servers_see_each_others_writes_at_once(tmp_path, dsn):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    sys.path.insert(0, str(SERVICE_TESTS))
    from test_mcp import data
    from test_mcp_http import call, http_server

    def remember(url: str, note: str) -> str:
        async def script(s):
            return data(await s.call_tool("memory_remember", {"content": note, "thread": "hangar"}))["id"]

        return asyncio.run(call(url, script, token=None))

    def recall(url: str, query: str) -> set[str]:
        async def script(s):
            return data(await s.call_tool("memory_recall", {"query": query, "thread": "hangar", "limit": 20}))

        return _ids(asyncio.run(call(url, script, token=None)))

    common = ("--backend", "postgres", "--config", f"postgres_dsn={dsn}")
    with (
        http_server(*common, "--data-dir", str(tmp_path / "host-a")) as a,
        http_server(*common, "--data-dir", str(tmp_path / "host-b")) as b,
    ):
        written: list[str] = []
        for n in range(6):  # remember on one server, recall at once on the other, alternating
            here, there = (a, b) if n % 2 == 0 else (b, a)
            written.append(remember(here, f"zeppelin {n} moored at mast {n} by the ground crew"))
            assert set(written) <= recall(there, "zeppelin moored mast"), f"after write {n}"
        assert recall(a, "zeppelin") == recall(b, "zeppelin") == set(written)


def test_two_python_memories_share_one_postgres_memory(tmp_path, dsn):
    config = {"postgres_dsn": dsn}
    with (
        Memory("postgres", data_dir=tmp_path / "one", config=config) as one,
        Memory("postgres", data_dir=tmp_path / "two", config=config) as two,
    ):
        first = one.remember("the kerosene heater in bay four needs a new wick", thread="bay")
        assert first.id in {h.provenance.get("entry_id") for h in two.recall("kerosene wick").hits}
        two.forget([first.id])
        assert one.recall("kerosene wick").hits == []
        second = two.remember("bay four heater replaced by an electric one", thread="bay")
        assert [h.provenance.get("entry_id") for h in one.recall("electric heater").hits] == [second.id]
