"""The stretches of days a question names beside single dates (memdock_entries.timeframe): ranges, weeks and
weekends by a day, the n-th week of a month, early / mid / late in a month; then the bad input issue #34 names."""

import sys
from datetime import date
from pathlib import Path

import pytest
from test_recall_reorder import chat_store, recall

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_entries.timeframe import spans  # noqa: E402

OFF = {"question_date_weight": 0}


def _read(question: str) -> list[tuple[date, date, bool]]:
    return [(span.first, span.last, span.month_only) for span in spans(question)]


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        # a range
        ("Where was John between August 11 and August 15 2023?", date(2023, 8, 11), date(2023, 8, 15)),
        ("between 11th and 15th August 2023", date(2023, 8, 11), date(2023, 8, 15)),
        ("between August 11, 2023 and August 15, 2023", date(2023, 8, 11), date(2023, 8, 15)),
        ("from December 28 to January 3, 2023", date(2022, 12, 28), date(2023, 1, 3)),
        ("between 11 August 2023 and 15 August", date(2023, 8, 11), date(2023, 8, 15)),
        # a week, a weekend or a day by a day
        ("Where was Tim in the week before 16 November 2023?", date(2023, 11, 9), date(2023, 11, 16)),
        ("the week prior to 16 November 2023", date(2023, 11, 9), date(2023, 11, 16)),
        ("the week after 16 November 2023", date(2023, 11, 17), date(2023, 11, 23)),
        ("the week of 16 November 2023", date(2023, 11, 13), date(2023, 11, 19)),
        ("the weekend of 20 May 2023", date(2023, 5, 19), date(2023, 5, 21)),
        ("the weekend of 21 May 2023", date(2023, 5, 19), date(2023, 5, 21)),
        ("the weekend of 17 May 2023", date(2023, 5, 19), date(2023, 5, 21)),
        ("the weekend before 16 November 2023", date(2023, 11, 10), date(2023, 11, 16)),
        ("the weekend after 16 November 2023", date(2023, 11, 17), date(2023, 11, 19)),
        ("the day after 31 December 2023", date(2024, 1, 1), date(2024, 1, 1)),
        ("the day before May 1,2023", date(2023, 4, 30), date(2023, 5, 1)),
        # part of a month
        ("Which country in the second week of November 2023?", date(2023, 11, 8), date(2023, 11, 14)),
        ("the first week of March 2022", date(2022, 3, 1), date(2022, 3, 7)),
        ("the last week of February 2024", date(2024, 2, 23), date(2024, 2, 29)),
        ("the last week of February 2023", date(2023, 2, 22), date(2023, 2, 28)),
        ("Which tournament did Nate win in the beginning of November 2022?", date(2022, 11, 1), date(2022, 11, 10)),
        ("early May 2023", date(2023, 5, 1), date(2023, 5, 10)),
        ("mid-June 2022", date(2022, 6, 11), date(2022, 6, 20)),
        ("the middle of June, 2022", date(2022, 6, 11), date(2022, 6, 20)),
        ("late April 2022", date(2022, 4, 21), date(2022, 4, 30)),
        ("by the end of February 2023", date(2023, 2, 21), date(2023, 2, 28)),
    ],
)
def test_a_stretch_of_days(question, first, last):
    assert _read(question) == [(first, last, False)]


def test_a_stretch_without_a_year_is_those_days_of_any_year():
    (week,) = spans("Which country was Tim visiting in the second week of November?")
    assert week.month_only and (week.first.month, week.first.day, week.last.day) == (11, 8, 14)
    assert week.holds(date(2023, 11, 8)) and week.holds(date(1999, 11, 14)) and week.holds(date(2023, 11, 28))
    assert not week.holds(date(2023, 11, 7)) and not week.holds(date(2023, 11, 29))
    (new_year,) = spans("from December 28 to January 3")
    assert new_year.holds(date(2023, 1, 2)) and new_year.holds(date(2022, 12, 28))
    assert not new_year.holds(date(2023, 2, 1)) and not new_year.holds(date(2023, 12, 27))
    (late,) = spans("late February")
    assert late.holds(date(2023, 2, 28)) and late.holds(date(2024, 2, 29)) and not late.holds(date(2023, 2, 20))
    (june,) = spans("in June")
    assert june.holds(date(2023, 6, 1)) and june.holds(date(2023, 7, 14)) and not june.holds(date(2023, 5, 31))
    assert not june.holds(date(2023, 7, 15))


def test_a_week_named_ranks_the_turn_of_that_week_first(tmp_path):
    store = chat_store(
        tmp_path,
        [["Tim toured the castles.", "Nice."], ["Tim toured the castles of the north with his aunt.", "Ok."]],
        dates=["1:56 pm on 3 May, 2023", "1:56 pm on 10 November, 2023"],
    )
    question = "Where did Tim tour in the week before 16 November 2023?"
    assert recall(store, question, OFF)[0].text.endswith("Tim toured the castles.")
    assert recall(store, question)[0].text.endswith("with his aunt.")


# bad input (issue #34)


@pytest.mark.parametrize(
    "question",
    [
        "between February 30 and March 2 2023",
        "the week before 30 February 2023",
        "the weekend of 31 April 2023",
        "between 31 and 15 June 2023",
        "between 15 and 11 August 2023",
        "the week after 3 May 1850",
        "in 1850 the week after 3 May 1850",
        "the last week of February 1850",
        "early May 2999",
        "between 1 and 5 May 2999",
        "in May 1850",
        "the fifth week of May",
        "May I ask about the week of May?",
        "May I ask what happened early, May?",
        "Когда была вторая неделя ноября 2022?",
        "在2023年8月11日和8月15日之间",
        "between and",
        "the week before",
        "",
    ],
)
def test_what_names_no_stretch(question):
    assert spans(question) == []


def test_a_longer_number_is_not_read_as_less():
    assert _read("the week of May 2023") == [(date(2023, 5, 1), date(2023, 5, 31), False)]
    assert _read("the fifth week of May 2023") == [(date(2023, 5, 1), date(2023, 5, 31), False)]
