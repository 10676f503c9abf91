"""Dated cues (memdock_sqlite rerank.py, `dated_cue_weight`; docs/concepts/recall.md): for a question naming a date,
a chunk dated within it whose text names a time ("last Friday") has its ranking value raised by the weight (0.5)
times itself, so the turn telling of the event the date asks about comes before the other turns of that day. 0
turns it off, as does `question_date_weight` 0; a question naming no date, and a chunk dated outside the date, rank
as before. Then the bad input issue #34 names, for this path."""

from pathlib import Path

import pytest
from test_recall_dated_candidates import changed_questions, locomo_conversation
from test_recall_reorder import chat_store, ordered_by_rank_value, recall

from memdock.errors import ConfigError

OFF = {"dated_cue_weight": 0}
FUN = "The trip was fun."
CUED = "The trip was last Friday, to the old town by the sea."
NOVEMBER = "1:56 pm on 20 November, 2023"
JULY = "1:56 pm on 20 July, 2023"
QUESTION = "Where was the trip in November 2023?"


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def trips(tmp_path_factory) -> Path:
    return chat_store(tmp_path_factory.mktemp("cues"), [[FUN, CUED]], dates=[NOVEMBER])


def test_the_turn_naming_a_time_comes_first(trips):
    assert _texts(recall(trips, QUESTION, OFF))[:2] == [FUN, CUED], "BM25 alone favours the shorter turn"
    hits = recall(trips, QUESTION)
    assert _texts(hits)[:2] == [CUED, FUN]
    assert ordered_by_rank_value(hits)


def test_question_date_weight_zero_turns_it_off_too(trips):
    config = {"question_date_weight": 0}
    assert [h.id for h in recall(trips, QUESTION, config)] == [h.id for h in recall(trips, QUESTION, OFF | config)]


def test_scores_stay_each_chunks_own(trips):
    off = {h.id: h.score for h in recall(trips, QUESTION, OFF)}
    assert {h.id: h.score for h in recall(trips, QUESTION)} == pytest.approx(off)


@pytest.mark.parametrize("question", ["Where was the trip?", "trip", "When was the trip?"])
def test_a_question_naming_no_date_ranks_as_before(trips, question):
    assert [h.id for h in recall(trips, question)] == [h.id for h in recall(trips, question, OFF)]


def test_a_turn_dated_outside_the_named_date_is_not_raised(tmp_path):
    store = chat_store(tmp_path, [[FUN], [CUED]], dates=[NOVEMBER, JULY])
    hits = recall(store, QUESTION)
    assert _texts(hits)[0] == FUN
    assert [h.id for h in hits] == [h.id for h in recall(store, QUESTION, OFF)]


BAD = [(-0.5, r"-0\.5 is less than the minimum of 0"), ("x", "['\"]x['\"] is not of type ['\"]number['\"]")]


@pytest.mark.parametrize(("value", "reason"), [*BAD, (9, "9 is greater than the maximum of 8")])
def test_a_bad_setting_is_refused_naming_it(trips, value, reason):
    with pytest.raises(ConfigError, match=rf"\$\.dated_cue_weight: {reason}"):
        recall(trips, QUESTION, {"dated_cue_weight": value})


# bad input (issue #34)


@pytest.mark.parametrize("question", ["20 November 2023", "in November 2023", "the of and to a", "Где была поездка?"])
def test_a_question_of_a_date_stopwords_or_another_script(trips, question):
    now, off = recall(trips, question), recall(trips, question, OFF)
    assert sorted(h.id for h in now) == sorted(h.id for h in off), "the step reorders; it brings nothing in"
    assert not now or "rank_value" not in now[0].extra or ordered_by_rank_value(now)


def test_an_undated_thread_of_one_speaker(tmp_path):
    store = chat_store(tmp_path, [[FUN, CUED]], speakers=("Ana",), dates=[None])
    assert [h.id for h in recall(store, QUESTION)] == [h.id for h in recall(store, QUESTION, OFF)]


def test_a_speaker_named_like_a_month(tmp_path):
    """A speaker called May: "What did May say of the trip?" names no date, so nothing is raised."""
    store = chat_store(tmp_path, [[FUN, CUED]], speakers=("May", "Bo"), dates=[NOVEMBER])
    question = "What did May say of the trip?"
    assert [h.id for h in recall(store, question)] == [h.id for h in recall(store, question, OFF)]


# the shared corpora: questions naming no date are answered as before


@pytest.fixture(scope="module")
def locomo_store(tmp_path_factory):
    return locomo_conversation(tmp_path_factory.mktemp("locomo"), 2)


def test_locomo_questions_naming_no_date_are_answered_as_before(locomo_store):
    from memdock_entries import timeframe

    store, every = locomo_store
    dated = [q for q in every if timeframe.spans(q)]
    changed = changed_questions(store, dated + [q for q in every if q not in dated][:40], OFF)
    assert changed, "a question naming a date reaches another turn"
    assert all(timeframe.spans(q) for q in changed), changed
