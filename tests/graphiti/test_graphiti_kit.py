"""The conformance kit over the graphiti adapter, on a local FalkorDB it starts itself."""


from memdock.conformance import KitOptions, run_kit

from graphiti_support import descriptor, gate, model_config

pytestmark = gate


def test_graphiti_passes_the_kit(llm):
    report = run_kit(descriptor(), KitOptions(config=model_config(llm.base_url), timeout=300, idle=120, resume_filler=24))
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    skipped = [r.name for r in report.results if r.status == "skip"]
    assert skipped == [], lines
