"""The service layer: one backend-agnostic entry point for applications, the Python API and the MCP server."""

from .core import Remembered, ServiceCore
from .service import MemoryService

__all__ = ["MemoryService", "Remembered", "ServiceCore"]
