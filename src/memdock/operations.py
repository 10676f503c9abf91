"""The names the protocol is made of: operations and feature flags (kept import-light for adapters)."""

OPERATIONS = (
    "capabilities",
    "healthcheck",
    "prepare",
    "index",
    "query",
    "search_nodes",
    "search_facts",
    "search_episodes",
    "get_node",
    "get_edge",
    "delete",
)
FEATURES = (
    "embeddings",
    "entity_extraction",
    "graph_query",
    "rerank",
    "temporal",
    "incremental",
    "delete",
    "concurrent_index",
)
WRITE_OPERATIONS = frozenset({"prepare", "index", "delete"})
READ_OPERATIONS = frozenset(OPERATIONS) - WRITE_OPERATIONS
