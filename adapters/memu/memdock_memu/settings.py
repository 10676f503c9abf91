"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from memdock.errors import ConfigError

ENV = {"llm_api_key": "MEMDOCK_MEMU_LLM_API_KEY", "embedding_api_key": "MEMDOCK_MEMU_EMBEDDING_API_KEY"}
OPENAI = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Settings:
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

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Settings:
        values = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}
        if "memory_types" in values:
            values["memory_types"] = tuple(values["memory_types"])
        for field, var in ENV.items():
            if not values.get(field) and env.get(var):
                values[field] = env[var]
        return cls(**values)

    @property
    def llm_url(self) -> str:
        return (self.llm_base_url or OPENAI).rstrip("/")

    @property
    def embedding_url(self) -> str:
        return (self.embedding_base_url or self.llm_url).rstrip("/")

    @property
    def embedding_key(self) -> str | None:
        return self.embedding_api_key or self.llm_api_key

    def missing(self) -> str | None:
        """None when MemU's models are reachable as configured; otherwise what is missing."""
        if self.llm_base_url is None and not self.llm_api_key:
            return f"no LLM: set llm_base_url (an OpenAI-compatible server) or {ENV['llm_api_key']} for OpenAI"
        return None

    def require_models(self) -> None:
        problem = self.missing()
        if problem:
            raise ConfigError(f"memu: {problem}")

    def cache_key(self) -> tuple:
        return tuple(sorted(asdict(self).items()))
