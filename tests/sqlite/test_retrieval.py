"""The sqlite adapter through the real runner: ranking, filters, scores, provenance."""

import pytest

from memdock.errors import InvalidInputError


def entry_titles(result):
    return [h.text.split("\n", 1)[0].rsplit(" — ", 1)[-1] for h in result.hits]


def test_bm25_finds_the_entry_and_keeps_provenance(indexed):
    result = indexed.query("thundering herd after cache expiry", limit=3)
    top = result.hits[0]
    assert top.kind == "chunk" and top.text.endswith("```")
    assert "Cache stampede at 02:00" in top.text.split("\n", 1)[0]
    assert top.provenance["thread_id"].startswith("thread:incident-cache")
    assert top.provenance["entry_id"].startswith("entry:") and top.provenance["chunk_id"] == top.id
    assert top.event_time == "2026-01-20T02:10:00Z"
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))


def test_scores_lie_in_the_declared_range_and_fall_with_rank(indexed):
    caps = indexed.get_capabilities()
    lo, hi = caps.score["range"]
    hits = indexed.query("release migration staging cache", limit=10).hits
    assert len(hits) >= 4
    scores = [h.score for h in hits]
    assert all(lo <= s <= hi for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_header_outweighs_body(indexed):
    # "checklist" is in the title of two onboarding entries and in the body of one of them; the titled ones lead.
    titles = entry_titles(indexed.query("checklist", limit=3))
    assert set(titles[:2]) == {"First-week checklist", "Checklist adopted"}


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


def test_limit_is_respected_and_checked(indexed):
    assert len(indexed.query("the", limit=2).hits) == 2
    with pytest.raises(InvalidInputError, match="limit"):
        indexed.call("query", {"text": "x", "limit": 0})


def test_hybrid_without_embeddings_degrades_to_bm25_and_says_so(indexed):
    result = indexed.query("cache", limit=3, mode="hybrid")
    assert result.hits and result.degraded and "not configured" in result.reason


def test_capabilities_report_no_embeddings_without_config(indexed):
    caps = indexed.get_capabilities()
    assert caps.has("graph_query") and caps.has("temporal") and caps.has("incremental") and caps.has("delete")
    assert not caps.has("embeddings")
