"""One rule for limits at every door: asking for more than 50 gives that many (up to memdock.limits.MAX_LIMIT),
and past the maximum is an error naming the range, never a silent 50."""

import asyncio
import json
import subprocess
import sys

import pytest

from memdock import AsyncMemory, Memory
from memdock.errors import InvalidInputError
from memdock.limits import MAX_LIMIT

MANY = 60


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("limits") / "store"
    with Memory(data_dir=folder) as memory:
        memory.remember_many([f"kettle note number {n}" for n in range(MANY)])
    return folder


def test_python_gives_what_it_was_asked_for_or_refuses(store):
    with Memory(data_dir=store) as memory:
        assert len(memory.recall("kettle", limit=MANY).hits) == MANY
        with pytest.raises(InvalidInputError, match=f"from 1 to {MAX_LIMIT:,}"):
            memory.recall("kettle", limit=MAX_LIMIT + 1)
        with pytest.raises(InvalidInputError, match="limit"):
            memory.recall("kettle", limit=0)

    async def run():
        async with AsyncMemory(data_dir=store) as memory:
            return len((await memory.recall("kettle", limit=MANY)).hits)

    assert asyncio.run(run()) == MANY


def test_the_cli_gives_what_it_was_asked_for_or_refuses(store):
    def recall(n):
        return subprocess.run(
            [sys.executable, "-m", "memdock", "recall", "kettle", "-n", str(n), "--data-dir", str(store), "--json"],
            capture_output=True,
            text=True,
            timeout=300,
        )

    ok = recall(MANY)
    assert ok.returncode == 0, ok.stderr
    assert len(json.loads(ok.stdout)["hits"]) == MANY
    refused = recall(MAX_LIMIT + 1)
    assert refused.returncode == 4 and f"from 1 to {MAX_LIMIT:,}" in refused.stdout + refused.stderr


def test_mcp_gives_what_it_was_asked_for_or_refuses(store):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from test_mcp import data, session

    async def script(s):
        many = data(await s.call_tool("memory_recall", {"query": "kettle", "limit": MANY}))
        refused = await s.call_tool("memory_recall", {"query": "kettle", "limit": MAX_LIMIT + 1})
        return many, refused

    many, refused = asyncio.run(session("--data-dir", str(store))(script))
    assert len(many["hits"]) == MANY
    assert refused.is_error and f"from 1 to {MAX_LIMIT:,}" in refused.content[0].text


def test_langchain_and_llama_index_give_what_they_were_asked_for(store):
    pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
    pytest.importorskip("llama_index.core", reason="the llama-index extra is not installed")
    from memdock.integrations.langchain import MemdockRetriever as LangChainRetriever
    from memdock.integrations.llama_index import MemdockRetriever as LlamaRetriever

    with Memory(data_dir=store) as memory:
        assert len(LangChainRetriever(memory=memory, limit=MANY).invoke("kettle")) == MANY
        assert len(LlamaRetriever(memory, limit=MANY).retrieve("kettle")) == MANY
        with pytest.raises(InvalidInputError):
            LangChainRetriever(memory=memory, limit=MAX_LIMIT + 1).invoke("kettle")
