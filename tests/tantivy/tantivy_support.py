"""What the tantivy tests share: the gate and the adapter, run from its own virtualenv."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

ENABLED = os.environ.get("MEMDOCK_IT_TANTIVY") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set

gate = [
    pytest.mark.integration_tantivy,
    pytest.mark.skipif(
        not ENABLED,
        reason="tantivy integration tests: set MEMDOCK_IT_TANTIVY=1 after `memdock adapters install tantivy`",
    ),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("tantivy")
    if not d.venv.exists():
        pytest.fail(
            f"MEMDOCK_IT_TANTIVY=1 but the adapter is not installed ({d.venv}); run: memdock adapters install tantivy"
        )
    return d


def backend(store: Path, config: dict[str, Any] | None = None, **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config=config or {}, **kw)


def in_adapter(script: str, *args: str) -> str:
    """What SCRIPT prints when run by the adapter's own interpreter, with the adapter's packages importable."""
    root = Path(__file__).resolve().parents[2]
    paths = [root / "adapters" / "tantivy", root / "adapters" / "common", root / "src"]
    return subprocess.run(
        [str(descriptor().venv / "bin" / "python"), "-c", script, *args],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, paths))),
        check=True,
        capture_output=True,
        text=True,
    ).stdout


# For scripts run by `in_adapter`: tantivy's IndexWriter as memdock_tantivy.ingest.Ingest calls it, each call noted
# in `events` (no document is indexed).
FAKE_WRITER = r"""
events = []

class Writer:
    def of(self, kind):
        return self
    def add_document(self, doc):
        events.append("add")
    def delete_documents_by_term(self, field, value):
        events.append("delete")
    def commit(self):
        events.append("commit")
    def rollback(self, cause=None, undo=None):
        events.append("rollback")
"""


def but_nodes(answers: dict[str, Any]) -> dict[str, Any]:
    """ANSWERS less search_nodes' (the keys "nodes ..."), to compare a store of layout 8 or later with an older one:
    from layout 8 an entry its chunks hold is found through them, ranked by its title or its best chunk
    (test_tantivy_chunked_entries.py), so those answers differ by design."""
    return {k: v for k, v in answers.items() if not k.startswith("nodes ")}


def chunk_files(files: dict[str, list[str]]) -> dict[str, list[str]]:
    """The chunks index's part of `index_files`: from layout 8 the graph's postings lack the bodies chunks hold."""
    return {k: v for k, v in files.items() if k.startswith("chunks/")}
