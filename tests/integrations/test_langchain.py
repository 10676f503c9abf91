"""The LangChain retriever, through the real langchain-core classes, over a real sqlite memory."""

import asyncio

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed (pip install memdock[langchain])")

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from memdock import AsyncMemory, Memory
from memdock.errors import InvalidInputError
from memdock.integrations.langchain import MemdockRetriever

NOTES = [
    {"content": "The staging database moves to eu-west-2 on Friday.", "thread": "infra", "author": "ana"},
    {"content": "Friday's move needs a read-only window from 18:00 UTC.", "thread": "infra", "author": "bo"},
    {
        "content": "The staging logo moves to the left.",
        "thread": "design",
        "author": "cy",
        "time": "2026-03-01T09:00:00Z",
    },
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("langchain") / "store"
    with Memory(data_dir=folder) as memory:
        ids = [r.id for r in memory.remember_many(NOTES)]
    return folder, ids


def test_documents_carry_the_hit_and_its_provenance(store):
    folder, ids = store
    with Memory(data_dir=folder) as memory:
        retriever = MemdockRetriever(memory=memory, limit=3)
        assert isinstance(retriever, BaseRetriever)
        docs = retriever.invoke("when does the staging database move")
        expected = memory.recall("when does the staging database move", limit=3).hits
    assert docs and all(isinstance(d, Document) for d in docs)
    assert [d.page_content for d in docs] == [h.text for h in expected]
    top = docs[0]
    assert top.metadata["entry_id"] == ids[0] and top.metadata["thread_id"].startswith("thread:infra:")
    assert top.metadata["score"] == expected[0].score and top.metadata["backend"] == "sqlite"
    assert top.id == expected[0].id and top.metadata["author"] == "ana"


def test_filters_pass_through(store):
    folder, ids = store
    with Memory(data_dir=folder) as memory:
        docs = MemdockRetriever(memory=memory, thread="design").invoke("staging moves")
    assert [d.metadata["entry_id"] for d in docs] == [ids[2]]


def test_async_with_and_without_an_async_memory(store):
    folder, ids = store

    async def scenario():
        async with AsyncMemory(data_dir=folder) as amemory:
            native = await MemdockRetriever(async_memory=amemory, thread="infra").ainvoke("read-only window")
        with Memory(data_dir=folder) as memory:
            threaded = await MemdockRetriever(memory=memory, thread="infra").ainvoke("read-only window")
        return native, threaded

    native, threaded = asyncio.run(scenario())
    assert native[0].metadata["entry_id"] == threaded[0].metadata["entry_id"] == ids[1]


def test_documents_carry_the_time_and_the_author(store):
    folder, ids = store
    with Memory(data_dir=folder) as memory:
        docs = MemdockRetriever(memory=memory, thread="design").invoke("logo")
    assert docs[0].metadata["event_time"] == "2026-03-01T09:00:00Z"
    assert (docs[0].metadata["entry_id"], docs[0].metadata["author"]) == (ids[2], "cy")


def test_bad_input_is_refused(store):
    folder, _ = store
    with pytest.raises(ValueError, match="needs memory="):
        MemdockRetriever(limit=3)
    with Memory(data_dir=folder) as memory:
        with pytest.raises(ValueError, match="thread_ids"):
            MemdockRetriever(memory=memory, thread_ids=["thread:infra"])
        with pytest.raises(InvalidInputError, match="since"):
            MemdockRetriever(memory=memory, since="last week-ish").invoke("staging")
        with pytest.raises(InvalidInputError):
            MemdockRetriever(memory=memory).invoke("   ")

    async def sync_only():
        async with AsyncMemory(data_dir=folder) as amemory:
            MemdockRetriever(async_memory=amemory).invoke("staging")

    with pytest.raises(ValueError, match="for sync calls"):
        asyncio.run(sync_only())


def test_k_given_to_invoke_and_min_score_are_honoured(store):
    folder, ids = store
    with Memory(data_dir=folder) as memory:
        retriever = MemdockRetriever(memory=memory, limit=5)
        assert len(retriever.invoke("staging", k=1)) == 1
        assert len(retriever.invoke("staging")) > 1
        strict = MemdockRetriever(memory=memory, min_score=0.99).invoke("staging logo")
        assert [d.metadata["entry_id"] for d in strict] == [ids[2]]
        with pytest.raises(TypeError, match="thread_ids"):
            retriever.invoke("staging", thread_ids=["x"])


class _DegradedMemory:
    """A memory whose answer came back degraded with a hit (a backend past its deadline for part of it)."""

    def recall(self, query, **options):
        from memdock.contract import SearchResult
        from memdock.records import Hit

        hit = Hit(id="chunk:1", kind="chunk", score=0.5, text="partial", backend="x", provenance={})
        return SearchResult(hits=[hit], degraded=True, reason="the 10s deadline passed")


def test_a_degraded_answer_is_visible_in_the_metadata_and_logged(caplog):
    with caplog.at_level("WARNING", logger="memdock.integrations"):
        docs = MemdockRetriever(memory=_DegradedMemory()).invoke("anything")
    assert docs[0].metadata["degraded"] is True and "deadline" in docs[0].metadata["reason"]
    assert "degraded: the 10s deadline passed" in caplog.text


def test_a_degraded_answer_is_an_error_not_an_empty_list(tmp_path):
    """Issue 33: the hostile reader answers every query degraded, with no hits and a reason."""
    from pathlib import Path

    from memdock.errors import BackendError

    reader = Path(__file__).resolve().parents[1] / "adapters" / "hostile-reader"
    memory = Memory(str(reader), data_dir=tmp_path / "store", config={"target": "/nonexistent-file"})
    with memory, pytest.raises(BackendError, match=r"\(degraded, no hits\): denied"):
        MemdockRetriever(memory=memory).invoke("x")


def test_hundreds_of_authors_filter_rather_than_fail(store):
    folder, _ = store
    authors = [f"someone-{i}" for i in range(1200)] + ["bo"]
    with Memory(data_dir=folder) as memory:
        docs = MemdockRetriever(memory=memory, author=authors).invoke("read-only window")
    assert [d.metadata["author"] for d in docs] == ["bo"]
