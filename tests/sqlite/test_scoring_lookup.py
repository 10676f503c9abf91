"""The coverage score's lookups on a real FTS5 index: both ways of finding which candidates hold a term give the
same scores, and the cached chunk count follows writes from this connection and from others."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, fts, ingest, scoring
from memdock_sqlite.search import bm25_ranking

WORDS = [
    "billing",
    "webhook",
    "retry",
    "backoff",
    "lunch",
    "cache",
    "stampede",
    "deploy",
    "rollback",
    "alert",
    "pager",
    "queue",
]


def add_chunks(conn, n: int, seed: int) -> None:
    rng = random.Random(seed)
    chunks = (
        {"id": f"chunk:{seed}:{i}", "entry_id": f"entry:{seed}:{i}", "thread_id": "thread:t", "position": 0,
         "text": " ".join(rng.choices(WORDS, k=8))}
        for i in range(n)
    )  # fmt: skip
    ingest.Ingest(conn, on_commit=lambda ids: None).run("chunk", chunks)


@pytest.fixture
def store(tmp_path):
    conn = db.open_db(tmp_path, write=True)
    add_chunks(conn, 3000, seed=1)
    yield conn
    conn.close()


@pytest.mark.parametrize("query", ["billing webhook", "cache stampede deploy", "retry lunch pager queue alert"])
def test_probing_each_candidate_and_reading_the_whole_list_agree(store, monkeypatch, query):
    terms = fts.terms(query)
    candidates = [rid for rid, _ in bm25_ranking(store, fts.match_expression(query), None, 100)]
    monkeypatch.setattr(scoring, "PROBE_ABOVE", 10**9)
    read_whole = scoring.coverage(store, terms, candidates)
    monkeypatch.setattr(scoring, "PROBE_ABOVE", 0)
    probed = scoring.coverage(store, terms, candidates)
    assert read_whole == probed
    assert len(set(read_whole.values())) > 1, "the query should split the candidates"
    assert max(read_whole.values()) == pytest.approx(1.0)


def test_the_chunk_count_follows_writes_from_this_and_other_connections(store, tmp_path):
    assert scoring.chunk_count(store) == 3000
    add_chunks(store, 10, seed=2)
    assert scoring.chunk_count(store) == 3010
    other = db.open_db(tmp_path, write=True)
    add_chunks(other, 5, seed=3)
    other.close()
    assert scoring.chunk_count(store) == 3015
