"""The coverage score's lookups on a real FTS5 index: which candidates hold each word, found by walking the
candidates' own matches, agrees with asking chunk by chunk; the cached chunk count follows writes from this
connection and from others."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import candidates, db, fts, ingest, scoring

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
@pytest.mark.parametrize("budget", [10**9, 500])
def test_coverage_agrees_with_asking_each_candidate(store, monkeypatch, query, budget):
    monkeypatch.setattr(candidates, "BUDGET", budget)
    chosen = candidates.plan(store, fts.terms(query))
    weights = scoring.weights_of(store, chosen)
    levels = candidates.rank(store, chosen, None, 100, 10, weights.__getitem__)
    scores = scoring.coverage(store, weights, levels)

    def holds(rowid: int, term: str) -> bool:
        sql = "SELECT 1 FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid = ?"
        return store.execute(sql, [f'"{term}"', rowid]).fetchone() is not None

    asked = {rid: min(1.0, sum(w for t, w in weights.items() if holds(rid, t))) for rid in scores}
    assert scores == pytest.approx(asked)
    assert len(set(scores.values())) > 1 or budget < 10**9, "the query should split the candidates"
    assert max(scores.values()) == pytest.approx(1.0)
    assert chosen.narrowed == (budget < 10**9)


def test_the_chunk_count_follows_writes_from_this_and_other_connections(store, tmp_path):
    assert scoring.chunk_count(store) == 3000
    add_chunks(store, 10, seed=2)
    assert scoring.chunk_count(store) == 3010
    other = db.open_db(tmp_path, write=True)
    add_chunks(other, 5, seed=3)
    other.close()
    assert scoring.chunk_count(store) == 3015
