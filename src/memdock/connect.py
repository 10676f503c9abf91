"""The one factory for backends: a backend name (or MEMDOCK_BACKEND, memdock.toml, the default) becomes a
MemoryBackend, for every front door (the Python API, the MCP server, the CLI). The service never opens one
itself, and nothing else in the front doors opens an adapter another way."""

from __future__ import annotations

import os
from typing import Any

from .contract import MemoryBackend

BackendSpec = str | MemoryBackend | None


def open_backend(
    backend: BackendSpec = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    config: dict[str, Any] | None = None,
    workers: int = 1,
    sandbox: bool | str | None = None,
    retries: int = 0,
) -> MemoryBackend:
    """BACKEND as a MemoryBackend: an object that already is one is used as it is (then the other
    arguments must be left out); a name is resolved and run as a subprocess adapter (WORKERS 0: one process
    per call, as a command line wants; RETRIES: after a crash mid-call, for idempotent operations)."""
    if backend is not None and not isinstance(backend, str):
        if data_dir is not None or config is not None:
            raise TypeError("data_dir and config belong to the backend object already given")
        return backend
    from .runner.backend import SubprocessBackend

    return SubprocessBackend.resolved(
        backend, data_dir=data_dir, config=config, workers=workers, retries=retries, sandbox=sandbox
    )
