"""The project's contract tests: the conformance kit over every bundled adapter."""

import shutil

import pytest

from memdock.conformance import KitOptions, run_kit
from memdock.registry import Registry

BUNDLED = sorted(Registry(use_entry_points=False).discover())


@pytest.mark.parametrize("adapter", BUNDLED)
def test_bundled_adapter_passes_the_kit(adapter):
    d = Registry(use_entry_points=False).get(adapter)
    if d.runtime["kind"] == "node" and not shutil.which("node"):
        pytest.skip("Node.js is not installed")
    if adapter == "graphiti":
        pytest.skip("graphiti needs an LLM endpoint; its kit run is tests/graphiti/test_graphiti_kit.py (MEMDOCK_IT_GRAPHITI=1)")
    if adapter == "leanrag":
        pytest.skip("leanrag needs a LeanRAG checkout and an LLM endpoint; its kit run is tests/leanrag/test_leanrag_kit.py "
                    "(MEMDOCK_IT_LEANRAG=1)")
    if d.runtime.get("requirements") and not d.venv.exists():
        pytest.skip(f"{adapter} has its own requirements; install it with: memdock adapters install {adapter}")
    report = run_kit(adapter, KitOptions(idle=30, timeout=120))
    lines = [f"{r.name}: {r.status} {r.detail}" for r in report.results]
    assert report.ok, "\n".join(lines)
    assert report.status_of("handshake") == "pass"
    assert report.status_of("bad_payload") == "pass"
    assert report.status_of("stdout_clean") == "pass"


def test_bundled_adapters_are_found():
    assert {"null", "node-grep"} <= set(BUNDLED)
