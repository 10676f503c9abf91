"""The conformance kit over the OpenMemory adapter, against the loopback server, with and without the server's
extraction."""

import pytest
from openmemory_support import gate

from memdock.conformance import KitOptions, run_kit

pytestmark = gate


@pytest.mark.timeout(900)
@pytest.mark.parametrize("infer", [False, True])
def test_openmemory_passes_the_kit(server, infer):
    report = run_kit(
        "openmemory",
        KitOptions(config={"server_url": server.url, "infer": infer}, timeout=120, idle=60, resume_filler=200),
    )
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines
    assert [r.name for r in report.results if r.status == "skip"] == ["input_stream", "metadata_filter"], lines
