"""The adapter's config, with the API key from the environment and defaults filled in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

API_KEY_ENV = "MEMDOCK_OPENMEMORY_API_KEY"


@dataclass(frozen=True)
class Settings:
    server_url: str = "http://localhost:8765"
    user_id: str = "default_user"
    app: str = "memdock"
    api_key: str | None = None
    timeout_s: float = 60.0
    infer: bool = False
    max_entry_chars: int = 20_000

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Settings:
        values = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}
        if not values.get("api_key") and env.get(API_KEY_ENV):
            values["api_key"] = env[API_KEY_ENV]
        return cls(**values)

    @property
    def base(self) -> str:
        return self.server_url.rstrip("/")

    def cache_key(self) -> tuple:
        return tuple(sorted(asdict(self).items()))
