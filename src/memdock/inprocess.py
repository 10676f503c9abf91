"""InProcessBackend: a Python adapter's SDK object called in this process, behind the same MemoryBackend.

`InProcessTransport` is one of the store engine's transports (`memdock.engine.transport`). Everything above it
is the engine's (the store, its lock, the ledger's delta and resume, pruning); response validation against
response.schema.json is done here as the subprocess transport does it; only the hop to the adapter differs: a
request is dispatched to the Adapter object directly instead of a subprocess.
What the process boundary gives is therefore absent: no sandbox, no timeout enforcement (TIMEOUT is
accepted and ignored), no survivor reaping, and the adapter shares this interpreter's imports and state.
Use it in tests of what sits above the backend, and to embed a trusted adapter; use SubprocessBackend
(the default everywhere else) to run an adapter you do not control.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .config import check_no_secrets_in
from .contract import ProgressCallback
from .engine.backend import StoreBackend
from .engine.store import Store
from .engine.transport import Call, Transport
from .errors import ConfigError
from .protocol import SUPPORTED_PROTOCOLS, build_request, check_response
from .registry import AdapterDescriptor, Registry
from .sdk.adapter import Adapter, _dispatch


class InProcessTransport(Transport):
    """DESCRIPTOR's ADAPTER object called in this process over STORE, with CONFIG. It runs one writer: a
    parallel index is sent by one (the result's `details["parallel"]` says so)."""

    def __init__(self, adapter: Adapter, descriptor: AdapterDescriptor, store: Store, config: Mapping[str, Any]):
        self.adapter, self.store, self.config = adapter, store, dict(config)
        self.name = descriptor.name
        self.reads_gzip = descriptor.runtime.get("kind") == "python"
        self.parallel_writers = str(descriptor.parallel_writers)
        self.store_files = [str(n) for n in descriptor.raw.get("store_files", [])]

    def send(self, call: Call) -> dict[str, Any]:
        store = self.store.ensure()
        work = store.new_work_dir(call.operation)
        try:
            request = build_request(
                call.operation,
                data_dir=str(store.data_dir),
                work_dir=str(work),
                config=dict(self.config),
                params=call.params,
                offered=call.offered or SUPPORTED_PROTOCOLS,
            )
            response = _dispatch(self.adapter, request, _Events(call.on_progress, call.on_checkpoint))
            return check_response(
                response, request_id=request["request_id"], operation=call.operation, source=f"adapter {self.name}"
            )
        finally:
            store.discard(work)

    def shard_job(self, timeout: float | None) -> None:
        return None

    def close(self) -> None:
        self.adapter.close()


class InProcessBackend(StoreBackend):
    """ADAPTER (an `memdock.sdk.Adapter` instance with a `descriptor_path`) over the store in DATA_DIR."""

    transport: InProcessTransport

    def __init__(
        self,
        adapter: Adapter,
        data_dir: str | os.PathLike[str],
        *,
        config: Mapping[str, Any] | None = None,
        lock_timeout: float = 10.0,
    ):
        if adapter.descriptor_path is None:
            raise ConfigError(f"adapter {adapter.name}: an in-process adapter needs descriptor_path (its adapter.json)")
        descriptor = AdapterDescriptor.load(Path(adapter.descriptor_path).parent)
        cfg = dict(config or {})
        check_no_secrets_in(
            cfg, descriptor.config_schema, descriptor.env_for_secret_fields(), f"config of {descriptor.name}"
        )
        store = Store(data_dir)
        super().__init__(InProcessTransport(adapter, descriptor, store, cfg), store, lock_timeout=lock_timeout)
        self.descriptor, self.adapter = descriptor, adapter

    @classmethod
    def bundled(
        cls, name: str, data_dir: str | os.PathLike[str], *, config: Mapping[str, Any] | None = None
    ) -> InProcessBackend:
        """A bundled (or registered) Python adapter by NAME, loaded from its entry script into this process."""
        return cls(load_adapter(Registry.default().get(name)), data_dir, config=config)

    def __enter__(self) -> InProcessBackend:
        return self


class _Events:
    """The SDK's event channel, delivered as calls instead of lines on a pipe."""

    def __init__(self, on_progress: ProgressCallback | None, on_checkpoint: Callable[[list[str]], None] | None):
        self.on_progress, self.on_checkpoint = on_progress, on_checkpoint

    def emit(self, event: dict[str, Any], request_id: str | None = None) -> None:
        if event.get("event") == "progress" and self.on_progress is not None:
            self.on_progress(event)
        elif event.get("event") == "checkpoint" and self.on_checkpoint is not None:
            self.on_checkpoint(list(event["ids"]))


def load_adapter(descriptor: AdapterDescriptor) -> Adapter:
    """The Adapter subclass that a `-m PACKAGE` adapter's PACKAGE.adapter defines, instantiated. The adapter's
    folders (adapter.json `python_path`, as the runner puts them first for `-m`) go on this process's
    sys.path, since the adapter now runs here."""
    module = descriptor.module()
    if module is None:
        raise ConfigError(
            f"adapter {descriptor.name} is not a Python package run as `-m PACKAGE`; it can only run as a subprocess"
        )
    for folder in reversed(descriptor.python_path()):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    loaded = importlib.import_module(f"{module}.adapter")
    found = [
        obj
        for obj in vars(loaded).values()
        if inspect.isclass(obj) and issubclass(obj, Adapter) and obj.__module__ == loaded.__name__
    ]
    if len(found) != 1:
        raise ConfigError(f"{loaded.__file__}: expected one Adapter subclass, found {len(found)}")
    return found[0]()
