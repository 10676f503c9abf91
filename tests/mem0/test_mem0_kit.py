"""The conformance kit over the mem0 adapter, with infer on (the stand-in LLM extracts) and off (raw memories)."""

import pytest
from mem0_support import descriptor, gate, model_config

from memdock.conformance import KitOptions, run_kit

pytestmark = gate


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("infer", [True, False])
def test_mem0_passes_the_kit(llm, infer):
    report = run_kit(
        descriptor(),
        KitOptions(config=model_config(llm.base_url, infer=infer), timeout=300, idle=120, resume_filler=24),
    )
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    assert [r.name for r in report.results if r.status == "skip"] == ["input_stream", "metadata_filter"], lines
