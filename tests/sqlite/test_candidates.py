"""How a word query narrows what it ranks on a big store (candidates.py), on a real FTS5 index with a small
BUDGET standing in for a big store: queries of several words get what ranking every matching chunk gives, a
one-word query past the budget ranks the newest chunks holding its word, a query with filters is not narrowed,
and a common word's count is estimated closely."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import candidates, db, fts, ingest, search, vector_index

VOCABULARY = [f"w{i}" for i in range(300)]
WEIGHTS = [1 / (i + 1) for i in range(300)]  # Zipf-like: w0 is in most chunks, w299 in few
CHUNKS = 3000


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store")
    conn = db.open_db(path, write=True)
    rng = random.Random(5)
    chunks = (
        {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": f"thread:{i % 3}", "position": 0,
         "text": " ".join(rng.choices(VOCABULARY, weights=WEIGHTS, k=12))}
        for i in range(CHUNKS)
    )  # fmt: skip
    ingest.Ingest(conn, on_commit=lambda ids: None).run("chunk", chunks)
    yield conn
    conn.close()


def df(conn, word: str) -> int:
    return conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?", [f'"{word}"']).fetchone()[0]


def answer(conn, text: str, filters: dict | None = None) -> dict:
    params = {"text": text, "limit": 10, **({"filters": filters} if filters else {})}
    return search.run(conn, params, embedder=None, vectors=vector_index.VectorIndex(), identity=None)


def ranked(result: dict) -> list[tuple[str, float]]:
    return [(h["id"], round(h["score"], 9)) for h in result["hits"]]


def several_word_queries(conn) -> list[str]:
    """Queries of 2-4 words in 80-250 chunks each, and of a rare word with 2-3 of those: their chunks add up past
    a budget of 300, while no set of two or more of them is held by more than 300 chunks (no level needs its
    newest-only window). With the rare word, one word can outweigh two."""
    mid = [w for w in VOCABULARY if 80 <= df(conn, w) <= 250]
    rare = [w for w in VOCABULARY if 3 <= df(conn, w) <= 15]
    rng = random.Random(11)
    return [" ".join(rng.sample(mid, rng.randint(2, 4))) for _ in range(25)] + [
        " ".join([rng.choice(rare), *rng.sample(mid, rng.randint(2, 3))]) for _ in range(25)
    ]


def test_several_words_rank_what_ranking_every_match_ranks(store, monkeypatch):
    queries = several_word_queries(store)
    exhaustive = [ranked(answer(store, q)) for q in queries]
    monkeypatch.setattr(candidates, "BUDGET", 300)
    narrowed = [answer(store, q) for q in queries]
    assert sum("ranked by levels of shared words" in r.get("reason", "") for r in narrowed) >= 30
    assert [ranked(r) for r in narrowed] == exhaustive


def test_a_common_word_alone_ranks_its_newest_chunks_and_says_so(store, monkeypatch):
    word = next(w for w in VOCABULARY if df(store, w) > 900)
    monkeypatch.setattr(candidates, "BUDGET", 300)
    result = answer(store, word)
    assert len(result["hits"]) == 10
    holding = [r for (r,) in store.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?", [f'"{word}"'])]
    newest = set(sorted(holding)[-300:])
    rowid_of = dict(store.execute("SELECT id, rowid FROM chunks"))
    assert {rowid_of[h["id"]] for h in result["hits"]} <= newest
    assert "the 300 newest chunks" in result["reason"]
    assert all(h["score"] == 1.0 for h in result["hits"]), "each holds the whole query"


def test_a_filtered_query_is_not_narrowed(store, monkeypatch):
    """Its cost is the filter's join over every matching chunk, which each level would pay again."""
    queries = several_word_queries(store)[:10] + [next(w for w in VOCABULARY if df(store, w) > 900)]
    only = {"thread_ids": ["thread:1"]}
    exhaustive = [ranked(answer(store, q, only)) for q in queries]
    monkeypatch.setattr(candidates, "BUDGET", 100)
    filtered = [answer(store, q, only) for q in queries]
    assert [[i for i, _ in ranked(r)] for r in filtered] == [[i for i, _ in e] for e in exhaustive]
    scores = [s for r in filtered for _, s in ranked(r)]
    assert scores == pytest.approx([s for e in exhaustive for _, s in e], rel=0.02), "counts past 100 are estimated"
    assert not any("reason" in r for r in filtered)
    thread_of = dict(store.execute("SELECT id, thread_id FROM chunks"))
    assert all(thread_of[h["id"]] == "thread:1" for r in filtered for h in r["hits"])
    assert "reason" in answer(store, queries[-1]), "the same query without the filter is narrowed"


def test_a_common_words_count_is_estimated_closely_and_a_rare_ones_counted(store, monkeypatch):
    monkeypatch.setattr(candidates, "BUDGET", 300)
    common = [w for w in VOCABULARY if df(store, w) > 600]
    rare = [w for w in VOCABULARY if df(store, w) <= 300]
    assert common and rare
    for word in common:
        assert candidates.document_frequency(store, word) == pytest.approx(df(store, word), rel=0.15)
    for word in rare:
        assert candidates.document_frequency(store, word) == df(store, word)


def test_a_small_store_is_never_narrowed(store):
    for text in ["w0", "w0 w1 w2", " ".join(VOCABULARY[:8])]:
        assert "reason" not in answer(store, text)
        assert not candidates.plan(store, fts.terms(text)).narrowed


def test_a_long_query_with_words_no_chunk_holds_ranks_by_the_words_it_has(store, monkeypatch):
    """Past MAX_SUBSET_WORDS a level asks for the rarest words first: a word no chunk holds is the rarest of all,
    and levels that ask for it are empty (such a query found nothing, then failed saying how it was narrowed)."""
    present = [w for w in VOCABULARY if 80 <= df(store, w) <= 250][: candidates.MAX_SUBSET_WORDS]
    absent = ["zzabsent", "qqnowhere"]
    assert len(present) == candidates.MAX_SUBSET_WORDS and all(df(store, w) == 0 for w in absent)
    monkeypatch.setattr(candidates, "BUDGET", 300)
    with_absent = answer(store, " ".join([absent[0], *present, absent[1]]))
    without = answer(store, " ".join(present))
    assert "ranked by levels of shared words" in with_absent["reason"]
    assert len(with_absent["hits"]) == 10
    assert [h["id"] for h in with_absent["hits"]] == [h["id"] for h in without["hits"]]
