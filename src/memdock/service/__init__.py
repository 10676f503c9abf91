"""The service layer: one backend-agnostic entry point for applications, the Python API and the MCP server.
It depends on the contract's MemoryBackend protocol only; `memdock.connect` opens a backend for it."""

from .filters import Filters
from .results import Entry, Remembered, Status
from .service import MemoryService

__all__ = ["Entry", "Filters", "MemoryService", "Remembered", "Status"]
