"""One adapter process's live state: the settings, the catalog, and mem0's Memory on the data dir (built on first
use)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memdock_entries.runtime_base import EntryRuntime

from .engine import MalformedAnswer, build
from .settings import Settings


class Runtime(EntryRuntime):
    MALFORMED = (MalformedAnswer,)
    settings: Settings

    def __init__(self, settings: Settings, data_dir: Path):
        super().__init__(settings, data_dir)
        self._memory: Any = None

    @property
    def memory(self) -> Any:
        if self._memory is None:
            self._memory = self.run(lambda: build(self.settings, self.data_dir, self.calls), "starting mem0")
        return self._memory

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
