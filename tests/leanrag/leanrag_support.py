"""What the LeanRAG tests share: the gate, the checkout, the adapter and the model stand-in's config."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

PROJECT = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("MEMDOCK_SHARED_DATA") or PROJECT.parent / "shared" / "data")
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set


def checkout() -> Path | None:
    """MEMDOCK_LEANRAG_PATH, else ../LeanRAG beside the project root."""
    named = os.environ.get("MEMDOCK_LEANRAG_PATH")
    for p in ([Path(named)] if named else []) + [PROJECT.parent / "LeanRAG"]:
        if (p / "build_graph.py").is_file():
            return p.resolve()
    return None


CHECKOUT = checkout()
ENABLED = os.environ.get("MEMDOCK_IT_LEANRAG") == "1"
_why = (
    "LeanRAG integration tests: set MEMDOCK_IT_LEANRAG=1 after `memdock adapters install leanrag`"
    if not ENABLED
    else "LeanRAG integration tests: no checkout found (set MEMDOCK_LEANRAG_PATH, or clone it to ../LeanRAG at 8714977)"
)
gate = [pytest.mark.integration_leanrag, pytest.mark.skipif(not (ENABLED and CHECKOUT), reason=_why)]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("leanrag")
    if not d.venv.exists():
        pytest.fail(
            f"MEMDOCK_IT_LEANRAG=1 but the adapter is not installed ({d.venv}); run: memdock adapters install leanrag"
        )
    return d


def model_config(base_url: str, **extra: Any) -> dict[str, Any]:
    return {"leanrag_path": str(CHECKOUT), "llm_base_url": base_url, "llm_model": "loopback-llm", **extra}


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    kw.setdefault("timeouts", {"index": 1800, "delete": 1800, "query": 600, "idle": 900})
    return SubprocessBackend(descriptor(), store, config=config, **kw)
