"""The project's contract tests: the conformance kit over every bundled adapter."""

import os
import shutil

import pytest

from memdock.conformance import KitOptions, run_kit
from memdock.registry import Registry

BUNDLED = sorted(Registry(use_entry_points=False).discover())
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # where `memdock adapters install` put adapter venvs; read before tests isolate it
TANTIVY_GATE = [pytest.mark.integration_tantivy,
                pytest.mark.skipif(os.environ.get("MEMDOCK_IT_TANTIVY") != "1",
                                   reason="tantivy has its own requirements: set MEMDOCK_IT_TANTIVY=1 after "
                                          "`memdock adapters install tantivy`")]
GATED = {"tantivy": TANTIVY_GATE}


@pytest.mark.parametrize("adapter", [pytest.param(a, marks=GATED.get(a, [])) for a in BUNDLED])
def test_bundled_adapter_passes_the_kit(adapter, monkeypatch):
    if adapter in GATED:
        if REAL_HOME:
            monkeypatch.setenv("MEMDOCK_HOME", REAL_HOME)
        d = Registry(use_entry_points=False).get(adapter)
        if not d.venv.exists():
            pytest.fail(f"MEMDOCK_IT_{adapter.upper()}=1 but {adapter} is not installed ({d.venv}); "
                        f"run: memdock adapters install {adapter}")
    d = Registry(use_entry_points=False).get(adapter)
    if d.runtime["kind"] == "node" and not shutil.which("node"):
        pytest.skip("Node.js is not installed")
    if adapter == "graphiti":
        pytest.skip("graphiti needs an LLM endpoint; its kit run is tests/graphiti/test_graphiti_kit.py (MEMDOCK_IT_GRAPHITI=1)")
    if d.runtime.get("requirements") and not d.venv.exists():
        pytest.skip(f"{adapter} has its own requirements; install it with: memdock adapters install {adapter}")
    report = run_kit(adapter, KitOptions(idle=30, timeout=120))
    lines = [f"{r.name}: {r.status} {r.detail}" for r in report.results]
    assert report.ok, "\n".join(lines)
    assert report.status_of("handshake") == "pass"
    assert report.status_of("bad_payload") == "pass"
    assert report.status_of("stdout_clean") == "pass"
    if adapter in GATED:
        assert not [r.name for r in report.results if r.status == "skip"], "\n".join(lines)


def test_bundled_adapters_are_found():
    assert {"null", "node-grep", "tantivy"} <= set(BUNDLED)
