"""SubprocessBackend: the MemoryBackend the core ships, the store engine driving any adapter as a subprocess.

The store's bookkeeping (lock, ledger, journal, delta, pruning, forgets) is the engine's (`memdock.engine`);
this module only wires it to the subprocess transport (`runner/transport.py`) and resolves which adapter and
store a caller means (`SubprocessBackend.resolved`, which `memdock.connect.open_backend`, the one factory, calls).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import check_no_secrets_in, resolve
from ..contract import Capabilities
from ..engine.backend import StoreBackend
from ..engine.store import Store
from ..registry import AdapterDescriptor, Registry
from .launch import CallRecord, Launch
from .transport import MAX_CALL_RECORDS, SubprocessTransport, subprocess_transport
from .worker import WorkerPool

__all__ = ["MAX_CALL_RECORDS", "SubprocessBackend"]


class SubprocessBackend(StoreBackend):
    """Runs ADAPTER's operations as subprocesses (one-shot), or through a worker pool when `workers` > 0.

    Writing operations hold the store's lock; retryable errors are retried
    `retries` times with exponential backoff; `index` goes through the ledger
    so runs resume and only changes are sent.
    """

    transport: SubprocessTransport

    def __init__(
        self,
        descriptor: AdapterDescriptor,
        store: Store | str | os.PathLike[str],
        *,
        config: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        workers: int = 0,
        retries: int = 1,
        backoff: float = 0.5,
        timeouts: Mapping[str, float] | None = None,
        sandbox: bool | str = True,
        lock_timeout: float = 10.0,
        retry_crashed: bool = True,
    ):
        owned = store if isinstance(store, Store) else Store(store)
        cfg = dict(config or {})
        check_no_secrets_in(
            cfg, descriptor.config_schema, descriptor.env_for_secret_fields(), f"config of {descriptor.name}"
        )
        environ = dict(env if env is not None else os.environ)
        transport = subprocess_transport(
            descriptor,
            owned,
            cfg,
            environ,
            sandbox=sandbox,
            timeouts=timeouts,
            workers=workers,
            retries=retries,
            backoff=backoff,
            retry_crashed=retry_crashed,
        )
        super().__init__(transport, owned, lock_timeout=lock_timeout)
        self.descriptor = descriptor

    @property
    def launch(self) -> Launch:
        return self.transport.launch

    @property
    def pool(self) -> WorkerPool | None:
        return self.transport.pool

    def start_workers(self, *, writer: bool = False) -> None:
        """Start the query workers (WRITER: the write worker instead) now rather than at the first call that needs
        them (see WorkerPool.start)."""
        pool = self.transport.writer if writer else self.pool
        if pool is not None:
            pool.start()

    def assume_capabilities(self, capabilities: Capabilities) -> None:
        """Take CAPABILITIES as the adapter's answer to `capabilities` (a write process gets its front end's:
        asking again would start a query worker for that one call)."""
        self._caps = capabilities

    @property
    def calls(self) -> list[CallRecord]:
        """The most recent calls, one-shot and worker, newest last."""
        return self.transport.calls

    @property
    def last_call(self) -> CallRecord | None:
        return self.transport.last_call

    @property
    def retries(self) -> int:
        return self.transport.retries

    @property
    def backoff(self) -> float:
        return self.transport.backoff

    def __enter__(self) -> SubprocessBackend:
        return self

    @classmethod
    def resolved(
        cls,
        backend: str | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: Mapping[str, Any] | None = None,
        registry: Registry | None = None,
        **kwargs: Any,
    ) -> SubprocessBackend:
        """The backend a caller means (flag, MEMDOCK_BACKEND, memdock.toml, default), opened; front doors reach
        this through `memdock.connect.open_backend`. The sandbox is the `sandbox` argument (True/"writes",
        "strict", False/"off") when given, else memdock.toml's `sandbox`."""
        settings = resolve(backend=backend, data_dir=data_dir)
        descriptor = (registry or Registry.default()).get(settings.backend)
        merged = {**settings.adapter_config, **(config or {})}
        if kwargs.get("sandbox") is None:
            kwargs["sandbox"] = settings.sandbox if settings.sandbox is not None else True
        return cls(descriptor, Path(settings.store), config=merged, **kwargs)
