"""Recall's reordering in a conversation (memdock_sqlite.rerank, docs/concepts/recall.md): a turn in the session
the question is about outranks an equal match alone in another session (pooling); a turn that says when outranks
an equal one that does not, for a question that asks when (time cues). Hit scores stay each chunk's own; the order
follows `extra.rank_value`. Then the bad input issue #34 names, each through a default store."""

import sys
from pathlib import Path

import pytest
from support.chat_stores import chat_chunks, ordered_by_rank_value
from support.sqlite_helpers import sqlite_backend

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_sqlite.rerank import TIME_CUES, asks_when  # noqa: E402

OFF = {"session_pool_weight": 0, "time_cue_weight": 0}


def chat_store(root: Path, sessions: list[list[str]], *, speakers=("Ana", "Bo"), dates=None) -> Path:
    """A sqlite store of the chat support.chat_stores.chat_chunks makes."""
    sqlite_backend(root / "store").index(chat_chunks(root, sessions, speakers=speakers, dates=dates))
    return root / "store"


LATER_STEPS_OFF = {"substance_weight": 0, "context_turn_weight": 0}
"""Substance and context turns (test_recall_context.py) off, so a test of another step sees that step alone."""


def recall(store: Path, query: str, config: dict | None = None, *, alone: bool = True):
    """QUERY's hits under CONFIG over the defaults, with substance and context turns off when ALONE."""
    base = LATER_STEPS_OFF if alone else {}
    return sqlite_backend(store, config=base | (config or {})).query(query, limit=10).hits


GARDEN = [
    ["I planted tomatoes in the raised bed.", "The basil is growing well in the raised bed.", "Tomatoes and basil."],
    ["Basil pesto tonight.", "The football match was a draw."],
]


@pytest.fixture(scope="module")
def garden(tmp_path_factory):
    return chat_store(tmp_path_factory.mktemp("garden"), GARDEN)


def test_pooling_lifts_a_turn_in_the_session_the_question_is_about(garden):
    off = recall(garden, "tomatoes basil", OFF)
    pooled = recall(garden, "tomatoes basil")
    texts = [h.text.split("\n")[-1] for h in pooled]
    assert texts.index("The basil is growing well in the raised bed.") < texts.index("Basil pesto tonight.")
    plain = [h.text.split("\n")[-1] for h in off]
    assert plain.index("Basil pesto tonight.") < plain.index("The basil is growing well in the raised bed.")
    assert {h.id: h.score for h in pooled} == pytest.approx({h.id: h.score for h in off}), "scores stay per chunk"
    assert ordered_by_rank_value(pooled)


def test_a_turn_that_says_when_answers_a_when_question_first(tmp_path):
    store = chat_store(tmp_path, [["Planted tomatoes.", "Nice."], ["Planted tomatoes yesterday, in the rain.", "Ok."]])
    off = recall(store, "When were the tomatoes planted?", OFF)
    assert off[0].text.endswith("Planted tomatoes.")
    cued = recall(store, "When were the tomatoes planted?")
    assert cued[0].text.endswith("yesterday, in the rain.")
    assert cued[0].score == pytest.approx(next(h.score for h in off if h.id == cued[0].id))
    assert recall(store, "Were the tomatoes planted?", {"session_pool_weight": 0})[0].text.endswith("tomatoes.")


def test_what_asks_when_and_what_says_when():
    assert asks_when("When did Ana go camping?") and asks_when("How long has Bo painted?")
    assert not asks_when("What did Ana paint?")
    assert TIME_CUES.search("I went there last week") and TIME_CUES.search("back in 2019")
    assert TIME_CUES.search("on 8 May") and TIME_CUES.search("in May")


# bad input (issue #34)


def test_a_question_that_is_only_a_date(garden):
    hits = recall(garden, "8 May 2023")
    assert all(0 <= h.score <= 1 for h in hits)
    assert all("rank_value" in h.extra for h in hits)


def test_a_question_of_only_stopwords(garden):
    result = sqlite_backend(garden).query("the of and to a", limit=10)
    assert all("rank_value" in h.extra for h in result.hits)


def test_a_question_in_another_script(tmp_path):
    store = chat_store(tmp_path, [["Вчера я посадила помидоры.", "Хорошо."], ["Сегодня футбол.", "Да."]])
    hits = recall(store, "Когда посадила помидоры?")
    assert hits[0].text.endswith("Вчера я посадила помидоры.")
    assert ordered_by_rank_value(hits)


def test_a_thread_with_no_dates(tmp_path):
    store = chat_store(tmp_path, GARDEN, dates=[None, None])
    hits = recall(store, "When was the basil growing?")
    assert hits and not any(h.event_time for h in hits)
    assert ordered_by_rank_value(hits)


def test_dates_in_the_future_and_before_1900(tmp_path):
    store = chat_store(tmp_path, GARDEN, dates=["1:56 pm on 8 May, 2999", "1:56 pm on 8 May, 1850"])
    hits = recall(store, "When was the basil growing in 2999?")
    assert {h.event_time[:4] for h in hits} <= {"2999", "1850"}
    assert ordered_by_rank_value(hits)


def test_a_conversation_of_one_speaker(tmp_path):
    store = chat_store(tmp_path, GARDEN, speakers=("Ana",))
    hits = recall(store, "tomatoes basil")
    assert {h.extra["author"] for h in hits} == {"Ana"}
    assert ordered_by_rank_value(hits)


def test_an_entity_named_like_a_common_word(tmp_path):
    """A speaker called May: her name in every header says no time, and neither does "you may" in a turn."""
    store = chat_store(tmp_path, [["You may plant tomatoes now.", "Planted tomatoes."]], speakers=("May", "Bo"))
    hits = recall(store, "When did May plant tomatoes?")
    assert not TIME_CUES.search("You may plant tomatoes now.")
    maybe = next(h for h in hits if h.text.endswith("You may plant tomatoes now."))
    off = recall(store, "When did May plant tomatoes?", {"time_cue_weight": 0})
    assert maybe.extra["rank_value"] == pytest.approx(next(h for h in off if h.id == maybe.id).extra["rank_value"])
