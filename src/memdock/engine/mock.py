"""MockTransport: the store engine over a handler function instead of an adapter, as httpx's `MockTransport`.

Tests of the bookkeeping (ledger counts, deltas, resume after a failed run, pruning, forgets, the journal) use
it to run the real engine without starting a process: `StoreBackend(MockTransport(), folder)`. The default
handler, `MemoryAdapter`, keeps indexed records in a dict, checkpoints them as an SDK adapter does, and can be
told to fail after some checkpoints, as a killed adapter would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import PAYLOAD_VERSION
from ..bundle import BundleReader
from ..contract import ProgressCallback
from ..errors import BackendError
from ..operations import OPERATIONS
from ..protocol import SUPPORTED_PROTOCOLS
from .parallel import Job, ShardSpec
from .transport import Call, CheckpointCallback, Transport


@dataclass
class MockRequest:
    """One call as the mock saw it; CHECKPOINT and PROGRESS deliver the adapter's events to the engine."""

    operation: str
    params: dict[str, Any]
    shared: bool = True
    timeout: float | None = None
    checkpoint: CheckpointCallback = field(default=lambda ids: None, repr=False)
    progress: ProgressCallback = field(default=lambda event: None, repr=False)


Handler = Callable[[MockRequest], dict[str, Any]]


class MockTransport(Transport):
    """Answers every call with HANDLER(request) (default: a fresh `MemoryAdapter`); REQUESTS keeps them all.
    SHARD_JOB, when given, runs the shards of a parallel index (see `engine/parallel.py`)."""

    def __init__(
        self,
        handler: Handler | None = None,
        *,
        name: str = "mock",
        reads_gzip: bool = True,
        parallel_writers: str = "serial",
        shard_job: Job | None = None,
        store_files: list[str] | None = None,
    ):
        self.handler: Handler = handler if handler is not None else MemoryAdapter(name)
        self._shard_job = shard_job
        self.name, self.reads_gzip, self.parallel_writers = name, reads_gzip, parallel_writers
        self.store_files = list(store_files or [])
        self.requests: list[MockRequest] = []
        self.closed = False

    def send(self, call: Call) -> dict[str, Any]:
        request = MockRequest(call.operation, dict(call.params), call.shared, call.timeout)
        if call.on_checkpoint is not None:
            request.checkpoint = call.on_checkpoint
        if call.on_progress is not None:
            request.progress = call.on_progress
        self.requests.append(request)
        return self.handler(request)

    def operations(self) -> list[str]:
        """The operations called, in order."""
        return [r.operation for r in self.requests]

    def shard_job(self, timeout: float | None) -> tuple[Job, ShardSpec] | None:
        """SHARD_JOB as given (it gets each shard as `spec.shard`), or None: one writer."""
        return None if self._shard_job is None else (self._shard_job, ShardSpec(reach=self.name, timeout=timeout))

    def close(self) -> None:
        self.closed = True


class MemoryAdapter:
    """A handler that behaves as a small adapter: `index` reads the bundle it is given and keeps its records
    (checkpointing every CHECKPOINT_EVERY), `delete` removes ids, `capabilities` offers DELETE. FAIL_AFTER (a
    number of checkpoints) makes the next `index` fail there with a retryable-free BackendError, its earlier
    checkpoints kept, as when an adapter is killed midway."""

    def __init__(
        self,
        name: str = "mock",
        *,
        checkpoint_every: int = 100,
        delete: bool = True,
        features: dict[str, bool] | None = None,
    ):
        self.name, self.checkpoint_every, self.deletes = name, checkpoint_every, delete
        self.features = {"incremental": True, "delete": delete, **(features or {})}
        self.records: dict[str, tuple[str, dict[str, Any]]] = {}
        self.fail_after: int | None = None
        self.sent: list[int] = []  # records per index call

    def __call__(self, request: MockRequest) -> dict[str, Any]:
        answer = getattr(self, f"op_{request.operation}", None)
        if answer is None:
            raise BackendError(f"the mock adapter does not answer {request.operation}")
        result: dict[str, Any] = answer(request)
        return result

    def op_capabilities(self, request: MockRequest) -> dict[str, Any]:
        ops = [op for op in OPERATIONS if self.deletes or op != "delete"]
        return {
            "adapter": self.name,
            "adapter_version": "0",
            "protocol_versions": list(SUPPORTED_PROTOCOLS),
            "payload_versions": [PAYLOAD_VERSION],
            "operations": ops,
            "features": dict(self.features),
        }

    def op_healthcheck(self, request: MockRequest) -> dict[str, Any]:
        return {"ok": True, "backend": self.name}

    def op_prepare(self, request: MockRequest) -> dict[str, Any]:
        return {"ok": True}

    def op_index(self, request: MockRequest) -> dict[str, Any]:
        reader = BundleReader(request.params["bundle"], validate=False, sealed=True)
        indexed: dict[str, int] = {}
        pending: list[str] = []
        checkpoints = 0
        for rtype in reader.record_types():
            for rec in reader.records(rtype):
                self.records[rec["id"]] = (rtype, rec)
                indexed[rtype] = indexed.get(rtype, 0) + 1
                if rtype != "embedding":
                    pending.append(rec["id"])
                if len(pending) >= self.checkpoint_every:
                    checkpoints += self._checkpoint(request, pending)
        if pending:
            checkpoints += self._checkpoint(request, pending)
        self.sent.append(sum(indexed.values()))
        return {"indexed": indexed, "checkpoints": checkpoints}

    def _checkpoint(self, request: MockRequest, pending: list[str]) -> int:
        if self.fail_after is not None and self.fail_after <= 0:
            self.fail_after = None
            raise BackendError("the mock adapter stopped midway (fail_after)")
        request.checkpoint(list(pending))
        pending.clear()
        if self.fail_after is not None:
            self.fail_after -= 1
        return 1

    def op_delete(self, request: MockRequest) -> dict[str, Any]:
        ids = list(request.params["ids"])
        found = [i for i in ids if self.records.pop(i, None) is not None]
        return {"deleted": found, "not_found": [i for i in ids if i not in found]}

    def count(self, rtype: str) -> int:
        """How many records of RTYPE the mock holds."""
        return sum(1 for t, _ in self.records.values() if t == rtype)
