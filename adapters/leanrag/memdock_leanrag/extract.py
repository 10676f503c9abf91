"""Per-chunk extraction with LeanRAG's own `triple_extraction` (entities, a gleaning pass, relations, a gleaning pass).

LeanRAG runs it over a whole corpus and writes entity.jsonl and relation.jsonl at the end; here it is
given one chunk at a time, in a fresh folder of the work dir, and what it wrote is committed to the
catalog before the chunk is checkpointed.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from .bridge import LeanRAG
from .catalog import Catalog
from .models import LLM


def _read(path: Path) -> list[Any]:
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def extract_chunk(lr: LeanRAG, llm: LLM, catalog: Catalog, chunk: dict[str, Any], work: Path) -> tuple[int, int]:
    """Extract CHUNK and commit the result; returns (entities, relations)."""
    folder = work / f"extract-{chunk['key']}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        llm.purpose = f"extraction of {chunk['id']}"
        asyncio.run(lr.extraction.triple_extraction({chunk["key"]: chunk["text"]}, llm.acomplete, str(folder)))
        entities = _read(folder / "entity.jsonl")
        relations = _read(folder / "relation.jsonl")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    with catalog.transaction():
        catalog.put_extraction(chunk["key"], chunk["content_hash"], entities, relations)
    return len(entities), sum(len(r) for r in relations)
