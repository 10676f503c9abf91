"""Spread (memdock_sqlite spread.py, docs/concepts/recall.md): a question asking for several things gathered over
time is not pooled by session and has its hits spread over the sessions; any other question keeps its order. Scores
stay each chunk's own; the order follows `extra.rank_value`. Then the bad input issue #34 names, for this path."""

import sys
from pathlib import Path

import pytest
from support.chat_stores import ordered_by_rank_value
from support.sqlite_helpers import sqlite_backend
from test_recall_reorder import chat_store

from memdock.errors import ConfigError

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_sqlite import db, spread  # noqa: E402

OLD = {"session_spread_weight": 0, "many_pool_weight": 0.5}
"""Both steps off: every question pooled at the default 0.5, nothing spread."""
PAINTING = [
    [
        "Ana painted a lake at dawn with oils.",
        "Ana painted the lake again at dusk.",
        "Ana painted the lake a third time, in winter.",
    ],
    ["The football match was a draw.", "Ana painted a fox in the snow, her first animal."],
]
FOX = "Ana painted a fox in the snow, her first animal."


def recall(store: Path, query: str, config: dict | None = None):
    return sqlite_backend(store, config=config or {}).query(query, limit=3).hits


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def painting(tmp_path_factory):
    return chat_store(tmp_path_factory.mktemp("painting"), PAINTING)


@pytest.mark.parametrize(
    "question",
    [
        "What has Ana painted?",
        "What have Ana and Bo painted?",
        "What do both of them like?",
        "What do they have in common?",
        "What activities does Ana do?",
    ],
)
def test_questions_that_ask_for_several_things(question):
    assert spread.asks_for_many(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Ana paint?",
        "Has Ana been to Paris?",
        "Where has the cat gone?",
        "What has been painted?",
        "Ana has a dog",
        "",
        "Что нарисовала Аня?",
        "8 May 2023",
    ],
)
def test_questions_that_do_not(question):
    assert not spread.asks_for_many(question)


def test_a_turn_of_another_session_comes_up_for_a_question_asking_for_several_things(painting):
    assert FOX not in _texts(recall(painting, "What has Ana painted?", OLD))
    hits = recall(painting, "What has Ana painted?")
    assert FOX in _texts(hits)
    assert ordered_by_rank_value(hits)


def test_a_question_asking_for_one_thing_keeps_its_order(painting):
    question = "What did Ana paint at the lake?"
    assert [h.id for h in recall(painting, question)] == [h.id for h in recall(painting, question, OLD)]


def test_scores_stay_each_chunks_own(painting):
    before = {h.id: h.score for h in recall(painting, "What has Ana painted?", OLD)}
    after = {h.id: h.score for h in recall(painting, "What has Ana painted?")}
    assert all(after[i] == pytest.approx(s) for i, s in before.items() if i in after)


def test_the_nth_hit_of_a_thread_is_divided(painting):
    conn = db.open_db(painting / "data", write=False)
    assert conn is not None
    rows = [rid for (rid,) in conn.execute("SELECT rowid FROM chunks ORDER BY rowid")]
    ranked = [(rid, 1.0 - i / 10, {}) for i, rid in enumerate(rows)]
    out = spread.spread(conn, ranked, "What has Ana painted?", 1.0, by_score=True, k=10)
    value = {rid: extra["rank_value"] for rid, _, extra in out}
    assert value[rows[0]] == pytest.approx(1.0)
    assert value[rows[1]] == pytest.approx(0.9 / 2)
    assert value[rows[2]] == pytest.approx(0.8 / 3)
    assert value[rows[3]] == pytest.approx(0.7), "the first hit of the second session"
    notes = spread.spread(conn, ranked, "What has Ana painted?", 1.0, by_score=True, k=10, formats=frozenset({"md"}))
    assert notes == ranked, "a thread of another format keeps its order"
    conn.close()


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"session_spread_weight": -1}, r"\$\.session_spread_weight: -1 is less than the minimum of 0"),
        ({"many_pool_weight": "a"}, r"\$\.many_pool_weight: ['\"]a['\"] is not of type"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(painting, config, reason):
    with pytest.raises(ConfigError, match=reason):
        recall(painting, "What has Ana painted?", config)


# bad input (issue #34)


@pytest.mark.parametrize("question", ["8 May 2023", "the of and to a", "?!", "Что нарисовала Аня?"])
def test_a_question_of_a_date_stopwords_marks_or_another_script_keeps_its_order(painting, question):
    assert [h.id for h in recall(painting, question)] == [h.id for h in recall(painting, question, OLD)]


def test_a_conversation_of_one_speaker_with_no_dates(tmp_path):
    store = chat_store(tmp_path, PAINTING, speakers=("Ana",), dates=[None, None])
    hits = recall(store, "What has Ana painted?")
    assert FOX in _texts(hits)
    assert ordered_by_rank_value(hits)


def test_dates_in_the_future_and_before_1900(tmp_path):
    store = chat_store(tmp_path, PAINTING, dates=["1:56 pm on 8 May, 2999", "1:56 pm on 8 May, 1850"])
    hits = recall(store, "What has Ana painted?")
    assert FOX in _texts(hits)
    assert ordered_by_rank_value(hits)


def test_a_speaker_named_like_a_common_word(tmp_path):
    """A speaker called Will: "What has Will painted?" asks for several things; "Will Bo paint?" does not."""
    store = chat_store(tmp_path, [[t.replace("Ana", "Will") for t in s] for s in PAINTING], speakers=("Will", "Bo"))
    assert spread.asks_for_many("What has Will painted?")
    assert not spread.asks_for_many("Will Bo paint a fox?")
    assert FOX.replace("Ana", "Will") in _texts(recall(store, "What has Will painted?"))
