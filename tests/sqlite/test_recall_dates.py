"""A question that names a date ("in July 2023", "on 9 November, 2022") ranks the turns dated within it first
(memdock_entries.timeframe, rerank.py; docs/concepts/recall.md); scores stay each chunk's own. Then the bad input
issue #34 names, for this path."""

import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from test_recall_reorder import chat_store, ordered_by_rank_value, recall

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_entries.timeframe import Span, spans, within  # noqa: E402

OFF = {"question_date_weight": 0}
TWO_DATES = ["1:56 pm on 3 May, 2023", "1:56 pm on 20 July, 2023"]
PLANTED = [["Planted tomatoes.", "Nice."], ["Planted tomatoes in the big garden by the shed.", "Ok."]]


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    return chat_store(tmp_path_factory.mktemp("planted"), PLANTED, dates=TWO_DATES)


def test_a_named_month_ranks_the_turn_of_that_month_first(planted):
    off = recall(planted, "What did Ana plant in July 2023?", OFF)
    assert _texts(off)[0] == "Planted tomatoes."
    dated = recall(planted, "What did Ana plant in July 2023?")
    assert _texts(dated)[0] == "Planted tomatoes in the big garden by the shed."
    assert {h.id: h.score for h in dated} == pytest.approx({h.id: h.score for h in off}), "scores stay per chunk"
    assert ordered_by_rank_value(dated)


def test_a_named_day_counts_the_days_after_it_and_not_before(planted):
    assert _texts(recall(planted, "What was planted on 10 July, 2023?"))[0].endswith("by the shed.")
    assert _texts(recall(planted, "What was planted on 1 May, 2023?"))[0] == "Planted tomatoes."
    assert _texts(recall(planted, "What was planted on 10 August, 2023?"))[0] == "Planted tomatoes."


def test_the_dates_a_question_names():
    def first(question: str) -> tuple[date, date]:
        (span,) = spans(question)
        return span.first, span.last

    assert first("What did Jo bake in May 2022?") == (date(2022, 5, 1), date(2022, 5, 31))
    assert first("What did Nate cook on 9 November, 2022?") == (date(2022, 11, 9), date(2022, 11, 9))
    assert first("Which film on October 6, 2022?") == (date(2022, 10, 6), date(2022, 10, 6))
    assert first("What did Tim read on 8th December, 2023?") == (date(2023, 12, 8), date(2023, 12, 8))
    assert first("What charity event in 2024?") == (date(2024, 1, 1), date(2024, 12, 31))
    assert first("Which deal did John get in December?")[0].month == 12 and spans("in December")[0].month_only
    assert first("Feb 29, 2024 plans") == (date(2024, 2, 29), date(2024, 2, 29))


def test_a_span_holds_the_days_told_of_after_it():
    may = Span(date(2022, 5, 1), date(2022, 5, 31))
    assert may.holds(date(2022, 5, 1)) and may.holds(date(2022, 6, 10)) and not may.holds(date(2022, 7, 1))
    assert not may.holds(date(2022, 4, 20))
    any_june = spans("in June")[0]
    assert any_june.holds(date(1999, 6, 2)) and any_june.holds(date(2030, 7, 3))
    assert not any_june.holds(date(2030, 8, 1))


# bad input (issue #34)


def test_what_names_no_date():
    assert spans("When did May plant tomatoes?") == [], "a person called May is not a month"
    assert spans("you may go") == [] and spans("the of and to a") == [] and spans("") == []
    assert spans("Когда 9 ноября 2022?") == [], "months are read in English only"
    assert spans("What happened on 31 February 2023?") == [], "an impossible day is no date"
    assert spans("in 1850") == [] and spans("in 2999") == [], "years outside 1900..2099 are not read"


def test_a_chunk_with_no_date_or_a_date_out_of_range_is_not_within():
    may = spans("in May 2022")
    assert not within(may, None) and not within([], 1_651_400_000.0)
    assert within(may, datetime(2022, 5, 2, tzinfo=UTC).timestamp())
    assert not within(may, 1e20) and not within(may, -1e20), "out of the calendar's range: not within"


def test_a_question_that_is_only_a_date(planted):
    hits = recall(planted, "20 July, 2023")
    assert ordered_by_rank_value(hits) or hits == []
    assert all(0 <= h.score <= 1 for h in hits)


def test_a_thread_with_no_dates_keeps_its_order(tmp_path):
    store = chat_store(tmp_path, PLANTED, dates=[None, None])
    dated = recall(store, "What did Ana plant in July 2023?")
    assert [h.id for h in dated] == [h.id for h in recall(store, "What did Ana plant in July 2023?", OFF)]


def test_a_store_dated_2999_and_1850_keeps_its_order(tmp_path):
    store = chat_store(tmp_path, PLANTED, dates=["1:56 pm on 8 May, 2999", "1:56 pm on 8 May, 1850"])
    for question in ("What was planted in 2999?", "What was planted in May 1850?"):
        assert [h.id for h in recall(store, question)] == [h.id for h in recall(store, question, OFF)]


def test_a_speaker_called_may_is_not_a_date(tmp_path):
    """Her name in every header and the question is no month; "in May" is, and lifts the May session's turn."""
    store = chat_store(tmp_path, PLANTED, speakers=("May", "Bo"), dates=TWO_DATES[::-1])
    hits = recall(store, "What did May plant?")
    assert _texts(hits)[0] == "Planted tomatoes."
    assert [h.id for h in hits] == [h.id for h in recall(store, "What did May plant?", OFF)]
    assert _texts(recall(store, "What did May plant in May?"))[0].endswith("by the shed.")
