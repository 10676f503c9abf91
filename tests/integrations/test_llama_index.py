"""The LlamaIndex retriever, through the real llama-index-core classes, over a real sqlite memory."""

import asyncio

import pytest

pytest.importorskip(
    "llama_index.core", reason="the llama-index extra is not installed (pip install memdock[llama-index])"
)

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode

from memdock import AsyncMemory, Memory
from memdock.errors import InvalidInputError
from memdock.integrations.llama_index import MemdockRetriever

NOTES = [
    {"content": "The staging database moves to eu-west-2 on Friday.", "thread": "infra", "author": "ana"},
    {"content": "The staging logo moves to the left.", "thread": "design", "author": "cy"},
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("llama") / "store"
    with Memory(data_dir=folder) as memory:
        ids = [r.id for r in memory.remember_many(NOTES)]
    return folder, ids


def test_nodes_with_scores_carry_the_hit(store):
    folder, ids = store
    with Memory(data_dir=folder) as memory:
        retriever = MemdockRetriever(memory, limit=2)
        assert isinstance(retriever, BaseRetriever)
        found = retriever.retrieve("staging database eu-west-2")
        expected = memory.recall("staging database eu-west-2", limit=2).hits
    assert found and all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in found)
    assert [(n.node.node_id, n.score) for n in found] == [(h.id, h.score) for h in expected]
    assert found[0].node.get_content() == expected[0].text
    assert found[0].node.metadata["entry_id"] == ids[0] and found[0].node.metadata["thread_id"].startswith("thread:")


def test_filters_and_async(store):
    folder, ids = store

    async def scenario():
        async with AsyncMemory(data_dir=folder) as amemory:
            return await MemdockRetriever(async_memory=amemory, thread="design").aretrieve("staging moves")

    assert [n.node.metadata["entry_id"] for n in asyncio.run(scenario())] == [ids[1]]
    with pytest.raises(ValueError, match="needs a Memory"):
        MemdockRetriever()


def test_bad_input_is_refused(store):
    folder, _ = store
    with pytest.raises(ValueError, match="needs a Memory"):
        MemdockRetriever(limit=3)
    with Memory(data_dir=folder) as memory:
        with pytest.raises(TypeError, match="thread_ids"):
            MemdockRetriever(memory, thread_ids=["thread:infra"])
        with pytest.raises(InvalidInputError, match="until"):
            MemdockRetriever(memory, until="after lunch").retrieve("staging")

    async def sync_only():
        async with AsyncMemory(data_dir=folder) as amemory:
            MemdockRetriever(async_memory=amemory).retrieve("staging")

    with pytest.raises(ValueError, match="for sync calls"):
        asyncio.run(sync_only())
