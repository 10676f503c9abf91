"""A thread is named the same way at every front door: `remember(thread="infra")` files a note under the id
memdock.threads makes of the name, and the name or that id finds it again through the Python API (sync and
async), the CLI (`recall --thread`, `search --thread`, the old `search --group`) and the MCP tools
(test_mcp.py). Before, only Python `recall` translated names; everything else returned nothing, silently."""

import asyncio
import json
import subprocess
import sys

import pytest

from memdock import AsyncMemory, Memory, thread_id_for
from memdock.inprocess import InProcessBackend

NOTE = "The staging database moves to eu-west-2 on Friday."


def test_a_name_and_the_returned_id_find_the_same_thread():
    assert thread_id_for("infra") == "thread:infra:e0f4f396"
    assert thread_id_for("thread:infra:e0f4f396") == "thread:infra:e0f4f396"
    assert thread_id_for("Infra") != thread_id_for("infra")


def test_the_python_api_takes_thread_names_everywhere(tmp_path):
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "store")) as memory:
        note = memory.remember(NOTE, thread="infra", author="ana")
        memory.remember("Staging also keeps its old bucket.", thread="other")
        assert note.thread_id == thread_id_for("infra")
        for thread in ("infra", note.thread_id, ["nope", "infra"]):
            assert [h.provenance["entry_id"] for h in memory.recall("staging", thread=thread).hits] == [note.id]
            assert [h.id for h in memory.search_episodes("staging", thread=thread).hits] == [note.id]
        assert memory.recall("staging", thread="nope").hits == []
        facts = memory.search_facts("contains", thread="infra", limit=50).hits
        assert facts and all(h.provenance.get("thread_id", note.thread_id) == note.thread_id for h in facts)


def test_async_memory_takes_thread_names(tmp_path):
    async def scenario():
        async with AsyncMemory(data_dir=tmp_path / "store") as memory:
            note = await memory.remember(NOTE, thread="infra")
            return (
                note,
                await memory.recall("staging", thread="infra"),
                await memory.search_nodes("staging", thread="infra"),
            )

    note, recalled, nodes = asyncio.run(scenario())
    assert [h.provenance["entry_id"] for h in recalled.hits] == [note.id]
    assert note.id in [h.id for h in nodes.hits]


def memdock(*args: str, home) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memdock", *args],
        capture_output=True,
        text=True,
        env={"MEMDOCK_HOME": str(home), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


@pytest.mark.parametrize(
    "command",
    [
        ["recall", "staging", "--thread", "infra"],
        ["query", "staging", "--thread", "infra"],
        ["search", "episodes", "staging", "--thread", "infra"],
        ["search", "episodes", "staging", "--group", "infra"],
    ],
    ids=["recall", "query-alias", "search-thread", "search-group"],
)
def test_the_cli_takes_thread_names(tmp_path, command):
    store = ["--data-dir", str(tmp_path / "store")]
    remembered = memdock("remember", NOTE, "--thread", "infra", "--json", *store, home=tmp_path)
    assert remembered.returncode == 0, remembered.stderr
    entry = json.loads(remembered.stdout)["id"]
    found = memdock(*command, "--json", *store, home=tmp_path)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert entry in [h["id"] for h in hits] + [h["provenance"].get("entry_id") for h in hits]
    elsewhere = memdock(*command[:-1], "not-infra", "--json", *store, home=tmp_path)
    assert json.loads(elsewhere.stdout)["hits"] == []
