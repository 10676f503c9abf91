"""The protocol side the entry-catalog adapters share (mem0, openmemory, memu): the kit's runtime cache and lazy
dispatch (memdock.sdk.kit.runtime), with the routes these adapters' packages all provide:
`indexer.index(rt, ctx)`, `retrieval.search_memories / search_episodes / get_node(rt, params)` and
`forget.delete(rt, params)`. An adapter names its `package` and `settings_class` and builds its runtime in
`make_runtime`.
"""

from __future__ import annotations

from memdock.sdk.kit.runtime import RuntimeAdapter, route, supports

FEATURES = supports("embeddings", "incremental", "delete", "retrieval", concurrent_index=False)


class EntryAdapter(RuntimeAdapter):
    index = route("indexer", "index", ctx=True)
    query = route("retrieval", "search_memories")
    search_nodes = route("retrieval", "search_memories")
    search_episodes = route("retrieval", "search_episodes")
    get_node = route("retrieval", "get_node")
    delete = route("forget", "delete")
