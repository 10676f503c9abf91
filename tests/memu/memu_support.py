"""What the MemU tests share: the gate, the adapter, the model endpoints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.entry_bundles import closed_port, write_bundle  # noqa: F401  (shared with the other entry-adapter tests)

from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

ENABLED = os.environ.get("MEMDOCK_IT_MEMU") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set

gate = [
    pytest.mark.integration_memu,
    pytest.mark.timeout(900),  # each one-shot call imports MemU and starts its Postgres: seconds on a loaded box
    pytest.mark.skipif(
        not ENABLED,
        reason="MemU integration tests: set MEMDOCK_IT_MEMU=1 after `memdock adapters install memu` "
        "(needs CPython 3.13: PATH, pyenv or memdock.toml python_interpreters)",
    ),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("memu")
    if not d.venv.exists():
        pytest.fail(
            f"MEMDOCK_IT_MEMU=1 but the adapter is not installed ({d.venv}); run: memdock adapters install memu"
        )
    return d


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config=config, **kw)


def model_config(base_url: str, **extra: Any) -> dict[str, Any]:
    """The loopback stand-in for both the LLM and the embedder (64-d hashed bag of words)."""
    return {"llm_base_url": base_url, "llm_model": "loopback-llm", "embedding_model": "hash-64", **extra}


def chat_calls(server: Any) -> int:
    return sum(1 for p in server.paths() if p.endswith("/chat/completions"))
