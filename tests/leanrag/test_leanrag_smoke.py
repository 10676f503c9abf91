"""A smoke test on real watercooler threads: index through memdock, find what was indexed as nodes, facts,
communities and episodes with our ids as provenance, filter, and re-index without asking the model again."""

import sqlite3

import pytest
from leanrag_support import SHARED_DATA, backend, gate, model_config

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

pytestmark = [*gate, pytest.mark.timeout(3600)]

THREADS = ["project/dotwatercooler__codex-validation.md", "project/dotwatercooler__agent-ux-test.md"]


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
def stand_in():
    from leanrag_fake_llm import FakeLLM
    from support.openai_loopback import OpenAILoopback

    fake = FakeLLM()
    with OpenAILoopback(chat=fake) as server:
        yield fake, server


@pytest.fixture(scope="module")
def indexed(watercooler, stand_in, tmp_path_factory):
    fake, server = stand_in
    store = tmp_path_factory.mktemp("leanrag-smoke")
    events = []
    b = backend(store, model_config(server.base_url), workers=1)
    result = b.index(watercooler, progress=events.append)
    yield b, result, events, store, watercooler
    b.close()


def _bundle_ids(bundle, rtype):
    from memdock.bundle import BundleReader

    return {r["id"] for r in BundleReader(bundle).records(rtype)}


def test_index_reports_chunks_layers_and_a_time_split(indexed, stand_in):
    fake, _ = stand_in
    _, result, events, _, bundle = indexed
    d = result.details
    chunks = len(_bundle_ids(bundle, "chunk"))
    assert d["chunks_extracted"] == chunks and d["llm_calls_per_chunk"] == 4  # entities, glean, relations, glean
    assert fake.calls["entities"] == fake.calls["relations"] == chunks and fake.calls["glean"] == 2 * chunks
    assert d["graph"]["entities"] > 0 and d["graph"]["layers"] >= 2 and d["graph"]["communities"] >= 1
    t = d["time"]
    assert (
        t["llm_calls"] >= 4 * chunks
        and t["llm_s"] > 0
        and t["embedding_s"] > 0
        and "clustering_s" in t
        and "store_s" in t
    )
    per_chunk = [e for e in events if "LLM calls in" in (e.get("message") or "")]
    assert len(per_chunk) == chunks and per_chunk[-1]["done"] == per_chunk[-1]["total"] == chunks
    assert any("clustering layer 0" in (e.get("message") or "") for e in events)


def test_hits_have_every_kind_and_point_back_to_indexed_entries(indexed):
    b, _, _, _, bundle = indexed
    entries, threads = _bundle_ids(bundle, "entry"), _bundle_ids(bundle, "thread")
    hits = b.query("codex validation status transitions", limit=20).hits
    assert {"node", "episode", "fact"} <= {h.kind for h in hits}
    for h in hits:
        assert h.provenance["entry_id"] in entries and h.provenance["thread_id"] in threads
        assert 0.0 <= h.score <= 1.0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    nodes = b.call("search_nodes", {"text": "validation", "limit": 5})["hits"]
    assert nodes and all(n["id"].startswith("leanrag:node:") for n in nodes)
    entity = next(n for n in nodes if n["kind"] == "node")
    node = b.get_node(entity["id"]).item
    assert node is not None and node.name == entity["name"] and node.extra["level"] == 0
    assert node.extra["parent"], "an extracted entity sits under an aggregate"
    linked = [b.get_node(n["id"]).item for n in b.call("search_nodes", {"text": "validation", "limit": 20})["hits"]]
    assert any(n.extra["edges"] for n in linked if n.kind == "node"), "entities come with their relations"
    facts = b.call("search_facts", {"text": "validation", "limit": 5})["hits"]
    assert facts and all(f["kind"] == "fact" and f["provenance"]["entry_id"] in entries for f in facts)
    edge = b.call("get_edge", {"id": facts[0]["id"]})["item"]
    assert edge["text"] == facts[0]["text"]
    episodes = b.call("search_episodes", {"text": "validation", "limit": 3})["hits"]
    assert episodes and b.get_node(episodes[0]["id"]).item.text == episodes[0]["text"]


def test_filters_apply_to_source_chunks(indexed):
    b, *_ = indexed
    hits = b.query("agent test status", limit=20).hits
    thread = hits[0].provenance["thread_id"]
    only = b.query("agent test status", limit=20, filters={"thread_ids": [thread]}).hits
    assert only and all(thread in h.extra["thread_ids"] for h in only)
    assert b.query("agent test status", limit=20, filters={"authors": ["nobody-by-this-name"]}).hits == []
    assert b.query("agent test status", limit=20, filters={"time_to": "1999-01-01T00:00:00Z"}).hits == []


def test_reindexing_unchanged_content_asks_the_model_nothing(indexed, stand_in):
    fake, _ = stand_in
    b, _, _, store, bundle = indexed
    before = sum(fake.calls.values())
    again = b.index(bundle)
    assert again.skipped > 0 and sum(again.details.get("sent", {}).values()) == 0
    # the adapter's own check, with the core's ledger out of the way: the whole bundle sent again
    raw = b.call("index", {"bundle": str(bundle)}, use_pool=False)
    assert raw["details"]["chunks_extracted"] == 0 and str(raw["details"]["graph"]).startswith("unchanged")
    assert sum(fake.calls.values()) == before
    catalog = sqlite3.connect(next(store.rglob("catalog.sqlite")))
    assert catalog.execute("SELECT count(*) FROM extractions").fetchone()[0] == len(_bundle_ids(bundle, "chunk"))
