"""Scores that mean something: [0, 1], an exact match scores high at any store size, stable as the store grows.

Through `Memory` over the real sqlite adapter (subprocess, real SQLite FTS5).
"""

from __future__ import annotations

import random

import pytest

from memdock import Memory
from memdock.errors import InvalidInputError

TARGET = "The billing service retries webhooks with exponential backoff"
QUERY = "billing webhooks exponential backoff"
WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
]


def filler(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=12)) + f" note {i} service" for i in range(n)]


def score_of(memory: Memory, text: str, query: str = QUERY) -> float:
    hits = memory.recall(query, limit=50, mode="bm25").hits
    return next(h.score for h in hits if h.text.endswith(text))


def test_an_exact_match_of_every_term_scores_one_on_a_two_note_store(tmp_path):
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember_many([TARGET, "Lunch is at noon on Fridays"])
        hits = m.recall(QUERY, mode="bm25").hits
        assert hits[0].text.endswith(TARGET)
        assert hits[0].score == pytest.approx(1.0)
        assert all(0.0 <= h.score <= 1.0 for h in hits)


def test_the_same_chunk_keeps_its_score_as_unrelated_notes_are_added(tmp_path):
    partial = "Webhooks arrive late on Mondays"
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember_many([TARGET, partial, "Lunch is at noon on Fridays"])
        small_full, small_partial = score_of(m, TARGET), score_of(m, partial)
        m.remember_many(filler(600))
        big_full, big_partial = score_of(m, TARGET), score_of(m, partial)
    assert small_full == pytest.approx(1.0) and big_full == pytest.approx(1.0)
    assert 0.05 < small_partial < 0.6
    assert big_partial == pytest.approx(small_partial, abs=0.03)


def test_a_chunk_holding_more_of_the_query_ranks_and_scores_higher(tmp_path):
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember_many([TARGET, "Billing runs nightly", "Exponential growth of billing webhooks"])
        hits = m.recall(QUERY, mode="bm25").hits
        scores = [h.score for h in hits]
        assert hits[0].text.endswith(TARGET)
        assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]


def test_min_score_cuts_below_the_threshold_end_to_end(tmp_path):
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember_many([TARGET, "Billing runs nightly", "Lunch is at noon on Fridays"])
        everything = m.recall(QUERY, mode="bm25").hits
        assert len(everything) == 2
        strict = m.recall(QUERY, mode="bm25", min_score=0.9).hits
        assert [h.text for h in strict] == [everything[0].text]
        assert m.recall(QUERY, mode="bm25", min_score=0.0).hits == everything


@pytest.mark.parametrize("bad", [-0.1, 1.5, "0.5", True])
def test_min_score_outside_zero_to_one_is_refused(tmp_path, bad):
    with Memory(data_dir=tmp_path / "store") as m:
        m.remember("anything")
        with pytest.raises(InvalidInputError, match="min_score"):
            m.recall("anything", min_score=bad)
