"""A smoke test on real watercooler threads through a worker: index with extraction, then find memories and
episodes with their entry ids, filtered by thread, author, entry type and time."""

import pytest
from mem0_support import SHARED_DATA, backend, chat_calls, gate, model_config

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = gate

THREADS = ["project/dotwatercooler__codex-validation.md", "project/dotwatercooler__agent-ux-test.md"]
VALIDATION = "thread:dotwatercooler__codex-validation:0e55a1a9"


@pytest.fixture(scope="module")
def watercooler(tmp_path_factory):
    folder = SHARED_DATA / "watercooler_threads"
    if not folder.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA} (set MEMDOCK_SHARED_DATA)")
    root = tmp_path_factory.mktemp("watercooler")
    import_corpus([folder / t for t in THREADS], "watercooler", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    return root / "chunks"


@pytest.fixture(scope="module")
def indexed(watercooler, tmp_path_factory):
    from fake_mem0_llm import MemoryExtractor
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback(chat=MemoryExtractor()) as llm:
        b = backend(tmp_path_factory.mktemp("mem0-smoke"), model_config(llm.base_url), workers=1)
        events = []
        result = b.index(watercooler, progress=events.append)
        yield b, result, events, llm
        b.close()


def test_every_entry_is_added_with_one_llm_call(indexed):
    _, result, events, llm = indexed
    d = result.details
    assert d["entries_added"] == 8 and d["entries_replaced"] == 0 and d["memories_added"] >= 8
    assert d["calls"]["llm"]["calls"] == 8 == chat_calls(llm), (
        "one extraction call per entry, counted at the stand-in too"
    )
    per_entry = [e for e in events if "memories in" in (e.get("message") or "")]
    assert len(per_entry) == 8 and per_entry[-1]["done"] == per_entry[-1]["total"]


def test_memories_carry_their_entry_and_thread(indexed):
    b, *_ = indexed
    hits = b.call("query", {"text": "validation thread set_status transitions", "limit": 5})["hits"]
    assert hits and all(h["kind"] == "node" and h["backend"] == "mem0" for h in hits)
    for h in hits:
        assert h["provenance"]["entry_id"].startswith("entry:") and h["provenance"]["thread_id"].startswith("thread:")
        assert 0.0 <= h["score"] <= 1.0 and h["extra"]["user_id"] == "memdock"
        assert h["extra"]["run_id"] == h["provenance"]["thread_id"]
    node = b.get_node(hits[0]["id"]).item
    assert node is not None and node.text == hits[0]["text"]
    assert [e["event"] for e in node.extra["history"]] == ["ADD"]
    episode = b.get_node(hits[0]["provenance"]["entry_id"]).item
    assert episode.kind == "episode" and hits[0]["id"] in episode.extra["memory_ids"]


def test_episodes_are_the_source_entries(indexed):
    b, *_ = indexed
    hits = b.call("search_episodes", {"text": "agent ux test", "limit": 3})["hits"]
    assert hits and all(h["kind"] == "episode" for h in hits)
    assert hits[0]["id"] == hits[0]["provenance"]["entry_id"] and hits[0]["text"].startswith("Team (agent): ")
    assert len({h["id"] for h in hits}) == len(hits)


def test_filters_reach_mem0(indexed):
    b, *_ = indexed
    everything = b.query("codex agent status", limit=50).hits
    assert {h.provenance["thread_id"] for h in everything} == {
        VALIDATION,
        "thread:dotwatercooler__agent-ux-test:44f41ca6",
    }
    only = b.query("codex agent status", limit=50, filters={"thread_ids": [VALIDATION]}).hits
    assert only and {h.provenance["thread_id"] for h in only} == {VALIDATION}
    claude = b.query("codex agent status", limit=50, filters={"authors": ["claude"]}).hits
    assert claude and {h.extra["author"] for h in claude} == {"Claude (agent)"}
    closures = b.query("codex agent status", limit=50, filters={"entry_types": ["Closure"]}).hits
    assert closures and {h.extra["entry_type"] for h in closures} == {"closure"}
    late = b.query(
        "codex agent status", limit=50, filters={"time_from": "2025-10-08T00:00:00Z", "time_to": "2025-10-09T00:00:00Z"}
    ).hits
    assert late and all(h.event_time.startswith("2025-10-08") for h in late)
    assert b.query("codex agent status", limit=50, filters={"authors": ["nobody-by-this-name"]}).hits == []
