"""Against the loopback OpenMemory: watercooler entries found with their ids and filtered; a killed run resumed
with nothing doubled on the server; unchanged entries sent nowhere; changes replace; deletes cascade."""

import pytest
from openmemory_support import backend, gate
from support.entry_bundles import GREENHOUSE as TEXTS
from support.entry_bundles import SHARED_DATA, index_killed_after_three, write_bundle

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = gate


THREADS = ["project/dotwatercooler__codex-validation.md", "project/dotwatercooler__agent-ux-test.md"]
VALIDATION = "thread:dotwatercooler__codex-validation:0e55a1a9"


def contents(server):
    return sorted(m["content"] for m in server.active())


def test_kill_resume_reindex_change_delete(tmp_path, server):
    bundle = write_bundle(tmp_path / "b1", TEXTS)
    b = backend(tmp_path / "store", {"server_url": server.url})
    assert index_killed_after_three(b, bundle) == ["entry:gh-0", "entry:gh-1", "entry:gh-2"]
    assert len(server.active()) - 3 in (0, 1), "at most the entry in flight when the kill landed"

    resumed = b.index(bundle)
    assert resumed.skipped >= 3 * 2 + 1
    assert contents(server) == sorted(f"ops: {t}" for t in TEXTS), "every entry once on the server, nothing doubled"
    for m in server.active():
        assert m["metadata_"]["md_entry_id"].startswith("entry:gh-") and m["app_name"] == "memdock"

    creates = server.creates()
    again = b.call("index", {"bundle": str(bundle)})  # straight to the adapter, bypassing the core's ledger
    assert again["details"]["entries_unchanged"] == len(TEXTS) and server.creates() == creates, "nothing re-sent"

    changed = write_bundle(
        tmp_path / "b2", TEXTS[:5] + ["Zephyrine donated the Marigold seeds to the Ostrava library."]
    )
    assert b.index(changed).details["entries_replaced"] == 1
    assert len(server.active()) == len(TEXTS) and not any("archived" in c for c in contents(server))
    top = b.call("search_nodes", {"text": "Ostrava library", "limit": 1})["hits"][0]
    assert "Ostrava" in top["text"] and top["provenance"] == {
        "thread_id": "thread:greenhouse",
        "entry_id": "entry:gh-5",
    }
    assert top["score"] == 1.0

    gone = b.delete(["entry:gh-3"])
    assert set(gone.deleted) == {"entry:gh-3", "chunk:gh-3"} and gone.cascaded == 1
    assert not any("Chen" in c for c in contents(server)) and b.get_node("entry:gh-3").item is None
    thread = b.delete(["thread:greenhouse"])
    assert "entry:gh-0" in thread.deleted and server.active() == []


def test_watercooler_entries_with_provenance_and_filters(tmp_path, server):
    folder = SHARED_DATA / "watercooler_threads"
    if not folder.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA} (set MEMDOCK_SHARED_DATA)")
    import_corpus([folder / t for t in THREADS], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    b = backend(tmp_path / "store", {"server_url": server.url, "infer": True}, workers=1)
    try:
        result = b.index(tmp_path / "chunks")
        assert result.details["entries_added"] == 8
        assert result.details["memories_added"] == len(server.active()) > 8, "every memory the server made is recorded"
        hits = b.query("codex validation status", limit=20).hits
        assert hits and all(h.provenance["entry_id"].startswith("entry:") for h in hits)
        assert hits[0].score >= hits[-1].score and 0 < hits[-1].score <= 1
        only = b.query("codex validation status", limit=20, filters={"thread_ids": [VALIDATION]}).hits
        assert only and {h.provenance["thread_id"] for h in only} == {VALIDATION}
        claude = b.query("codex validation status agent", limit=20, filters={"authors": ["claude"]}).hits
        assert claude and {h.extra["author"] for h in claude} == {"Claude (agent)"}
        late = b.query("codex validation status", limit=20, filters={"time_from": "2025-10-08T00:00:00Z"}).hits
        assert late and all(h.event_time >= "2025-10-08" for h in late)
        episodes = b.call("search_episodes", {"text": "agent ux test", "limit": 3})["hits"]
        assert episodes and episodes[0]["id"] == episodes[0]["provenance"]["entry_id"]
        node = b.get_node(hits[0].id).item
        assert node is not None and node.text == hits[0].text
    finally:
        b.close()
