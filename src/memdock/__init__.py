"""memdock: one contract between memory backends and the programs that use them.

The public surface is `__all__`: the front doors (Memory, AsyncMemory, MemoryService), the filters and
results they speak, the MemoryBackend seam, the error taxonomy, and the adapter SDK's base class. Names
are imported on first use, so an adapter that only needs the SDK starts without loading the service layer.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs a start-up: adapters and `memdock --version` import this module

__version__ = "0.1.0"

PAYLOAD_VERSION = "1.2.0"
PROTOCOL_VERSION = "1.0"

_WHERE = {
    "Memory": "memdock.api",
    "AsyncMemory": "memdock.api",
    "MemoryService": "memdock.service",
    "Filters": "memdock.service",
    "Remembered": "memdock.service",
    "Status": "memdock.service",
    "Entry": "memdock.service",
    "MemoryBackend": "memdock.contract",
    "Capabilities": "memdock.contract",
    "HealthStatus": "memdock.contract",
    "IndexResult": "memdock.contract",
    "SearchResult": "memdock.contract",
    "GetResult": "memdock.contract",
    "DeleteResult": "memdock.contract",
    "Hit": "memdock.records",
    "thread_id_for": "memdock.threads",
    "MemdockError": "memdock.errors",
    "ConfigError": "memdock.errors",
    "InvalidInputError": "memdock.errors",
    "UnsupportedOperationError": "memdock.errors",
    "TransientError": "memdock.errors",
    "BackendError": "memdock.errors",
    "CancelledError": "memdock.errors",
    "VersionError": "memdock.errors",
    "Adapter": "memdock.sdk",
}

__all__ = [
    "PAYLOAD_VERSION",
    "PROTOCOL_VERSION",
    "__version__",
    "Memory",
    "AsyncMemory",
    "MemoryService",
    "Filters",
    "Remembered",
    "Status",
    "Entry",
    "MemoryBackend",
    "Capabilities",
    "HealthStatus",
    "IndexResult",
    "SearchResult",
    "GetResult",
    "DeleteResult",
    "Hit",
    "thread_id_for",
    "MemdockError",
    "ConfigError",
    "InvalidInputError",
    "UnsupportedOperationError",
    "TransientError",
    "BackendError",
    "CancelledError",
    "VersionError",
    "Adapter",
]

if TYPE_CHECKING:
    from typing import Any

    from .api import AsyncMemory, Memory
    from .contract import (
        Capabilities,
        DeleteResult,
        GetResult,
        HealthStatus,
        IndexResult,
        MemoryBackend,
        SearchResult,
    )
    from .errors import (
        BackendError,
        CancelledError,
        ConfigError,
        InvalidInputError,
        MemdockError,
        TransientError,
        UnsupportedOperationError,
        VersionError,
    )
    from .records import Hit
    from .sdk import Adapter
    from .service import Entry, Filters, MemoryService, Remembered, Status
    from .threads import thread_id_for


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memdock' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
