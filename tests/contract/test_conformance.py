"""The project's contract tests: the conformance kit over every bundled adapter, one test per check."""

from memdock.registry import Registry
from memdock.testing import conformance_tests

REGISTRY = Registry(use_entry_points=False)
BUNDLED = sorted(REGISTRY.discover())
SKIP = {"graphiti": "graphiti needs an LLM endpoint; its kit run is tests/graphiti/test_graphiti_kit.py (MEMDOCK_IT_GRAPHITI=1)"}
MUST_RUN = ("handshake", "bad_payload", "stdout_clean", "secrets_never_leak")

for _name in BUNDLED:
    globals()[f"TestKit_{_name.replace('-', '_')}"] = conformance_tests(
        _name, registry=REGISTRY, idle=30, timeout=120, must_run=MUST_RUN, skip=SKIP.get(_name), skip_unavailable=True)


def test_bundled_adapters_are_found():
    assert {"null", "sqlite", "node-grep", "graphiti"} <= set(BUNDLED)
