"""The adapter's config, with the API key from the environment and defaults filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock.sdk import adapter_json
from memdock.sdk.kit.settings import SchemaSettings


@dataclass(frozen=True)
class Settings(SchemaSettings):
    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
    server_url: str = "http://localhost:8765"
    user_id: str = "default_user"
    app: str = "memdock"
    api_key: str | None = None
    timeout_s: float = 60.0
    infer: bool = False
    max_entry_chars: int = 20_000

    @property
    def base(self) -> str:
        return self.server_url.rstrip("/")
