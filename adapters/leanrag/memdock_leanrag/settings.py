"""The adapter's config, with secrets from the environment and defaults filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock.sdk import adapter_json
from memdock.sdk.kit.endpoints import ModelEndpoints

PINNED_COMMIT = "871497778f5c1fd8525fdaf2e1da6237a6921b4b"
CLUSTER_DIM = 1024  # LeanRAG's clustering reshapes every aggregate vector to (1, 1024)


@dataclass(frozen=True)
class Settings(ModelEndpoints):
    """LeanRAG has no default endpoint: the LLM is always a named OpenAI-compatible server."""

    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
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

    def llm_configured(self) -> str | None:
        """None when the LLM can be called; otherwise what is missing."""
        if not self.llm_base_url or not self.llm_model:
            return "no LLM: set llm_base_url (an OpenAI-compatible server) and llm_model"
        return None

    def embedder_configured(self) -> str | None:
        if self.embedding_provider == "openai" and not (self.embedding_base_url or self.llm_base_url):
            return "embedding_provider openai needs embedding_base_url (or llm_base_url)"
        return None

    @property
    def llm_url(self) -> str:
        return (self.llm_base_url or "").rstrip("/")
