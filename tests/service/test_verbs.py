"""One verb per operation across the doors: list, count and update are Memory's, `memdock list/count/update`'s
and the MCP tools memory_list/memory_count/memory_update, and answer the same."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from memdock import Memory

NOTES = [
    {"content": "The office coffee machine is broken", "thread": "office", "metadata": {"floor": 2}},
    {"content": "Release 4.2 ships on Friday", "thread": "infra"},
    {"content": "Standup moves to 10:00", "thread": "office"},
]


def cli(store, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memdock", *args, "--data-dir", str(store), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def store(tmp_path):
    with Memory(data_dir=tmp_path / "store") as memory:
        memory.remember_many(NOTES)
    return tmp_path / "store"


def test_list_count_and_update_answer_the_same_from_python_and_the_cli(store):
    with Memory(data_dir=store) as memory:
        python_ids = [e.id for e in memory.list(limit=100)]
        python_counts = memory.count(), memory.count(thread="office")
    listed = cli(store, "list", "-n", "100")
    assert listed.returncode == 0, listed.stderr
    assert [e["id"] for e in json.loads(listed.stdout)["entries"]] == python_ids
    counts = [json.loads(cli(store, "count", *extra).stdout)["count"] for extra in ([], ["--thread", "office"])]
    assert tuple(counts) == python_counts == (3, 2)
    page = json.loads(cli(store, "list", "--thread", "office", "-n", "1", "--offset", "1").stdout)["entries"]
    assert [e["text"] for e in page] == ["Standup moves to 10:00"]

    updated = cli(store, "update", python_ids[0], "The coffee machine is fixed", "--meta", "floor=3")
    assert updated.returncode == 0 and json.loads(updated.stdout)["id"] == python_ids[0], updated.stderr
    with Memory(data_dir=store) as memory:
        first = memory.list(limit=1)[0]
    assert (first.id, first.text, first.metadata) == (python_ids[0], "The coffee machine is fixed", {"floor": 3})


@pytest.mark.parametrize(
    "argv,words",
    [
        (["update", "entry:doesnotexist", "x"], "no entry entry:doesnotexist"),
        (["update", "entry:doesnotexist"], "update needs text or metadata"),
        (["list", "-n", "0"], "--limit/-n must be an integer from 1 to 1,000, got 0"),
        (["list", "--offset", "-1"], "--offset must be an integer of 0 or more"),
    ],
)
def test_the_cli_refuses_a_bad_list_or_update_as_json(store, argv, words):
    out = cli(store, *argv)
    assert out.returncode == 4 and words in json.loads(out.stdout)["error"]["message"], out.stdout + out.stderr


def test_mcp_lists_and_counts_as_python_does(store):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from test_mcp import data, session

    async def script(s):
        listed = data(await s.call_tool("memory_list", {"thread": "office"}))
        counted = data(await s.call_tool("memory_count", {}))
        return listed, counted

    listed, counted = asyncio.run(session("--data-dir", str(store))(script))
    with Memory(data_dir=store) as memory:
        assert [e["id"] for e in listed["entries"]] == [e.id for e in memory.list(thread="office")]
        assert counted == {"count": memory.count()}
