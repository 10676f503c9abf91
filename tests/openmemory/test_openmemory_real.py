"""Against the real OpenMemory server, run offline from its own code (see real_server.py for what it needs):
the conformance kit, and extraction by the server's mem0 with every memory it made recorded and deleted."""

import json
import os
import urllib.request

import pytest
from openmemory_support import backend, gate
from support.entry_bundles import write_bundle

from memdock.conformance import KitOptions, run_kit

REAL = os.environ.get("MEMDOCK_IT_OPENMEMORY_REAL") == "1"
pytestmark = [
    *gate,
    pytest.mark.timeout(1800),
    pytest.mark.skipif(
        not REAL,
        reason="the real OpenMemory server: set MEMDOCK_IT_OPENMEMORY_REAL=1, MEMDOCK_OPENMEMORY_API_DIR and "
        "MEMDOCK_OPENMEMORY_PYTHON (see tests/openmemory/real_server.py)",
    ),
]

TEXTS = [
    "Ana ordered Quartz sensors for the greenhouse. They arrive on Friday.",
    "Bo calibrated the Quartz sensors against the Vaisala reference.",
    "Chen replaced the greenhouse vents with Danfoss actuators. Bo logged humidity spikes near them.",
]


@pytest.fixture
def real(tmp_path):
    from real_server import RealOpenMemory, stand_in
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=stand_in(), dim=1536) as llm:
        server = RealOpenMemory(tmp_path / "openmemory", llm.base_url)
        try:
            yield server
        finally:
            server.close()


def server_memories(url: str, user: str) -> list[dict]:
    req = urllib.request.Request(
        url + "/api/v1/memories/filter",
        method="POST",
        headers={"Content-Type": "application/json"},
        data=json.dumps({"user_id": user, "page": 1, "size": 100}).encode(),
    )
    return json.loads(urllib.request.urlopen(req, timeout=60).read())["items"]


def test_the_kit_against_the_real_server(real):
    from real_server import USER

    report = run_kit(
        "openmemory",
        KitOptions(config={"server_url": real.url, "user_id": USER}, timeout=300, idle=120, resume_filler=40),
    )
    lines = "\n".join(f"{r.name}: {r.status} ({r.seconds:.1f}s) {r.detail}" for r in report.results)
    print(lines)
    assert report.ok, lines


def test_server_extraction_is_recorded_whole_and_deleted_whole(tmp_path, real):
    from real_server import USER

    b = backend(tmp_path / "store", {"server_url": real.url, "user_id": USER, "infer": True})
    result = b.index(write_bundle(tmp_path / "b", TEXTS))
    on_server = server_memories(real.url, USER)
    assert result.details["memories_added"] == len(on_server) > len(TEXTS), (
        "the create route returns one; all are recorded"
    )
    assert {m["metadata_"]["md_entry_id"] for m in on_server} == {f"entry:gh-{i}" for i in range(len(TEXTS))}
    hits = b.call("query", {"text": "Danfoss actuators humidity", "limit": 5})["hits"]
    assert hits and hits[0]["provenance"]["entry_id"] == "entry:gh-2"
    b.delete(["entry:gh-2"])
    assert {m["metadata_"]["md_entry_id"] for m in server_memories(real.url, USER)} == {"entry:gh-0", "entry:gh-1"}
    b.delete(["thread:greenhouse"])
    assert server_memories(real.url, USER) == []
