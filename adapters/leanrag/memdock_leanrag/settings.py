"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from memdock.errors import ConfigError

PINNED_COMMIT = "871497778f5c1fd8525fdaf2e1da6237a6921b4b"
ENV = {"llm_api_key": "MEMDOCK_LEANRAG_LLM_API_KEY", "embedding_api_key": "MEMDOCK_LEANRAG_EMBEDDING_API_KEY"}
PATH_ENV = "MEMDOCK_LEANRAG_PATH"
CLUSTER_DIM = 1024  # LeanRAG's clustering reshapes every aggregate vector to (1, 1024)


@dataclass(frozen=True)
class Settings:
    leanrag_path: str | None = None
    allow_other_commit: bool = False
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: float = 120.0
    llm_max_tokens: int = 4096
    embedding_provider: str = "sentence-transformers"
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_base_url: str | None = None
    embedding_api_key: str | None = None
    embedding_timeout_s: float = 60.0
    max_chunk_chars: int = 20_000
    top_k: int = 10
    max_workers: int = 2

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Settings:
        values = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}
        for field, var in ENV.items():
            if not values.get(field) and env.get(var):
                values[field] = env[var]
        if not values.get("leanrag_path") and env.get(PATH_ENV):
            values["leanrag_path"] = env[PATH_ENV]
        return cls(**values)

    def llm_configured(self) -> str | None:
        """None when the LLM can be called; otherwise what is missing."""
        if not self.llm_base_url or not self.llm_model:
            return "no LLM: set llm_base_url (an OpenAI-compatible server) and llm_model"
        return None

    def embedder_configured(self) -> str | None:
        if self.embedding_provider == "openai" and not (self.embedding_base_url or self.llm_base_url):
            return "embedding_provider openai needs embedding_base_url (or llm_base_url)"
        return None

    def require_models(self) -> None:
        problem = self.llm_configured() or self.embedder_configured()
        if problem:
            raise ConfigError(f"leanrag: {problem}")

    @property
    def embedding_url(self) -> str:
        return (self.embedding_base_url or self.llm_base_url or "").rstrip("/")

    def cache_key(self) -> tuple:
        return tuple(sorted(asdict(self).items()))
