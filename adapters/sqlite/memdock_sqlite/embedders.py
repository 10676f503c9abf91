"""The sqlite adapter's embedders: memdock_entries.embedders, shared with the postgres adapter (which settings pick
one: memdock_sqlite.settings)."""

from __future__ import annotations

from memdock_entries.embedders import Embedder, HttpEmbedder, SentenceTransformerEmbedder

__all__ = ["Embedder", "HttpEmbedder", "SentenceTransformerEmbedder"]
