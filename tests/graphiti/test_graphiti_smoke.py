"""A smoke test on real watercooler threads: index, then find what was indexed by facts, nodes and episodes.

Runs against the loopback LLM, or against a real endpoint when MEMDOCK_IT_LLM_BASE_URL and
MEMDOCK_IT_LLM_MODEL are set (its key from MEMDOCK_GRAPHITI_LLM_API_KEY).
"""

import pytest
from graphiti_support import REAL_LLM, SHARED_DATA, backend, gate, model_config, servers_under

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = gate

THREADS = ["project/dotwatercooler__codex-validation.md", "project/dotwatercooler__agent-ux-test.md"]


@pytest.fixture(scope="module")
def watercooler(tmp_path_factory):
    folder = SHARED_DATA / "watercooler_threads"
    if not folder.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA}")
    root = tmp_path_factory.mktemp("watercooler")
    import_corpus([folder / t for t in THREADS], "watercooler", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    return root / "chunks"


@pytest.fixture(scope="module")
def indexed(watercooler, llm, tmp_path_factory):
    store = tmp_path_factory.mktemp("graphiti-smoke")
    events = []
    b = backend(store, model_config(llm.base_url), workers=1)
    result = b.index(watercooler, progress=events.append)
    yield b, result, events, store
    b.close()


def test_index_reports_episodes_and_time_split(indexed):
    _, result, events, _ = indexed
    details = result.details
    assert details["episodes_added"] >= 8
    timing = details["time"]
    assert timing["llm_calls"] > 0 and timing["embedding_calls"] > 0 and timing["database_calls"] > 0
    assert timing["llm_s"] > 0 and timing["database_s"] > 0
    per_episode = [e for e in events if "entities" in (e.get("message") or "")]
    assert len(per_episode) == details["episodes_added"]
    assert per_episode[-1]["done"] == per_episode[-1]["total"]


def test_episodes_are_found_with_their_entries(indexed):
    b, *_ = indexed
    hits = b.call("search_episodes", {"text": "validation thread set_status transitions", "limit": 5}).get("hits")
    assert hits, "no episode found"
    top = hits[0]
    assert top["kind"] == "episode" and top["provenance"]["entry_id"].startswith("entry:")
    assert top["provenance"]["thread_id"].startswith("thread:")
    assert {"uuid", "group_id", "valid_at"} <= set(top["extra"])
    assert top["extra"]["group_id"].startswith("md_")
    assert 0.0 <= top["score"] <= 1.0


@pytest.mark.skipif(bool(REAL_LLM[0]), reason="exact entity names depend on the loopback LLM")
def test_facts_and_nodes_come_from_the_indexed_text(indexed):
    b, *_ = indexed
    facts = b.call("search_facts", {"text": "Codex Claude handoff", "limit": 5})["hits"]
    assert facts and all(f["kind"] == "fact" for f in facts)
    assert any("Codex" in f["text"] for f in facts)
    assert facts[0]["provenance"]["entry_id"].startswith("entry:")
    assert {"valid_at", "group_id", "uuid"} <= set(facts[0]["extra"])
    nodes = b.call("search_nodes", {"text": "Claude", "limit": 5})["hits"]
    assert any(n["name"] == "Claude" for n in nodes)
    node = b.get_node(nodes[0]["id"]).item
    assert node is not None and node.extra["edges"], "get_node returns the entity with its facts"
    edge = b.call("get_edge", {"id": facts[0]["id"]})["item"]
    assert edge["text"] == facts[0]["text"]


def test_query_mixes_kinds_and_filters_by_thread(indexed):
    b, *_ = indexed
    hits = b.query("handoff validation", limit=10).hits
    assert {h.kind for h in hits} >= {"episode", "fact"}
    thread = hits[0].provenance["thread_id"]
    only = b.query("handoff validation", limit=10, filters={"thread_ids": [thread]}).hits
    assert only and all(h.provenance.get("thread_id", thread) == thread for h in only)
    none = b.query("handoff validation", limit=10, filters={"authors": ["nobody-by-this-name"]}).hits
    assert [h for h in none if h.kind != "node"] == []


def test_data_persists_in_the_data_dir_and_no_server_outlives_a_call(indexed, llm):
    _, _, _, store = indexed
    one_shot = backend(store, model_config(llm.base_url))
    hits = one_shot.call("search_episodes", {"text": "handoff", "limit": 3}, use_pool=False)["hits"]
    assert hits, "a new process (and a new FalkorDB on the same files) finds what the worker indexed"
    # the module's worker still holds its server; the one-shot call attached to it and started none of its own
    assert len(servers_under(store)) == 1
