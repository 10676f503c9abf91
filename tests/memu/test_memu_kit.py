"""The conformance kit over the MemU adapter, its LLM and embedder the loopback stand-in."""

import pytest
from memu_support import descriptor, gate, model_config

from memdock.conformance import KitOptions, run_kit

pytestmark = gate


@pytest.mark.timeout(2400)
def test_memu_passes_the_kit(llm):
    report = run_kit(
        descriptor(), KitOptions(config=model_config(llm.base_url), timeout=300, idle=120, resume_filler=24)
    )
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    assert [r.name for r in report.results if r.status == "skip"] == ["input_stream", "metadata_filter"], lines
