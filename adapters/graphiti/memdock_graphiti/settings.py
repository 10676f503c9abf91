"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from memdock.errors import ConfigError

ENV = {
    "falkordb_password": "MEMDOCK_GRAPHITI_FALKORDB_PASSWORD",
    "llm_api_key": "MEMDOCK_GRAPHITI_LLM_API_KEY",
    "embedding_api_key": "MEMDOCK_GRAPHITI_EMBEDDING_API_KEY",
    "reranker_api_key": "MEMDOCK_GRAPHITI_RERANKER_API_KEY",
}
OPENAI = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Settings:
    falkordb_host: str | None = None
    falkordb_port: int = 6379
    falkordb_username: str | None = None
    falkordb_password: str | None = None
    falkordb_connect_timeout_s: float = 5.0
    llm_base_url: str | None = None
    llm_model: str = "gpt-4.1-mini"
    llm_small_model: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: float = 120.0
    llm_max_tokens: int = 16384
    llm_structured_output: str = "json_schema"
    embedding_provider: str = "openai"
    embedding_base_url: str | None = None
    embedding_model: str | None = None
    embedding_dim: int | None = None
    embedding_api_key: str | None = None
    reranker_api_key: str | None = None
    reranker_base_url: str | None = None
    reranker_model: str | None = None
    episode_source: str = "entries"
    max_episode_chars: int = 100_000
    max_coroutines: int = 4

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Settings:
        values = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}
        for field, var in ENV.items():
            if not values.get(field) and env.get(var):
                values[field] = env[var]
        return cls(**values)

    @property
    def local_server(self) -> bool:
        return not self.falkordb_host

    @property
    def llm_url(self) -> str:
        return (self.llm_base_url or OPENAI).rstrip("/")

    @property
    def small_model(self) -> str:
        return self.llm_small_model or self.llm_model

    @property
    def embedding_url(self) -> str:
        return (self.embedding_base_url or self.llm_url).rstrip("/")

    @property
    def embedding_key(self) -> str | None:
        return self.embedding_api_key or self.llm_api_key

    @property
    def rerank(self) -> bool:
        return bool(self.reranker_api_key)

    def llm_configured(self) -> str | None:
        """None when the LLM can be called; otherwise what is missing."""
        if self.llm_base_url is None and not self.llm_api_key:
            return f"no LLM: set llm_base_url (an OpenAI-compatible server) or {ENV['llm_api_key']} for OpenAI"
        return None

    def embedder_configured(self) -> str | None:
        if self.embedding_provider == "sentence-transformers":
            return None if self.embedding_model else "embedding_provider sentence-transformers needs embedding_model"
        if self.embedding_base_url is None and self.llm_base_url is None and not self.embedding_key:
            return f"no embedder: set embedding_base_url or {ENV['embedding_api_key']}"
        return None

    def require_models(self) -> None:
        problem = self.llm_configured() or self.embedder_configured()
        if problem:
            raise ConfigError(f"graphiti: {problem}")

    def cache_key(self) -> tuple:
        return tuple(sorted(asdict(self).items()))
