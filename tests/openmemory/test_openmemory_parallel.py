"""OpenMemory takes parallel writers (a server): the fixture threads sent as three shards at once leave the server
holding what a serial run leaves, each entry once."""

from pathlib import Path

from fake_openmemory import FakeOpenMemory
from openmemory_support import backend, gate

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = gate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


def test_three_shards_at_once_leave_what_a_serial_run_leaves(tmp_path):
    import_corpus(sorted(FIXTURES.glob("*.md")), "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    held = {}
    for name, parallel in (("serial", 1), ("parallel", 3)):
        with FakeOpenMemory() as server:
            result = backend(tmp_path / name, {"server_url": server.url}).index(tmp_path / "chunks", parallel=parallel)
            held[name] = sorted((m["metadata_"]["md_entry_id"], m["content"]) for m in server.active())
        if parallel > 1:
            assert result.details["parallel"] == {"mode": "shared", "shards": 3, "failed": 0}
    entry_ids = [entry for entry, _ in held["parallel"]]
    assert held["parallel"] == held["serial"] and len(entry_ids) > 3
