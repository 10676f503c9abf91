"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from memdock_entries.endpoints import ModelEndpoints

from memdock.errors import ConfigError

ENV = {"llm_api_key": "MEMDOCK_MEM0_LLM_API_KEY", "embedding_api_key": "MEMDOCK_MEM0_EMBEDDING_API_KEY"}


@dataclass(frozen=True)
class Settings(ModelEndpoints):
    ENV: ClassVar[dict[str, str]] = ENV
    infer: bool = True
    user_id: str = "memdock"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4.1-mini"
    llm_api_key: str | None = None
    llm_timeout_s: float = 120.0
    embedding_provider: str = "openai"
    embedding_base_url: str | None = None
    embedding_model: str | None = None
    embedding_dim: int | None = None
    embedding_api_key: str | None = None
    embedding_timeout_s: float = 60.0
    max_entry_chars: int = 20_000
    min_score: float = 0.0

    @property
    def local_embedder(self) -> bool:
        return self.embedding_provider == "sentence-transformers"

    def llm_configured(self) -> str | None:
        """None when extraction can run (or is off); otherwise what is missing."""
        if self.infer and self.llm_base_url is None and not self.llm_api_key:
            return (
                f"no LLM: set llm_base_url (an OpenAI-compatible server) or {ENV['llm_api_key']} for OpenAI, or "
                "infer=false"
            )
        return None

    def embedder_configured(self) -> str | None:
        if self.local_embedder:
            return None if self.embedding_model else "embedding_provider sentence-transformers needs embedding_model"
        if self.embedding_base_url is None and self.llm_base_url is None and not self.embedding_key:
            return f"no embedder: set embedding_base_url or {ENV['embedding_api_key']}"
        return None

    def require_models(self) -> None:
        problem = self.llm_configured() or self.embedder_configured()
        if problem:
            raise ConfigError(f"mem0: {problem}")

    def local_model_dir(self) -> Path:
        from memdock.sdk.local_models import resolve_model_path

        return resolve_model_path(self.embedding_model or "")

    def dims(self) -> int:
        """The vector size the Qdrant collection is created with."""
        if self.embedding_dim:
            return self.embedding_dim
        if not self.local_embedder:
            return 1536
        try:
            return int(json.loads((self.local_model_dir() / "config.json").read_text())["hidden_size"])
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(
                f"embedding_model {self.embedding_model!r}: cannot read its size ({exc}); set embedding_dim"
            ) from None
