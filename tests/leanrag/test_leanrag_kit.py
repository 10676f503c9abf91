"""The conformance kit over the LeanRAG adapter, with the loopback LLM and the local MiniLM embedder."""

import pytest
from leanrag_support import descriptor, gate, model_config

from memdock.conformance import KitOptions, run_kit

pytestmark = [*gate, pytest.mark.timeout(5400)]


def test_leanrag_passes_the_kit(llm):
    report = run_kit(
        descriptor(), KitOptions(config=model_config(llm.base_url), timeout=1800, idle=900, resume_filler=6)
    )
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    skipped = [r.name for r in report.results if r.status == "skip"]
    assert skipped == ["input_stream", "metadata_filter"], lines
