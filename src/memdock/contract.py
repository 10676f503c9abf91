"""What every backend offers, whatever runs it: result types, capabilities and the MemoryBackend protocol."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from .operations import FEATURES, OPERATIONS, WRITE_OPERATIONS  # noqa: F401  (re-exported)
from .records import Hit

ProgressCallback = Callable[[dict[str, Any]], None]


@dataclass
class Capabilities:
    adapter: str
    adapter_version: str
    protocol_versions: list[str]
    payload_versions: list[str]
    operations: list[str]
    features: dict[str, bool]
    id_shapes: dict[str, str] = field(default_factory=dict)
    score: dict[str, Any] = field(
        default_factory=lambda: {"range": [0.0, 1.0], "semantics": "relevance, higher is better"}
    )
    extra: dict[str, Any] = field(default_factory=dict)

    def supports(self, operation: str) -> bool:
        return operation in self.operations

    def has(self, feature: str) -> bool:
        return bool(self.features.get(feature))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Capabilities:
        return cls(
            adapter=d["adapter"],
            adapter_version=d["adapter_version"],
            protocol_versions=list(d["protocol_versions"]),
            payload_versions=list(d["payload_versions"]),
            operations=list(d["operations"]),
            features=dict(d.get("features", {})),
            id_shapes=dict(d.get("id_shapes", {})),
            score=dict(d.get("score", {})),
            extra=dict(d.get("extra", {})),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class HealthStatus:
    ok: bool
    backend: str
    checks: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HealthStatus:
        return cls(
            ok=bool(d["ok"]),
            backend=d.get("backend", ""),
            checks=dict(d.get("checks", {})),
            message=d.get("message", ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PrepareResult:
    ok: bool = True
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PrepareResult:
        return cls(ok=bool(d.get("ok", True)), details=dict(d.get("details", {})))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IndexResult:
    """What one index run did. `sent` counts records handed to the adapter after the ledger's diff."""

    indexed: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    deleted: int = 0
    checkpoints: int = 0
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> IndexResult:
        return cls(
            indexed=dict(d.get("indexed", {})),
            skipped=int(d.get("skipped", 0)),
            deleted=int(d.get("deleted", 0)),
            checkpoints=int(d.get("checkpoints", 0)),
            seconds=float(d.get("seconds", 0.0)),
            details=dict(d.get("details", {})),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResult:
    """Hits of any search operation. `degraded` marks an answer the backend could not fully give, with why."""

    hits: list[Hit] = field(default_factory=list)
    degraded: bool = False
    reason: str | None = None
    took_ms: float | None = None
    backend: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SearchResult:
        return cls(
            hits=[Hit.from_dict(h) for h in d.get("hits", [])],
            degraded=bool(d.get("degraded", False)),
            reason=d.get("reason"),
            took_ms=d.get("took_ms"),
            backend=d.get("backend", ""),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hits": [h.to_dict() for h in self.hits],
            "degraded": self.degraded,
            "backend": self.backend,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.took_ms is not None:
            out["took_ms"] = self.took_ms
        return out


@dataclass
class GetResult:
    item: Hit | None = None
    degraded: bool = False
    reason: str | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GetResult:
        item = d.get("item")
        return cls(
            item=Hit.from_dict(item) if item else None, degraded=bool(d.get("degraded", False)), reason=d.get("reason")
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"item": self.item.to_dict() if self.item else None, "degraded": self.degraded}
        if self.reason is not None:
            out["reason"] = self.reason
        return out


@dataclass
class DeleteResult:
    deleted: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    cascaded: int = 0
    degraded: bool = False
    reason: str | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DeleteResult:
        return cls(
            deleted=list(d.get("deleted", [])),
            not_found=list(d.get("not_found", [])),
            cascaded=int(d.get("cascaded", 0)),
            degraded=bool(d.get("degraded", False)),
            reason=d.get("reason"),
        )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if out["reason"] is None:
            del out["reason"]
        return out


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
