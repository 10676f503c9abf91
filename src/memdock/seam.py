"""MemoryBackend: one memory backend, however it runs, as the service sees it (re-exported by memdock.contract).

Its own module because a Protocol needs `typing` at import, which an adapter's start-up should not pay for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from .results import Capabilities, DeleteResult, GetResult, HealthStatus, IndexResult, SearchResult

ProgressCallback = Callable[[dict[str, Any]], None]


@runtime_checkable
class MemoryBackend(Protocol):
    """One memory backend, however it runs: the seam the service is written against.

    `SubprocessBackend` (memdock.runner) drives any adapter over the protocol in its own process;
    `InProcessBackend` (memdock.inprocess) runs a Python adapter's SDK object in this process, for tests and
    embedding where the process boundary is not the point. Every call takes a TIMEOUT in seconds (None: the
    operation's default); filters are the protocol's `filters` object, thread ids already resolved.
    """

    @property
    def name(self) -> str: ...
    @property
    def location(self) -> str:
        """Where the store lives (a directory), for status output."""
        ...

    def get_capabilities(self) -> Capabilities: ...
    def healthcheck(self, *, timeout: float | None = None) -> HealthStatus: ...
    def index(
        self,
        bundle: str | os.PathLike[str],
        *,
        progress: ProgressCallback | None = None,
        prune: bool = True,
        origin: str | None = None,
        timeout: float | None = None,
    ) -> IndexResult: ...
    def query(
        self,
        text: str,
        *,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
        mode: str | None = None,
        timeout: float | None = None,
        min_score: float | None = None,
        where: dict[str, Any] | None = None,
    ) -> SearchResult: ...
    def search_nodes(
        self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None, timeout: float | None = None
    ) -> SearchResult: ...
    def search_facts(
        self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None, timeout: float | None = None
    ) -> SearchResult: ...
    def search_episodes(
        self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None, timeout: float | None = None
    ) -> SearchResult: ...
    def get_node(self, node_id: str, *, timeout: float | None = None) -> GetResult: ...
    def get_edge(self, edge_id: str, *, timeout: float | None = None) -> GetResult: ...
    def delete(self, ids: Sequence[str], *, timeout: float | None = None) -> DeleteResult: ...
    def list_entries(self, thread_ids: Sequence[str], *, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """THREAD_IDS' entry records as stored, oldest first (from the store's journal, whatever the backend)."""
        ...

    def threads(self) -> dict[str, int]:
        """Each thread the store holds, with its number of entries (from the core's ledger)."""
        ...

    def counts(self) -> dict[str, int]:
        """What the store holds by record type, from the core's ledger (the same for every backend)."""
        ...

    def close(self) -> None: ...
