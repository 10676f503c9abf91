"""A LangChain retriever over a memdock memory (`pip install memdock[langchain]`).

    from memdock import Memory
    from memdock.integrations.langchain import MemdockRetriever

    retriever = MemdockRetriever(memory=Memory(data_dir="notes"), limit=5, thread="infra")
    docs = retriever.invoke("when does staging move?")      # or: await retriever.ainvoke(...)

Each Document's page_content is the hit's text and its metadata the hit's provenance (id, kind, score,
thread_id, entry_id, event_time, ...). Give `async_memory=AsyncMemory(...)` for a native async path; without
it the async call runs the sync one on a thread (LangChain's default).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, model_validator

from ..records import Hit
from .provenance import answered_hits, metadata


class MemdockRetriever(BaseRetriever):
    """Documents recalled from MEMORY (a memdock Memory), best first, with recall's filters.

    A field it does not have is refused, not ignored: `thread_ids=[...]` (the wire name) must not quietly give
    unfiltered documents."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    memory: Any = None
    async_memory: Any = None
    limit: int = 5
    thread: str | list[str] | None = None
    since: str | None = None
    until: str | None = None
    author: str | list[str] | None = None
    role: str | list[str] | None = None
    type: str | list[str] | None = None
    mode: str | None = None

    @model_validator(mode="after")
    def _has_a_memory(self) -> MemdockRetriever:
        if self.memory is None and self.async_memory is None:
            raise ValueError("MemdockRetriever needs memory=Memory(...) or async_memory=AsyncMemory(...)")
        return self

    def _options(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "thread": self.thread,
            "since": self.since,
            "until": self.until,
            "author": self.author,
            "role": self.role,
            "type": self.type,
            "mode": self.mode,
        }

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        if self.memory is None:
            raise ValueError("MemdockRetriever needs memory=Memory(...) for sync calls")
        return [to_document(h) for h in answered_hits(self.memory.recall(query, **self._options()))]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_memory is None:
            return await super()._aget_relevant_documents(query, run_manager=run_manager)
        result = await self.async_memory.recall(query, **self._options())
        return [to_document(h) for h in answered_hits(result)]


def to_document(hit: Hit) -> Document:
    return Document(page_content=hit.text, metadata=metadata(hit), id=hit.id)
