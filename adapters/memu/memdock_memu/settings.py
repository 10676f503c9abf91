"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock_entries.endpoints import ModelEndpoints

from memdock.errors import ConfigError

ENV = {"llm_api_key": "MEMDOCK_MEMU_LLM_API_KEY", "embedding_api_key": "MEMDOCK_MEMU_EMBEDDING_API_KEY"}


@dataclass(frozen=True)
class Settings(ModelEndpoints):
    ENV: ClassVar[dict[str, str]] = ENV
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

    def missing(self) -> str | None:
        """None when MemU's models are reachable as configured; otherwise what is missing."""
        if self.llm_base_url is None and not self.llm_api_key:
            return f"no LLM: set llm_base_url (an OpenAI-compatible server) or {ENV['llm_api_key']} for OpenAI"
        return None

    def require_models(self) -> None:
        problem = self.missing()
        if problem:
            raise ConfigError(f"memu: {problem}")
