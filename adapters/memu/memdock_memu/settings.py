"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock.sdk import adapter_json
from memdock.sdk.kit.endpoints import ModelEndpoints


@dataclass(frozen=True)
class Settings(ModelEndpoints):
    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
    user_id: str = "memdock"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None
    llm_timeout_s: float = 120.0
    embedding_base_url: str | None = None
    embedding_model: str = "text-embedding-3-small"
    embedding_api_key: str | None = None
    embedding_timeout_s: float = 60.0
    memory_types: tuple[str, ...] = ("profile", "event")
    max_entry_chars: int = 20_000

    def __post_init__(self) -> None:
        object.__setattr__(self, "memory_types", tuple(self.memory_types))  # a JSON list in the config
