"""The project's contract tests: the conformance kit over every bundled adapter, one test per check."""

import os
import shutil

import pytest

from memdock.conformance import KitOptions, run_kit
from memdock.conformance.kit import check_names
from memdock.registry import Registry
from memdock.runner import landlock
from memdock.testing import conformance_tests

REGISTRY = Registry(use_entry_points=False)
BUNDLED = sorted(REGISTRY.discover())
SKIP = {  # adapters that need a model endpoint or a server: their kit runs are in their own gated tests
    "graphiti": "graphiti needs an LLM endpoint; its kit run is tests/graphiti/test_graphiti_kit.py "
    "(MEMDOCK_IT_GRAPHITI=1)",
    "mem0": "mem0 needs an LLM and embedding endpoint; its kit run is tests/mem0/test_mem0_kit.py (MEMDOCK_IT_MEM0=1)",
    "openmemory": "openmemory needs a server; its kit run is tests/openmemory/test_openmemory_kit.py "
    "(MEMDOCK_IT_OPENMEMORY=1)",
    "memu": "memu needs an LLM and embedding endpoint; its kit run is tests/memu/test_memu_kit.py (MEMDOCK_IT_MEMU=1)",
    "postgres": "postgres needs a Postgres server; its kit run is tests/postgres/test_postgres_kit.py "
    "(MEMDOCK_IT_POSTGRES=1)",
    "leanrag": "leanrag needs a LeanRAG checkout and an LLM endpoint; its kit run is tests/leanrag/test_leanrag_kit.py "
    "(MEMDOCK_IT_LEANRAG=1)",
}
MUST_RUN = ("handshake", "bad_payload", "stdout_clean", "secrets_never_leak")
# Adapters with requirements of their own run when their flag is set, and must then run every check.
GATED = {"tantivy": "MEMDOCK_IT_TANTIVY"}
# A check of a feature the adapter does not declare is skipped by the kit, by design; tantivy stores no metadata.
UNDECLARED = {"tantivy": {"metadata_filter"}}

for _name in BUNDLED:
    _flag = GATED.get(_name)
    _gated_off = _flag is not None and os.environ.get(_flag) != "1"
    globals()[f"TestKit_{_name.replace('-', '_')}"] = conformance_tests(
        _name,
        registry=REGISTRY,
        idle=30,
        timeout=120,
        must_run=[c for c in check_names() if c not in UNDECLARED.get(_name, ())] if _flag else MUST_RUN,
        skip=(
            f"{_name} has its own requirements: set {_flag}=1 after `memdock adapters install {_name}`"
            if _gated_off
            else SKIP.get(_name)
        ),
        skip_unavailable=_flag is None,
    )


@pytest.mark.skipif(
    landlock.abi_version() < 1, reason="this kernel offers no Landlock, so the strict sandbox refuses to run"
)
@pytest.mark.parametrize("adapter", ["null", "sqlite", "node-grep"])
def test_bundled_adapter_passes_the_kit_under_the_strict_sandbox(adapter):
    """With reads confined to the allowlist (--sandbox strict), the whole kit still passes."""
    if Registry(use_entry_points=False).get(adapter).runtime["kind"] == "node" and not shutil.which("node"):
        pytest.skip("Node.js is not installed")
    report = run_kit(adapter, KitOptions(idle=30, timeout=120, sandbox="strict"))
    lines = [f"{r.name}: {r.status} {r.detail}" for r in report.results]
    assert report.ok, "\n".join(lines)
    assert report.sandbox.startswith("available")
    assert report.status_of("handshake") == "pass"


def test_bundled_adapters_are_found():
    assert {"null", "sqlite", "node-grep", "graphiti", "tantivy", "mem0", "openmemory", "leanrag"} <= set(BUNDLED)
