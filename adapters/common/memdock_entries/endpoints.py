"""What the settings of the adapters calling an OpenAI-compatible LLM and embedder share: the config read with its
secrets from the environment, and the endpoints with their defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, ClassVar

OPENAI = "https://api.openai.com/v1"


class ModelEndpoints:
    """A mixin for a frozen dataclass with the fields llm_base_url, llm_api_key, embedding_base_url and
    embedding_api_key; ENV maps each secret field to its environment variable."""

    ENV: ClassVar[dict[str, str]]
    llm_base_url: str | None
    llm_api_key: str | None
    embedding_base_url: str | None
    embedding_api_key: str | None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Any:
        values = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}  # type: ignore[attr-defined]
        for field, var in cls.ENV.items():
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

    def cache_key(self) -> tuple:
        return tuple(sorted(asdict(self).items()))  # type: ignore[call-overload]
