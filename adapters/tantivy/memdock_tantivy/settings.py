"""The tantivy adapter's settings, declared once: these fields are held to adapter.json's `config_schema`
(memdock.sdk.kit.settings). Importing this module does not import tantivy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from memdock.sdk import adapter_json
from memdock.sdk.kit.settings import SchemaSettings

from .text_once import HELD_CHARS

BATCH = 100_000  # a commit (two segment flushes and fsyncs) per 10,000 records cost 15 % of the CPU of a 20k-note run


@dataclass(frozen=True)
class Settings(SchemaSettings):
    DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
    batch_size: int = BATCH
    writer_heap_mb: int = 128
    writer_threads: int = 1  # 0: tantivy chooses (a thread per core, a segment per thread and commit)
    held_mb: float = HELD_CHARS / 1_000_000  # text_once.Held's bound
