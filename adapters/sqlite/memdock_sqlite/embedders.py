"""The sqlite adapter's embedders: memdock_entries.embedders (shared with the postgres adapter), the openai key from
MEMDOCK_SQLITE_EMBEDDING_API_KEY."""

from __future__ import annotations

from typing import Any

from memdock_entries.embedders import Embedder, HttpEmbedder, SentenceTransformerEmbedder
from memdock_entries.embedders import from_config as _from_config

API_KEY_ENV = "MEMDOCK_SQLITE_EMBEDDING_API_KEY"
__all__ = ["API_KEY_ENV", "Embedder", "HttpEmbedder", "SentenceTransformerEmbedder", "from_config"]


def from_config(config: dict[str, Any]) -> Embedder | None:
    """The configured embedder, or None when embeddings are off."""
    return _from_config(config, API_KEY_ENV)
