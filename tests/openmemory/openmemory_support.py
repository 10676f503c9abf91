"""What the OpenMemory tests share: the gate and the adapter (standard library only: no install step)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

ENABLED = os.environ.get("MEMDOCK_IT_OPENMEMORY") == "1"

gate = [
    pytest.mark.integration_openmemory,
    pytest.mark.skipif(not ENABLED, reason="OpenMemory integration tests: set MEMDOCK_IT_OPENMEMORY=1"),
]


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(Registry(use_entry_points=False).get("openmemory"), store, config=config, **kw)
