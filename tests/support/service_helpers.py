"""Helpers the service and MCP tests import by name (see sqlite_helpers.py for why not from conftest)."""

from pathlib import Path
from typing import Any

from memdock.connect import open_backend
from memdock.service import MemoryService
from memdock.service.core import ServiceCore

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "adapters" / "scripted"


def core(backend: str, data_dir: Path, *, config: dict[str, Any] | None = None, **kw: Any) -> ServiceCore:
    """The service core over BACKEND run as a subprocess worker, as Memory opens it."""
    return ServiceCore(open_backend(backend, data_dir=data_dir, config=config), **kw)


def service(backend: str, data_dir: Path, *, config: dict[str, Any] | None = None, **kw: Any) -> MemoryService:
    return MemoryService(open_backend(backend, data_dir=data_dir, config=config, workers=2), **kw)
