"""A LangChain retriever over a memdock memory (`pip install memdock[langchain]`).

    from memdock import Memory
    from memdock.integrations.langchain import MemdockRetriever

    retriever = MemdockRetriever(memory=Memory(data_dir="notes"), limit=5, thread="infra")
    docs = retriever.invoke("when does staging move?")      # or: await retriever.ainvoke(...)
    docs = retriever.invoke("when does staging move?", k=1)  # k (or limit) for one call

`min_score` keeps only hits scoring at least that (0 to 1), as recall's min_score. A degraded answer (the
backend did not answer in time, lacks the operation, ...) is marked in each Document's metadata
(`degraded: True`, `reason`) and logged as a warning on the `memdock.integrations` logger.

Each Document's page_content is the hit's text and its metadata the hit's provenance (id, kind, score,
thread_id, entry_id, event_time, ...). Give `async_memory=AsyncMemory(...)` for a native async path; without
it the async call runs the sync one on a thread (LangChain's default).
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, model_validator

from ..contract import SearchResult
from ..records import Hit
from .provenance import answered_hits, metadata

log = logging.getLogger("memdock.integrations")


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
    min_score: float | None = None
    where: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _has_a_memory(self) -> MemdockRetriever:
        if self.memory is None and self.async_memory is None:
            raise ValueError("MemdockRetriever needs memory=Memory(...) or async_memory=AsyncMemory(...)")
        return self

    def _options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        """Recall's arguments: the retriever's fields, with `k` (LangChain's name) or `limit` given to invoke."""
        unknown = set(overrides) - {"k", "limit"}
        if unknown:
            raise TypeError(f"MemdockRetriever.invoke got unknown argument(s) {sorted(unknown)}; it takes k or limit")
        limit = overrides.get("k", overrides.get("limit", self.limit))
        return {
            "limit": limit,
            "min_score": self.min_score,
            "where": self.where,
            "thread": self.thread,
            "since": self.since,
            "until": self.until,
            "author": self.author,
            "role": self.role,
            "type": self.type,
            "mode": self.mode,
        }

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **overrides: Any
    ) -> list[Document]:
        if self.memory is None:
            raise ValueError("MemdockRetriever needs memory=Memory(...) for sync calls")
        return to_documents(self.memory.recall(query, **self._options(overrides)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **overrides: Any
    ) -> list[Document]:
        if self.async_memory is None:
            return await super()._aget_relevant_documents(query, run_manager=run_manager, **overrides)
        return to_documents(await self.async_memory.recall(query, **self._options(overrides)))


def to_documents(result: SearchResult) -> list[Document]:
    """RESULT's hits as Documents. A degraded answer says so in each Document's metadata (`degraded`, `reason`),
    and in a warning on the `memdock` logger; a degraded answer with no hits at all is a BackendError with its reason
    (`answered_hits`), not an empty list a framework would take for "nothing relevant"."""
    if result.degraded:
        log.warning("memdock recall degraded: %s", result.reason)
    docs = [to_document(h) for h in answered_hits(result)]
    if result.degraded:
        for doc in docs:
            doc.metadata.update(degraded=True, reason=result.reason)
    return docs


def to_document(hit: Hit) -> Document:
    return Document(page_content=hit.text, metadata=metadata(hit), id=hit.id)
