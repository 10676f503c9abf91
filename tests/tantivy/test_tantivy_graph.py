"""search_nodes, search_facts, search_episodes, get_node, get_edge, and cascading delete."""

from tantivy_support import gate

pytestmark = gate


def test_search_nodes_finds_threads_entries_and_entities(indexed):
    hits = indexed.search_nodes("onboarding", limit=10).hits
    assert {"thread", "node"} <= {h.kind for h in hits}
    entity = next(h for h in hits if h.kind == "node")
    assert entity.name == "docs/onboarding.md" and entity.extra["entity_type"] == "file"


def test_search_nodes_scoped_to_groups(indexed):
    thread = indexed.search_nodes("release", limit=1).hits[0].provenance["thread_id"]
    scoped = indexed.search_nodes("Claude", limit=20, group_ids=[thread]).hits
    assert scoped and all(h.provenance.get("thread_id", thread) == thread for h in scoped)
    words = "release cache onboarding staging"
    everywhere = {h.provenance.get("thread_id") for h in indexed.search_nodes(words, limit=50).hits}
    assert len(everywhere - {None}) > 1
    assert {h.provenance.get("thread_id") for h in indexed.search_nodes(words, limit=50, group_ids=[thread]).hits} <= {
        thread,
        None,
    }


def test_search_episodes_returns_entries_only(indexed):
    hits = indexed.search_episodes("staging approval", limit=5).hits
    assert hits and {h.kind for h in hits} == {"episode"}
    assert hits[0].name == "Staging accounts take too long"
    assert hits[0].provenance["entry_id"] == hits[0].id


def test_facts_are_the_sqlite_sentences(indexed):
    facts = indexed.search_facts("mentions file migrate_v2", limit=5).hits
    assert facts and facts[0].kind == "fact"
    assert (
        facts[0].text
        == 'Claude (maya)\'s plan "Cut the 2.0 release in two phases" mentions file tools/migrate_v2.py (on 2026-03-02)'
    )
    assert facts[0].provenance["entry_id"] == facts[0].extra["source_id"]
    edge = indexed.get_edge(facts[0].id).item
    assert edge.text == facts[0].text and edge.extra["type"] == "mentions"


def test_get_node_returns_the_record_and_its_edges(indexed):
    entry = indexed.search_episodes("jittered expiry", limit=1).hits[0]
    node = indexed.get_node(entry.id).item
    assert node.kind == "entry" and node.name == "Jittered expiry everywhere"
    assert {"contains", "follows", "mentions"} <= {e["type"] for e in node.extra["edges"]}
    assert indexed.get_node("entity:nope").item is None
    assert indexed.get_edge("edge:nope").item is None
    assert indexed.get_edge(entry.id).item is None, "an entry is not an edge"


def test_delete_entry_cascades_to_chunks_edges_and_orphan_entities(fresh_index):
    b = fresh_index
    entry = b.search_episodes("migration script idempotent", limit=1).hits[0]
    chunk_ids = [
        h.id for h in b.query("migration script idempotent", limit=20).hits if h.provenance["entry_id"] == entry.id
    ]
    edges = [e["edge_id"] for e in b.get_node(entry.id).item.extra["edges"]]
    migrate_file = next(e["other_id"] for e in b.get_node(entry.id).item.extra["edges"] if "migrate_v2" in e["fact"])
    assert chunk_ids and edges

    result = b.delete([entry.id, "entry:not-there"])
    assert entry.id in result.deleted and set(chunk_ids) <= set(result.deleted) and set(edges) <= set(result.deleted)
    assert migrate_file in result.deleted, "tools/migrate_v2.py was mentioned only by the deleted entry"
    assert result.cascaded == len(result.deleted) - 1 and result.not_found == ["entry:not-there"]
    assert b.get_node(entry.id).item is None and b.get_node(migrate_file).item is None
    assert all(b.get_edge(e).item is None for e in edges)
    assert not [
        h for h in b.query("migration script idempotent", limit=20).hits if h.provenance["entry_id"] == entry.id
    ]
    assert b.search_nodes("maya", limit=5).hits, "people mentioned elsewhere survive"


def test_delete_thread_takes_everything_in_it(fresh_index):
    b = fresh_index
    thread = b.search_nodes("onboarding", limit=10).hits
    thread_id = next(h.id for h in thread if h.kind == "thread")
    inside = [h.id for h in b.query("the", limit=50, filters={"thread_ids": [thread_id]}).hits]
    assert inside
    threads_before = b.healthcheck().checks["thread"]
    result = b.delete([thread_id])
    assert thread_id in result.deleted and set(inside) <= set(result.deleted)
    assert b.query("the", limit=50, filters={"thread_ids": [thread_id]}).hits == []
    assert b.search_facts("onboarding", limit=50, group_ids=[thread_id]).hits == []
    assert b.healthcheck().checks["thread"] == threads_before - 1
