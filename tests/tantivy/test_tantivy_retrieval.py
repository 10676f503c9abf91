"""Ranking, scores, filters and hostile query text, through the real runner and a worker."""

import pytest
from tantivy_support import gate

from memdock.errors import InvalidInputError

pytestmark = gate


def test_bm25_finds_the_entry_and_keeps_provenance(indexed):
    result = indexed.query("thundering herd after the cache stampede", limit=3)
    top = result.hits[0]
    assert top.kind == "chunk" and top.backend == "tantivy"
    assert "Cache stampede at 02:00" in top.text.split("\n", 1)[0]
    assert top.provenance["thread_id"].startswith("thread:incident-cache")
    assert top.provenance["entry_id"].startswith("entry:") and top.provenance["chunk_id"] == top.id
    assert top.event_time == "2026-01-20T02:10:00Z"
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))


def test_scores_lie_in_the_declared_range_and_fall_with_rank(indexed):
    caps = indexed.get_capabilities()
    lo, hi = caps.score["range"]
    assert "BM25" in caps.score["semantics"] and not caps.has("embeddings")
    hits = indexed.query("release migration staging cache", limit=10).hits
    assert len(hits) >= 4
    scores = [h.score for h in hits]
    assert all(lo <= s <= hi for s in scores) and scores == sorted(scores, reverse=True)


def test_filters_by_thread_time_author_role_and_type(indexed):
    everything = indexed.query("the", limit=50).hits
    thread = next(h.provenance["thread_id"] for h in everything if "onboarding" in h.provenance["thread_id"])
    only = indexed.query("approval cache release", limit=50, filters={"thread_ids": [thread]}).hits
    assert only and {h.provenance["thread_id"] for h in only} == {thread}

    window = indexed.query(
        "the", limit=50, filters={"time_from": "2026-02-11T00:00:00Z", "time_to": "2026-02-12T23:59:59Z"}
    ).hits
    assert sorted(h.event_time for h in window) == ["2026-02-11T10:30:00Z", "2026-02-12T16:20:00Z"]

    by_user = indexed.query("the", limit=50, filters={"authors": ["sam"]}).hits
    assert by_user and all(h.extra["author"].endswith("(sam)") for h in by_user)
    by_agent = indexed.query("the", limit=50, filters={"authors": ["claude"]}).hits
    assert by_agent and all(h.extra["author"].startswith("Claude") for h in by_agent)

    critics = indexed.query("the", limit=50, filters={"roles": ["CRITIC"]}).hits
    assert len(critics) == 2 and {h.extra["role"] for h in critics} == {"critic"}
    decisions = indexed.query("the", limit=50, filters={"entry_types": ["Decision"]}).hits
    assert decisions and {h.extra["entry_type"] for h in decisions} == {"Decision"}

    both = indexed.query("the", limit=50, filters={"roles": ["critic"], "authors": ["claude"]}).hits
    assert {(h.extra["role"], h.extra["author"].split(" ")[0]) for h in both} <= {("critic", "Claude")}


def test_filters_do_not_change_scores(indexed):
    free = {h.id: h.score for h in indexed.query("cache stampede", limit=50).hits}
    thread = indexed.query("cache stampede", limit=1).hits[0].provenance["thread_id"]
    scoped = indexed.query("cache stampede", limit=50, filters={"thread_ids": [thread]}).hits
    assert scoped and all(abs(h.score - free[h.id]) < 1e-6 for h in scoped)


@pytest.mark.parametrize("bad, field", [({"time_from": "yesterday"}, "time_from"), ({"authors": "ana"}, "authors")])
def test_bad_filters_name_the_field(indexed, bad, field):
    with pytest.raises(InvalidInputError, match=f"filters.{field}"):
        indexed.query("cache", filters=bad)


def test_vector_mode_answers_bm25_marked_degraded(indexed):
    result = indexed.query("cache stampede", mode="hybrid")
    assert result.hits and result.degraded and "embeddings" in result.reason
