"""One adapter process's live state: the settings, the catalog, MemU's service on the data dir's Postgres (started
on first use), and the event loop MemU's coroutines run on.

An entry's records in MemU are found by their scope (`entry_id`), so removing an entry (before it is written again,
after a failed or killed write, or on delete) needs no list of ids: its memory items, their category links and its
resource go, by MemU's repositories.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from memdock_entries.runtime_base import EntryRuntime

from memdock.errors import MemdockError

from .engine import MalformedAnswer, build, start_postgres
from .settings import Settings

T = TypeVar("T")


class Runtime(EntryRuntime):
    MALFORMED = (MalformedAnswer,)
    settings: Settings

    def __init__(self, settings: Settings, data_dir: Path):
        super().__init__(settings, data_dir)
        self.malformed: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._server: Any = None
        self._service: Any = None
        self._categories_ready = False

    @property
    def service(self) -> Any:
        if self._service is None:
            self._server = self.run(lambda: start_postgres(self.data_dir), "starting MemU's Postgres")
            dsn = self._server.get_uri().replace("postgresql://", "postgresql+psycopg://", 1)
            self._service = self.run(
                lambda: build(self.settings, self.data_dir, dsn, self.calls, self.malformed), "starting MemU"
            )
        return self._service

    @property
    def db(self) -> Any:
        return self.service.database

    def wait(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(coro)

    def scope(self, **more: str) -> dict[str, str]:
        return {"user_id": self.settings.user_id, **more}

    def ready_categories(self) -> None:
        """MemU's categories for this store, made (or found) under the user scope alone."""
        if not self._categories_ready:
            s = self.service
            self.wait(s._ensure_categories_ready(s._get_context(), s.database, self.scope()))
            self._categories_ready = True

    def memorize(self, entry: dict[str, Any], where: str) -> list[str]:
        """Give MemU one entry as a document; its new memory item ids. On any failure (a malformed extraction answer
        included) what MemU stored of it is removed. MemU applies category summaries only once every summary call
        for the entry answered, as its last step, so a failure leaves them as they were."""
        self.run(self.ready_categories, f"{where}: making MemU's categories")
        folder = self.data_dir / "memu-resources"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (hashlib.sha256(entry["id"].encode()).hexdigest()[:32] + ".txt")
        path.write_text(entry["body"], encoding="utf-8")
        self.malformed.clear()
        user = self.scope(thread_id=entry["thread_id"], entry_id=entry["id"])
        try:
            result = self.wait(self.service.memorize(resource_url=str(path), modality="document", user=user))
            if self.malformed:
                raise MalformedAnswer(self.malformed[0])
        except BaseException as exc:
            self.remove_entry(entry["id"])
            if isinstance(exc, Exception) and not isinstance(exc, MemdockError):
                raise self.classify(exc, where) from exc
            raise
        return [str(i["id"]) for i in result.get("items", [])]

    def _unlink(self, item_id: str) -> None:
        links = self.db.category_item_repo
        for rel in links.get_item_categories(item_id):
            links.unlink_item_category(item_id, rel.category_id)

    def remove_entry(self, entry_id: str) -> int:
        """Remove every record MemU holds for ENTRY_ID (also those a killed run never reported); how many items."""
        where = self.scope(entry_id=entry_id)
        items = self.db.memory_item_repo.list_items(where)
        for item_id in items:
            self._unlink(item_id)
        self.db.memory_item_repo.clear_items(where)
        for res in self.db.resource_repo.clear_resources(where).values():
            Path(res.local_path).unlink(missing_ok=True)
        return len(items)

    def remove_item(self, item_id: str) -> None:
        self._unlink(item_id)
        self.db.memory_item_repo.delete_item(item_id)

    def counts(self) -> dict[str, int]:
        where = self.scope()
        return {
            "items": len(self.db.memory_item_repo.list_items(where)),
            "resources": len(self.db.resource_repo.list_resources(where)),
            "categories": len(self.db.memory_category_repo.list_categories(where)),
        }

    def close(self) -> None:
        if self._service is not None:
            try:
                self._service.database.close()
            except Exception:
                pass
            self._service = None
        if self._server is not None:
            try:
                self._server.cleanup()
            except Exception:
                pass
            self._server = None
        self._loop.close()
        self.catalog.close()
