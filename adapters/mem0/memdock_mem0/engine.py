"""mem0's Memory built for one data dir: Qdrant in local mode, its SQLite history and its home all inside it.

mem0 reads MEM0_DIR and MEM0_TELEMETRY when it is first imported, so both are set here before the
import. Its OpenAI clients are replaced by ours with the configured timeout and `max_retries=0`
(retries are the runner's, one per transient failure), and every call is counted and timed. The
extraction answer is checked before mem0 parses it: mem0 treats an answer it cannot parse as
"nothing to remember", which would silently lose an entry, so a malformed one fails the entry instead.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from memdock.sdk.kit.models import Calls

from .settings import Settings

COLLECTION = "memdock"


class MalformedAnswer(Exception):
    """The LLM's extraction answer is not the JSON object mem0 expects."""


def _prepare_environment(data_dir: Path) -> None:
    home = data_dir / "mem0-home"
    home.mkdir(parents=True, exist_ok=True)
    os.environ["MEM0_DIR"] = str(home)
    os.environ["MEM0_TELEMETRY"] = "false"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def check_extraction(answer: Any) -> None:
    """Raise MalformedAnswer unless ANSWER is a JSON object whose `memory` is a list of {text} objects."""
    from mem0.memory.utils import remove_code_blocks

    text = remove_code_blocks(answer) if isinstance(answer, str) else answer
    try:
        value = json.loads(text, strict=False) if isinstance(text, str) else None
    except ValueError:
        value = None
    items = value.get("memory") if isinstance(value, dict) else None
    if not isinstance(items, list) or not all(
        isinstance(m, dict) and isinstance(m.get("text", ""), str) for m in items
    ):
        shown = " ".join(str(answer).split())[:200]
        raise MalformedAnswer(f'the LLM\'s extraction answer is not {{"memory": [{{"text": ...}}]}}: {shown!r}')


def _config(s: Settings, data_dir: Path) -> dict[str, Any]:
    dims = s.dims()
    if s.local_embedder:
        embedder = {
            "provider": "huggingface",
            "config": {"model": str(s.local_model_dir()), "embedding_dims": dims, "model_kwargs": {"device": "cpu"}},
        }
    else:
        embedder = {
            "provider": "openai",
            "config": {
                "model": s.embedding_model or "text-embedding-3-small",
                "openai_base_url": s.embedding_url,
                "api_key": s.embedding_key or "none",
                "embedding_dims": dims,
            },
        }
    return {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "path": str(data_dir / "qdrant"),
                "collection_name": COLLECTION,
                "embedding_model_dims": dims,
                "on_disk": True,
            },
        },
        "llm": {
            "provider": "openai",
            "config": {
                "model": s.llm_model,
                "openai_base_url": s.llm_url,
                "api_key": s.llm_api_key or "none",
                "temperature": 0,
            },
        },
        "embedder": embedder,
        "history_db_path": str(data_dir / "history.sqlite"),
    }


def build(s: Settings, data_dir: Path, calls: Calls) -> Any:
    """A mem0 Memory on DATA_DIR whose model calls go through our clients and are counted into CALLS."""
    _prepare_environment(data_dir)
    from mem0 import Memory
    from openai import OpenAI

    memory = Memory.from_config(_config(s, data_dir))
    memory.llm.client = OpenAI(
        api_key=s.llm_api_key or "none", base_url=s.llm_url, timeout=s.llm_timeout_s, max_retries=0
    )
    generate = memory.llm.generate_response

    def counted_generate(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            answer = generate(*args, **kwargs)
        finally:
            calls.add("llm", time.perf_counter() - t)
        check_extraction(answer)
        return answer

    memory.llm.generate_response = counted_generate
    if not s.local_embedder:
        memory.embedding_model.client = OpenAI(
            api_key=s.embedding_key or "none", base_url=s.embedding_url, timeout=s.embedding_timeout_s, max_retries=0
        )
    for name in ("embed", "embed_batch"):
        original = getattr(memory.embedding_model, name, None)
        if original is not None:
            setattr(memory.embedding_model, name, _timed(original, calls))
    return memory


def _timed(fn: Any, calls: Calls) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            calls.add("embedding", time.perf_counter() - t)

    return wrapper
