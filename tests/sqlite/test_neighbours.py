"""Neighbour expansion: a hit pulls in the chunks just before and after it in its thread, placed at a share of
its own place, naming the hit it came with; scores still fall with rank; filters still hold; off unless asked
(a neighbour scores a share of its hit's score whatever words it holds, which is not what min_score means on a
memory of notes)."""

import pytest
from sqlite_helpers import sqlite_backend

QUERY = "thundering herd"


@pytest.fixture(scope="module")
def store(tmp_path_factory, fixture_chunks):
    root = tmp_path_factory.mktemp("neighbours") / "store"
    sqlite_backend(root).index(fixture_chunks)
    return root


def search(store, weight: float, **kw):
    return sqlite_backend(store, config={"neighbour_weight": weight}).query(QUERY, limit=5, **kw).hits


def test_the_turn_after_a_hit_comes_with_it(store):
    alone = search(store, 0)
    assert "Cache stampede" in alone[0].text and not any("Jittered expiry everywhere" in h.text for h in alone)
    expanded = search(store, 0.8)
    assert expanded[0].id == alone[0].id
    follower = next(h for h in expanded if "Jittered expiry everywhere" in h.text)
    assert follower.extra["neighbour_of"] == alone[0].id
    assert follower.score == pytest.approx(alone[0].score * 0.8)
    assert follower.provenance["thread_id"] == alone[0].provenance["thread_id"]


def test_a_neighbour_outside_the_filters_stays_out(store):
    only_implementers = search(store, 0.8, filters={"roles": ["implementer"]})
    assert only_implementers and {h.extra["role"] for h in only_implementers} == {"implementer"}
    assert not any("neighbour_of" in h.extra for h in only_implementers)


def test_scores_still_fall_with_rank(store):
    scores = [h.score for h in search(store, 0.8)]
    assert len(scores) >= 2 and scores == sorted(scores, reverse=True)


def test_off_unless_asked(store):
    default = sqlite_backend(store).query(QUERY, limit=5).hits
    assert [(h.id, h.score) for h in default] == [(h.id, h.score) for h in search(store, 0)]
    assert not any("neighbour_of" in h.extra for h in default)
