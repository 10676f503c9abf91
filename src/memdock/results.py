"""The result types every backend returns, whatever runs it (re-exported by memdock.contract).

Plain classes (memdock.plain), not dataclasses: an adapter imports this module at every one-shot start, and neither
`dataclasses` nor `typing` is free. Below both memdock.contract and memdock.seam, so neither imports the other.
"""

from __future__ import annotations

from .plain import Plain, plain_copy
from .records import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


_DEFAULT_SCORE = {"range": [0.0, 1.0], "semantics": "relevance, higher is better"}


class Capabilities(Plain):
    """What an adapter says it can do: protocol and payload versions, operations, features, id shapes, score."""

    __slots__ = (
        "adapter",
        "adapter_version",
        "protocol_versions",
        "payload_versions",
        "operations",
        "features",
        "id_shapes",
        "score",
        "extra",
    )

    def __init__(
        self,
        adapter: str,
        adapter_version: str,
        protocol_versions: list[str],
        payload_versions: list[str],
        operations: list[str],
        features: dict[str, bool],
        id_shapes: dict[str, str] | None = None,
        score: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ):
        self.adapter, self.adapter_version = adapter, adapter_version
        self.protocol_versions, self.payload_versions = protocol_versions, payload_versions
        self.operations, self.features = operations, features
        self.id_shapes = {} if id_shapes is None else id_shapes
        self.score = plain_copy(_DEFAULT_SCORE) if score is None else score
        self.extra = {} if extra is None else extra

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
        return self.fields_dict()


class HealthStatus(Plain):
    """Whether the backend is usable now, with the checks behind the answer."""

    __slots__ = ("ok", "backend", "checks", "message")

    def __init__(self, ok: bool, backend: str, checks: dict[str, Any] | None = None, message: str = ""):
        self.ok, self.backend, self.message = ok, backend, message
        self.checks = {} if checks is None else checks

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HealthStatus:
        return cls(
            ok=bool(d["ok"]),
            backend=d.get("backend", ""),
            checks=dict(d.get("checks", {})),
            message=d.get("message", ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return self.fields_dict()


class PrepareResult(Plain):
    """What `prepare` readied (details are the adapter's own)."""

    __slots__ = ("ok", "details")

    def __init__(self, ok: bool = True, details: dict[str, Any] | None = None):
        self.ok = ok
        self.details = {} if details is None else details

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PrepareResult:
        return cls(ok=bool(d.get("ok", True)), details=dict(d.get("details", {})))

    def to_dict(self) -> dict[str, Any]:
        return self.fields_dict()


class IndexResult(Plain):
    """What one index run did. `sent` counts records handed to the adapter after the ledger's diff."""

    __slots__ = ("indexed", "skipped", "deleted", "checkpoints", "seconds", "details")

    def __init__(
        self,
        indexed: dict[str, int] | None = None,
        skipped: int = 0,
        deleted: int = 0,
        checkpoints: int = 0,
        seconds: float = 0.0,
        details: dict[str, Any] | None = None,
    ):
        self.indexed = {} if indexed is None else indexed
        self.skipped, self.deleted, self.checkpoints, self.seconds = skipped, deleted, checkpoints, seconds
        self.details = {} if details is None else details

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
        return self.fields_dict()


class SearchResult(Plain):
    """Hits of any search operation. `degraded` marks an answer the backend could not fully give, with why."""

    __slots__ = ("hits", "degraded", "reason", "took_ms", "backend")

    def __init__(
        self,
        hits: list[Hit] | None = None,
        degraded: bool = False,
        reason: str | None = None,
        took_ms: float | None = None,
        backend: str = "",
    ):
        self.hits = [] if hits is None else hits
        self.degraded, self.reason, self.took_ms, self.backend = degraded, reason, took_ms, backend

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


class GetResult(Plain):
    """One node or edge by id (`item` None when there is none)."""

    __slots__ = ("item", "degraded", "reason")

    def __init__(self, item: Hit | None = None, degraded: bool = False, reason: str | None = None):
        self.item, self.degraded, self.reason = item, degraded, reason

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


class DeleteResult(Plain):
    """Which ids were deleted, which were not there, and how many records went with them."""

    __slots__ = ("deleted", "not_found", "cascaded", "degraded", "reason")

    def __init__(
        self,
        deleted: list[str] | None = None,
        not_found: list[str] | None = None,
        cascaded: int = 0,
        degraded: bool = False,
        reason: str | None = None,
    ):
        self.deleted = [] if deleted is None else deleted
        self.not_found = [] if not_found is None else not_found
        self.cascaded, self.degraded, self.reason = cascaded, degraded, reason

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
        out = self.fields_dict()
        if out["reason"] is None:
            del out["reason"]
        return out
