"""Chunking entries into token windows with provenance and round-tripping offsets."""

from .chunker import Chunker, ChunkOptions, ChunkSummary, chunk_bundle
from .splitter import Splitter, Window
from .tokenizers import ApproxTokenizer, get_tokenizer

__all__ = [
    "ApproxTokenizer",
    "ChunkOptions",
    "ChunkSummary",
    "Chunker",
    "Splitter",
    "Window",
    "chunk_bundle",
    "get_tokenizer",
]
