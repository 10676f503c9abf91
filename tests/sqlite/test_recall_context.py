"""Context turns and substance (memdock_sqlite context.py, substance.py; docs/concepts/recall.md): the turns around
the best hits are lent a place, and among equal matches a turn that says more outranks one that says less. Scores
of ranked chunks stay their own; the order follows `extra.rank_value`. Then the bad input issue #34 names, for
this path."""

import sys
from pathlib import Path

import pytest
from support.sqlite_helpers import sqlite_backend
from test_recall_reorder import chat_store, ordered_by_rank_value
from test_recall_reorder import recall as recall_alone

from memdock.errors import ConfigError

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_sqlite import context, db, substance  # noqa: E402

NO_CONTEXT = {"context_turn_weight": 0}
NO_SUBSTANCE = {"substance_weight": 0}
FILLER = ["The football match was a draw.", "Traffic was bad on the ring road.", "New shoes, finally."]
LAKE = [
    ["We drove out to the lake on Sunday.", "Sounds lovely.", "The water was freezing but the kids swam anyway."],
    FILLER,
]
CONSOLE = [["Bye!", "See you.", "I keep my old console in the den, next to the records and the piano."]]


def recall(store: Path, query: str, config: dict | None = None):
    return recall_alone(store, query, config, alone=False)


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    return chat_store(tmp_path_factory.mktemp("lake"), LAKE)


def test_the_turns_around_the_best_hit_come_in(lake):
    answer = "The water was freezing but the kids swam anyway."
    off = recall(lake, "lake Sunday", NO_CONTEXT)
    assert answer not in _texts(off), "it shares no word with the question"
    lent = recall(lake, "lake Sunday")
    assert _texts(lent)[0] == "We drove out to the lake on Sunday."
    brought = next(h for h in lent if _texts([h])[0] == answer)
    assert brought.extra["context_of"] == lent[0].id
    assert brought.score == pytest.approx(context.CONTEXT_WEIGHT * lent[0].score)
    assert ordered_by_rank_value(lent)
    assert {h.id: h.score for h in lent if h.id in {o.id for o in off}} == pytest.approx(
        {h.id: h.score for h in off}
    ), "the ranked chunks' scores stay their own"


def test_how_far_either_side(lake):
    answer = "The water was freezing but the kids swam anyway."
    assert answer not in _texts(recall(lake, "lake Sunday", {"context_turns": 1}))
    assert answer not in _texts(recall(lake, "lake Sunday", {"context_turns": 0}))
    assert answer in _texts(recall(lake, "lake Sunday", {"context_turns": 2}))


def test_a_turn_outside_the_filter_is_not_lent(lake):
    hits = sqlite_backend(lake).query("lake Sunday", limit=10, filters={"authors": ["Ana"]}).hits
    assert "The water was freezing but the kids swam anyway." in _texts(hits), "Ana's, two turns on"
    assert "Sounds lovely." not in _texts(hits), "Bo's"


def test_among_equal_matches_the_turn_that_says_more_comes_first(tmp_path):
    store = chat_store(tmp_path, CONSOLE, speakers=("Nate", "Jo"))
    off = recall(store, "What does Nate own?", NO_SUBSTANCE | NO_CONTEXT)
    assert _texts(off)[0] == "Bye!", "BM25 favours the shortest of equal matches"
    on = recall(store, "What does Nate own?", NO_CONTEXT)
    assert _texts(on)[0].startswith("I keep my old console")
    assert {h.id: h.score for h in on} == pytest.approx({h.id: h.score for h in off}), "scores stay per chunk"
    assert ordered_by_rank_value(on)


def test_substance_does_not_overtake_a_fuller_match(tmp_path):
    long = "A long turn about the den, the records and the garden shed out back, and more."
    store = chat_store(tmp_path, [["Old piano, den.", "Ok.", long]])
    assert _texts(recall(store, "old piano den", NO_CONTEXT))[0] == "Old piano, den."
    assert _texts(recall(store, "den", NO_CONTEXT))[0] == long, "equal matches: the longer first"


def test_a_thread_of_another_format_keeps_its_order_unless_configured(lake):
    conn = db.open_db(lake / "data", write=False)
    assert conn is not None
    rows = conn.execute("SELECT rowid FROM chunks ORDER BY rowid").fetchall()
    ranked = [(rid, 1.0 - i / 10, {}) for i, (rid,) in enumerate(rows)]
    notes = frozenset({"markdown"})
    assert substance.weigh(conn, ranked, 0.2, by_score=True, k=10, formats=notes) == [
        (rid, score, {"rank_value": score}) for rid, score, _ in ranked
    ]
    assert [r[0] for r in context.lend(conn, ranked[:1], 0.5, 2, 10, None, by_score=True, k=10, formats=notes)] == [
        ranked[0][0]
    ]
    lent = context.lend(conn, ranked[:1], 0.5, 2, 10, None, by_score=True, k=10, formats=None)
    assert [r[0] for r in lent] == [ranked[0][0], ranked[1][0], ranked[2][0]]
    conn.close()


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"context_turn_weight": 2}, r"\$\.context_turn_weight: 2 is greater than the maximum of 1"),
        ({"context_turns": -1}, r"\$\.context_turns: -1 is less than the minimum of 0"),
        ({"substance_weight": "a"}, r"\$\.substance_weight: 'a' is not of type 'number'|\$\.substance_weight: \"a\""),
    ],
)
def test_a_bad_setting_is_refused_naming_it(lake, config, reason):
    with pytest.raises(ConfigError, match=reason):
        recall(lake, "lake Sunday", config)


# bad input (issue #34)


@pytest.mark.parametrize("question", ["the of and to a", "?!"])
def test_a_question_of_only_stopwords_or_marks_lends_nothing_new(lake, question):
    hits = recall(lake, question)
    assert not any("context_of" in h.extra for h in hits) or _texts(hits)[0] in _texts(
        recall(lake, question, NO_CONTEXT)
    )


def test_a_question_in_another_script(tmp_path):
    store = chat_store(tmp_path, [["Мы ездили на озеро в воскресенье.", "Здорово.", "Вода была ледяная."], FILLER])
    assert "Вода была ледяная." in _texts(recall(store, "озеро воскресенье"))
    assert "Вода была ледяная." not in _texts(recall(store, "озеро воскресенье", NO_CONTEXT))


def test_a_conversation_of_one_speaker_with_no_dates(tmp_path):
    store = chat_store(tmp_path, LAKE, speakers=("Ana",), dates=[None, None])
    hits = recall(store, "lake Sunday")
    assert "The water was freezing but the kids swam anyway." in _texts(hits)
    assert ordered_by_rank_value(hits)


def test_a_thread_of_one_turn(tmp_path):
    store = chat_store(tmp_path, [["We drove out to the lake on Sunday."], FILLER])
    assert _texts(recall(store, "lake Sunday")) == ["We drove out to the lake on Sunday."]
