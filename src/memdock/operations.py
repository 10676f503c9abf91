"""The protocol's operations, in one table: every other list of operations (the worker's retry rule, the
service's retrieval gate, the runner's default timeouts, the conformance kit's probes) is derived from it.
Kept import-light: adapters import it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Operation:
    """NAME writes to the store (takes the store's lock), may be retried after a crash mid-call when
    IDEMPOTENT, reads the memory when RETRIEVAL (so a backend storing nothing degrades it), times out after
    TIMEOUT seconds unless the adapter or the caller says otherwise; PROBE is a well-formed params object the
    conformance kit sends to an adapter that does not declare the operation.

    A plain class, not a dataclass: every adapter imports this module at start, and dataclasses costs more than
    the rest of the SDK's imports together."""

    __slots__ = ("name", "writes", "idempotent", "retrieval", "timeout", "probe")

    def __init__(
        self,
        name: str,
        *,
        writes: bool = False,
        idempotent: bool = True,
        retrieval: bool = False,
        timeout: float = 120.0,
        probe: dict[str, Any] | None = None,
    ):
        self.name, self.writes, self.idempotent, self.retrieval = name, writes, idempotent, retrieval
        self.timeout, self.probe = timeout, probe or {}

    def __repr__(self) -> str:
        return f"Operation({self.name!r})"


TABLE: tuple[Operation, ...] = (
    Operation("capabilities", timeout=30.0),
    Operation("healthcheck", timeout=60.0),
    Operation("prepare", writes=True, idempotent=False, timeout=300.0),
    Operation("index", writes=True, idempotent=False, timeout=6 * 3600.0, probe={"bundle": "/nonexistent"}),
    Operation("query", retrieval=True, probe={"text": "x"}),
    Operation("search_nodes", retrieval=True, probe={"text": "x"}),
    Operation("search_facts", retrieval=True, probe={"text": "x"}),
    Operation("search_episodes", retrieval=True, probe={"text": "x"}),
    Operation("get_node", retrieval=True, timeout=60.0, probe={"id": "x"}),
    Operation("get_edge", retrieval=True, timeout=60.0, probe={"id": "x"}),
    Operation("delete", writes=True, idempotent=False, timeout=600.0, probe={"ids": ["x"]}),
)
BY_NAME = {op.name: op for op in TABLE}

OPERATIONS = tuple(op.name for op in TABLE)
WRITE_OPERATIONS = frozenset(op.name for op in TABLE if op.writes)
IDEMPOTENT_OPERATIONS = frozenset(op.name for op in TABLE if op.idempotent)
RETRIEVAL_OPERATIONS = frozenset(op.name for op in TABLE if op.retrieval)
DEFAULT_TIMEOUTS = {op.name: op.timeout for op in TABLE}
IDLE_TIMEOUT = 300.0

FEATURES = (
    "embeddings",
    "entity_extraction",
    "graph_query",
    "rerank",
    "temporal",
    "incremental",
    "delete",
    "concurrent_index",
    "metadata_filter",
)
