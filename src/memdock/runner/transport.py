"""SubprocessTransport: the store engine's transport to an adapter run as a sandboxed subprocess.

Each call runs one-shot (`oneshot.run_once`), or on a pool of long-lived workers (`worker.WorkerPool`) when the
backend has workers and the call may share one. A backend with workers (a long-lived service) also keeps one
write worker, reserved for the writes the engine sends under the store's write lock (`index`, `delete` with
`shared=False`): the lock lets one such call run at a time, so the worker is the call's own while it runs, as a
one-shot process would be, without an interpreter start and the adapter's imports per write. Under the strict
sandbox writes stay one-shot: a worker's read allowlist is fixed at its start, and a write reads the bundle it is
given. Nor does an adapter whose store one process at a time may open (`"store_processes": "one"` in adapter.json:
mem0's local Qdrant): a write worker would keep the store open and lock out the readers, where a one-shot write
lets go of it when it exits. Retryable errors are retried with exponential backoff within the call's timeout; an
adapter that says the disk is full is reported as memdock's own disk-full error.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..diskfull import disk_full, reraise_disk_full, said_disk_full
from ..engine.parallel import Job, ShardSpec
from ..engine.store import Store
from ..engine.transport import Call, Transport
from ..errors import MemdockError
from ..operations import WRITE_OPERATIONS
from ..registry import AdapterDescriptor
from . import handshakes
from .launch import CallRecord, Launch
from .oneshot import run_once
from .worker import WorkerPool

MAX_CALL_RECORDS = 1024


class SubprocessTransport(Transport):
    """DESCRIPTOR's adapter over STORE, as subprocesses; LAUNCH holds how each process starts (config, env,
    sandbox, timeouts). CALLS keeps the most recent calls' records (one-shot and worker), newest last."""

    def __init__(
        self,
        descriptor: AdapterDescriptor,
        store: Store,
        launch: Launch,
        *,
        workers: int = 0,
        retries: int = 1,
        backoff: float = 0.5,
        retry_crashed: bool = True,
    ):
        """RETRY_CRASHED: a worker that crashes on a read is replaced and the read asked again once (False: the
        crash is raised, as the conformance kit wants it seen)."""
        self.descriptor, self.store, self.launch = descriptor, store, launch
        self.name = descriptor.name
        self.reads_gzip = descriptor.runtime.get("kind") == "python"
        self.streams = self.reads_gzip  # memdock's SDK reads an input stream (`sdk/stream.py`)
        self.parallel_writers = str(descriptor.parallel_writers)
        self.store_files = [str(n) for n in descriptor.raw.get("store_files", [])]
        self.retries, self.backoff = retries, backoff
        pooled = bool(workers) and descriptor.supports_worker
        self.pool = WorkerPool(launch, workers, retry_crashed=retry_crashed) if pooled else None
        keeps_writer = self.pool is not None and not launch.strict and not descriptor.one_process_store
        self.writer = WorkerPool(launch, 1) if keeps_writer else None
        self.last_call: CallRecord | None = None
        self.calls: list[CallRecord] = []

    def close(self) -> None:
        for pool in (self.pool, self.writer):
            if pool is not None:
                pool.close()

    def _pool_for(
        self, operation: str, shared: bool, offered: tuple[str, ...] | None, stream: bool = False
    ) -> WorkerPool | None:
        """The workers OPERATION runs on, or None for a one-shot process: the read pool for a call that may share
        a worker; the write worker for a write that may not (see the module's docstring); else none (also for a
        call whose input is a stream: a worker's stdin carries its requests)."""
        if offered is not None or stream:
            return None
        if shared:
            return self.pool
        return self.writer if operation in WRITE_OPERATIONS else None

    def send(self, call: Call) -> dict[str, Any]:
        """One protocol operation, with retries for retryable errors. Returns the raw result object.

        TIMEOUT bounds the whole call, retries included (each attempt gets what is left of it, and never more
        than the operation's configured limit); without it, each attempt gets that configured limit.
        """
        operation, params, timeout = call.operation, call.params, call.timeout
        attempt = 0
        end = None if timeout is None else time.monotonic() + timeout
        limit = timeout
        while True:
            attempt += 1
            if end is not None:
                limit = min(max(end - time.monotonic(), 0.001), self.launch.timeout(operation))
            try:
                pool = self._pool_for(operation, call.shared, call.offered, call.stream is not None)
                if pool is not None:
                    return pool.call(
                        operation,
                        params,
                        on_progress=call.on_progress,
                        on_checkpoint=call.on_checkpoint,
                        timeout=limit,
                        on_record=self._note,
                    )
                result, record = run_once(
                    self.launch,
                    operation,
                    params,
                    on_progress=call.on_progress,
                    timeout=limit,
                    on_checkpoint=call.on_checkpoint,
                    offered=call.offered,
                    stream=call.stream,
                )
                self._note(record)
                return result
            except MemdockError as exc:
                pause = self._failed(exc, operation, attempt)
                if call.stream is not None:  # its input was written once, as it was made: it cannot be sent again
                    raise
                if not exc.retryable or attempt > self.retries or (end is not None and time.monotonic() + pause >= end):
                    raise
                time.sleep(pause)
            except OSError as exc:  # the request, work dir or lock file could not be written
                reraise_disk_full(exc, self.store.root, f"running {operation}")
                raise

    def handshake(self, params: dict[str, Any], *, refresh: bool = False) -> dict[str, Any]:
        """`capabilities`, from the memdock home's cache when the adapter opts in (see `handshakes`)."""
        if self.pool is not None or not handshakes.opted_in(self.launch):
            return self.call("capabilities", params)
        return handshakes.remembered(self.launch, params, lambda: self.call("capabilities", params), refresh=refresh)

    def _failed(self, exc: MemdockError, operation: str, attempt: int) -> float:
        """Note EXC's call record and attempt; raise memdock's disk-full error for an adapter that said the disk
        is full; else the pause before the next attempt."""
        rec = getattr(exc, "call_record", None)
        if rec is not None:
            self._note(rec)
        if said_disk_full(exc) and exc.details.get("reason") != "disk_full":
            full = disk_full(self.store.data_dir, f"running {operation}")
            full.details.update(adapter_error=exc.message, stderr_tail=exc.details.get("stderr_tail", ""))
            raise full from exc
        exc.details["attempts"] = attempt
        return float(self.backoff * 2 ** (attempt - 1))

    def _note(self, record: CallRecord) -> None:
        self.last_call = record
        self.calls.append(record)
        if len(self.calls) > MAX_CALL_RECORDS:  # a long-lived worker backend must not grow without bound
            del self.calls[: MAX_CALL_RECORDS // 2]

    def shard_job(self, timeout: float | None) -> tuple[Job, ShardSpec]:
        launch = self.launch
        reach = Reach(
            os.fspath(self.descriptor.path),
            os.fspath(self.store.root),
            dict(launch.config),
            dict(launch.env),
            launch.sandbox,
            dict(launch.timeouts),
        )
        return shard_job, ShardSpec(reach=reach, timeout=timeout)


@dataclass
class Reach:
    """How a shard job on another thread, process or machine starts the adapter (picklable)."""

    adapter_folder: str
    store: str
    config: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    sandbox: bool | str = True
    timeouts: dict[str, float] = field(default_factory=dict)


def subprocess_transport(
    descriptor: AdapterDescriptor,
    store: Store,
    config: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    sandbox: bool | str = True,
    timeouts: Mapping[str, float] | None = None,
    **kwargs: Any,
) -> SubprocessTransport:
    """A SubprocessTransport for DESCRIPTOR over STORE (KWARGS: workers, retries, backoff, retry_crashed)."""
    launch = Launch(descriptor, store, dict(config), dict(env), sandbox, dict(timeouts or {}))
    return SubprocessTransport(descriptor, store, launch, **kwargs)


def shard_job(spec: ShardSpec) -> dict[str, Any]:
    """Run the adapter's `index` (or `prepare`) on one shard through the runner; the adapter's raw result."""
    reach: Reach = spec.reach
    descriptor = AdapterDescriptor.load(Path(reach.adapter_folder))
    transport = subprocess_transport(
        descriptor, Store(reach.store), reach.config, reach.env, sandbox=reach.sandbox, timeouts=reach.timeouts
    )
    params = {"bundle": spec.shard, "verified": True}  # a shard of the delta, whose records the runner validated
    try:
        return transport.call(spec.operation, params, shared=False, timeout=spec.timeout)
    finally:
        transport.close()
