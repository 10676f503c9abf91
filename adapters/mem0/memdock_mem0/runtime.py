"""One adapter process's live state: the settings, the catalog, and mem0's Memory on the data dir (built on first
use)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from memdock_entries.catalog import Catalog

from memdock.sdk.kit.models import Calls

from .engine import build
from .errors import classify
from .settings import Settings

T = TypeVar("T")


class Runtime:
    def __init__(self, settings: Settings, data_dir: Path):
        self.settings, self.data_dir = settings, data_dir
        self.catalog = Catalog(data_dir)
        self.calls = Calls()
        self._memory: Any = None

    @property
    def memory(self) -> Any:
        if self._memory is None:
            self._memory = self.run(lambda: build(self.settings, self.data_dir, self.calls), "starting mem0")
        return self._memory

    def run(self, fn: Callable[[], T], where: str) -> T:
        try:
            return fn()
        except Exception as exc:
            raise classify(exc, self.settings, where) from exc

    def scope(self) -> dict[str, str]:
        return {"user_id": self.settings.user_id}

    def stored_for(self, entry_id: str) -> list[str]:
        """Ids of the memories mem0 holds for ENTRY_ID, found by their metadata (also those a killed run never
        reported)."""
        rows = self.memory.vector_store.list(filters={**self.scope(), "md_entry_id": entry_id}, top_k=10_000)
        rows = rows[0] if rows and isinstance(rows[0], list) else rows
        return [str(r.id) for r in rows]

    def close(self) -> None:
        if self._memory is not None:
            try:
                self._memory.close()
            except Exception:
                pass
            self._memory = None
        self.catalog.close()
