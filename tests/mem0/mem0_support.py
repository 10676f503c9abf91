"""What the mem0 tests share: the gate, the adapter, the model endpoints, a small bundle writer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.entry_bundles import SHARED_DATA, closed_port, write_bundle  # noqa: F401  (shared with the openmemory tests)

from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

ENABLED = os.environ.get("MEMDOCK_IT_MEM0") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set

gate = [
    pytest.mark.integration_mem0,
    pytest.mark.timeout(900),  # each one-shot call imports mem0 and Qdrant's client: seconds on a loaded 2-core box
    pytest.mark.skipif(
        not ENABLED, reason="mem0 integration tests: set MEMDOCK_IT_MEM0=1 after `memdock adapters install mem0`"
    ),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("mem0")
    if not d.venv.exists():
        pytest.fail(
            f"MEMDOCK_IT_MEM0=1 but the adapter is not installed ({d.venv}); run: memdock adapters install mem0"
        )
    return d


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config=config, **kw)


def model_config(base_url: str, **extra: Any) -> dict[str, Any]:
    """The loopback stand-in for both the LLM and the embedder (64-d hashed bag of words)."""
    return {
        "llm_base_url": base_url,
        "llm_model": "loopback-llm",
        "embedding_model": "hash-64",
        "embedding_dim": 64,
        **extra,
    }


def chat_calls(server: Any) -> int:
    return sum(1 for p in server.paths() if p.endswith("/chat/completions"))
