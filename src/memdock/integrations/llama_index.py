"""A LlamaIndex retriever over a memdock memory (`pip install memdock[llama-index]`).

    from memdock import Memory
    from memdock.integrations.llama_index import MemdockRetriever

    retriever = MemdockRetriever(Memory(data_dir="notes"), limit=5, thread="infra")
    for scored in retriever.retrieve("when does staging move?"):   # or: await retriever.aretrieve(...)
        print(scored.score, scored.node.get_content())

Each NodeWithScore holds a TextNode (id_ the hit's id, text the hit's text, metadata its provenance) and the
hit's score. Give `async_memory=AsyncMemory(...)` for a native async path.
"""

from __future__ import annotations

import logging
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from ..contract import SearchResult
from ..records import Hit
from .provenance import answered_hits, metadata

log = logging.getLogger("memdock.integrations")


class MemdockRetriever(BaseRetriever):
    """Nodes recalled from MEMORY (a memdock Memory), best first, with recall's filters as keyword arguments.
    They are named one by one so that a name recall does not take (`thread_ids=`) is a TypeError here, not
    unfiltered nodes later."""

    def __init__(
        self,
        memory: Any = None,
        *,
        async_memory: Any = None,
        limit: int = 5,
        thread: str | list[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        author: str | list[str] | None = None,
        role: str | list[str] | None = None,
        type: str | list[str] | None = None,
        mode: str | None = None,
        min_score: float | None = None,
        where: dict[str, Any] | None = None,
    ):
        if memory is None and async_memory is None:
            raise ValueError("MemdockRetriever needs a Memory (memory=) or an AsyncMemory (async_memory=)")
        super().__init__()
        self._memory, self._async_memory = memory, async_memory
        self._options: dict[str, Any] = {
            "limit": limit,
            "thread": thread,
            "since": since,
            "until": until,
            "author": author,
            "role": role,
            "type": type,
            "mode": mode,
            "min_score": min_score,
            "where": where,
        }

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self._memory is None:
            raise ValueError("MemdockRetriever needs memory=Memory(...) for sync calls")
        return to_nodes(self._memory.recall(query_bundle.query_str, **self._options))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self._async_memory is None:
            return self._retrieve(query_bundle)
        return to_nodes(await self._async_memory.recall(query_bundle.query_str, **self._options))


def to_nodes(result: SearchResult) -> list[NodeWithScore]:
    """RESULT's hits as nodes; a degraded answer is marked in each node's metadata and logged; one with no hits at
    all is a BackendError (as LangChain's)."""
    if result.degraded:
        log.warning("memdock recall degraded: %s", result.reason)
    nodes = [to_node(h) for h in answered_hits(result)]
    if result.degraded:
        for node in nodes:
            node.node.metadata.update(degraded=True, reason=result.reason)
    return nodes


def to_node(hit: Hit) -> NodeWithScore:
    return NodeWithScore(node=TextNode(id_=hit.id, text=hit.text, metadata=metadata(hit)), score=hit.score)
