"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock.sdk import adapter_json
from memdock.sdk.kit.endpoints import ModelEndpoints


@dataclass(frozen=True)
class Settings(ModelEndpoints):
    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
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

    @property
    def local_server(self) -> bool:
        return not self.falkordb_host

    @property
    def small_model(self) -> str:
        return self.llm_small_model or self.llm_model

    @property
    def rerank(self) -> bool:
        return bool(self.reranker_api_key)
