"""memdock: one contract between memory backends and the programs that use them."""

__version__ = "0.1.0"

PAYLOAD_VERSION = "1.0.0"
PROTOCOL_VERSION = "1.0"

__all__ = ["AsyncMemory", "Memory", "MemoryService", "__version__", "PAYLOAD_VERSION", "PROTOCOL_VERSION"]


def __getattr__(name: str):
    """Imported on first use, so adapters that only need the SDK start without loading the service layer."""
    if name in ("Memory", "AsyncMemory"):
        from . import api

        return getattr(api, name)
    if name == "MemoryService":
        from .service import MemoryService

        return MemoryService
    raise AttributeError(f"module 'memdock' has no attribute {name!r}")
