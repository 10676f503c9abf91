"""What the mem0 tests share: the gate, the adapter, the model endpoints, a small bundle writer."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from memdock.bundle import BundleWriter
from memdock.ids import content_hash
from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

SHARED_DATA = Path(os.environ.get("MEMDOCK_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
ENABLED = os.environ.get("MEMDOCK_IT_MEM0") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set

gate = [
    pytest.mark.integration_mem0,
    pytest.mark.skipif(not ENABLED, reason="mem0 integration tests: set MEMDOCK_IT_MEM0=1 after `memdock adapters install mem0`"),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("mem0")
    if not d.venv.exists():
        pytest.fail(f"MEMDOCK_IT_MEM0=1 but the adapter is not installed ({d.venv}); run: memdock adapters install mem0")
    return d


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config=config, **kw)


def model_config(base_url: str, **extra: Any) -> dict[str, Any]:
    """The loopback stand-in for both the LLM and the embedder (64-d hashed bag of words)."""
    return {"llm_base_url": base_url, "llm_model": "loopback-llm", "embedding_model": "hash-64", "embedding_dim": 64, **extra}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chat_calls(server: Any) -> int:
    return sum(1 for p in server.paths() if p.endswith("/chat/completions"))


T0 = "2025-03-0{}T10:00:00Z"


def write_bundle(path: Path, texts: list[str], thread: str = "thread:greenhouse", author: str = "ops") -> Path:
    """One thread of entries (with a chunk each), in reverse file order."""
    with BundleWriter(path, "chunks") as w:
        w.write("thread", {"id": thread, "title": "Greenhouse log", "ingestion_time": T0.format(1)})
        for i, text in reversed(list(enumerate(texts))):
            eid = f"entry:gh-{i}"
            w.write("entry", {"id": eid, "thread_id": thread, "position": i, "body": text, "author": author,
                              "ingestion_time": T0.format(1), "event_time": T0.format(i + 1)})
            w.write("chunk", {"id": f"chunk:gh-{i}", "entry_id": eid, "thread_id": thread, "position": 0, "text": text[:2000],
                              "start": 0, "end": min(len(text), 2000), "token_count": len(text.split()),
                              "content_hash": content_hash(text[:2000]), "author": author, "event_time": T0.format(i + 1)})
    return path
