"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from memdock.errors import ConfigError
from memdock.sdk import adapter_json
from memdock.sdk.kit.endpoints import ModelEndpoints


@dataclass(frozen=True)
class Settings(ModelEndpoints):
    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
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

    def llm_configured(self) -> str | None:
        """None when extraction can run (or is off); otherwise what is missing."""
        missing = super().llm_configured() if self.infer else None
        return f"{missing}, or infer=false" if missing else None

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
