"""InProcessBackend: a Python adapter's SDK object called in this process, behind the same MemoryBackend.

The httpx `MockTransport` of memdock. Everything above the transport is the runner's (the store, its lock,
the ledger's delta and resume, pruning, response validation against response.schema.json); only the hop
to the adapter differs: a request is dispatched to the Adapter object directly instead of a subprocess.
What the process boundary gives is therefore absent: no sandbox, no timeout enforcement (TIMEOUT is
accepted and ignored), no survivor reaping, and the adapter shares this interpreter's imports and state.
Use it in tests of what sits above the backend, and to embed a trusted adapter; use SubprocessBackend
(the default everywhere else) to run an adapter you do not control.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .contract import ProgressCallback
from .errors import ConfigError
from .protocol import SUPPORTED_PROTOCOLS, build_request, check_response
from .registry import AdapterDescriptor, Registry
from .runner.backend import SubprocessBackend
from .sdk.adapter import Adapter, _dispatch


class InProcessBackend(SubprocessBackend):
    """ADAPTER (an `memdock.sdk.Adapter` instance with a `descriptor_path`) over the store in DATA_DIR."""

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
        super().__init__(
            descriptor, data_dir, config=config, workers=0, retries=0, sandbox=False, lock_timeout=lock_timeout
        )
        self.adapter = adapter

    @classmethod
    def bundled(
        cls, name: str, data_dir: str | os.PathLike[str], *, config: Mapping[str, Any] | None = None
    ) -> InProcessBackend:
        """A bundled (or registered) Python adapter by NAME, loaded from its entry script into this process."""
        descriptor = Registry.default().get(name)
        if descriptor.raw.get("runtime", {}).get("kind") != "python":
            raise ConfigError(f"adapter {name} is not a Python adapter; it can only run as a subprocess")
        return cls(_load_adapter(descriptor.path), data_dir, config=config)

    def call(
        self,
        operation: str,
        params: dict[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        on_checkpoint: Callable[[list[str]], None] | None = None,
        offered: tuple[str, ...] | None = None,
        use_pool: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        store = self.store.ensure()
        work = store.new_work_dir(operation)
        try:
            request = build_request(
                operation,
                data_dir=str(store.data_dir),
                work_dir=str(work),
                config=dict(self.launch.config),
                params=params or {},
                offered=offered or SUPPORTED_PROTOCOLS,
            )
            events = _Events(on_progress, on_checkpoint)
            response = _dispatch(self.adapter, request, events)
            return check_response(
                response, request_id=request["request_id"], operation=operation, source=f"adapter {self.name}"
            )
        finally:
            store.discard(work)

    def close(self) -> None:
        self.adapter.close()


class _Events:
    """The SDK's event channel, delivered as calls instead of lines on a pipe."""

    def __init__(self, on_progress: ProgressCallback | None, on_checkpoint: Callable[[list[str]], None] | None):
        self.on_progress, self.on_checkpoint = on_progress, on_checkpoint

    def emit(self, event: dict[str, Any], request_id: str | None = None) -> None:
        if event.get("event") == "progress" and self.on_progress is not None:
            self.on_progress(event)
        elif event.get("event") == "checkpoint" and self.on_checkpoint is not None:
            self.on_checkpoint(list(event["ids"]))


def _load_adapter(folder: Path) -> Adapter:
    """The Adapter subclass defined by FOLDER's adapter.py, instantiated."""
    script = folder / "adapter.py"
    module_name = f"_memdock_inprocess_{folder.name.replace('-', '_')}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, script)
        if spec is None or spec.loader is None:
            raise ConfigError(f"{script}: not a loadable Python adapter")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    found = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, Adapter) and obj is not Adapter and obj.__module__ == module_name
    ]
    if len(found) != 1:
        raise ConfigError(f"{script}: expected one Adapter subclass, found {len(found)}")
    return found[0]()
