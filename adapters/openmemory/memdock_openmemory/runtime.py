"""One adapter process's state: settings, the catalog in the data dir, the HTTP client, and the app's id once known."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdock_entries.catalog import Catalog

from .client import Client
from .settings import Settings

PAGE = 100


class Runtime:
    def __init__(self, settings: Settings, data_dir: Path):
        self.settings = settings
        self.catalog = Catalog(data_dir)
        self.client = Client(settings)
        self._app_id: str | None = None

    def app_id(self, where: str) -> str | None:
        """The server's id of our app (None until the first memory created it)."""
        if self._app_id is None:
            self._app_id = self.client.app_id(where)
        return self._app_id

    def learn_app_id(self, app_id: str) -> None:
        self._app_id = app_id

    def pages(self, where: str, **kw: Any) -> Iterator[dict[str, Any]]:
        """Every memory the filter route lists for these arguments, newest first, page by page."""
        page = 1
        while True:
            answer = self.client.filter(where, page=page, size=PAGE, **kw)
            items = answer.get("items") or []
            yield from items
            if not items or page >= (answer.get("pages") or 1):
                return
            page += 1

    def stored_for(self, entry_id: str, where: str, since: int | None = None) -> list[str]:
        """Ids of the server's memories whose metadata names ENTRY_ID (those a killed run never recorded too)."""
        app = self.app_id(where)
        if app is None:
            return []
        return [
            str(m["id"])
            for m in self.pages(where, app_ids=[app], from_date=since)
            if (m.get("metadata_") or {}).get("md_entry_id") == entry_id
        ]

    def close(self) -> None:
        self.catalog.close()
