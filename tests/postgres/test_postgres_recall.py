"""Recall's reordering on Postgres (memdock_entries.rerank, shared with sqlite; docs/concepts/recall.md): a question
naming a date ranks the turns dated within it first, one naming a speaker ranks the other speaker's turns that
only name them lower, and both order a conversation as sqlite orders the same one. Scores stay each chunk's own.
Then the bad input issue #34 names for the date rule: a question that is only a date, only stop words, in another
script, and a store dated 2999 and 1850."""

from pathlib import Path

import pytest
from postgres_support import SQLITE_ONLY_STEPS_OFF, backend, gate
from support.chat_stores import chat_chunks, ordered_by_rank_value
from support.sqlite_helpers import sqlite_backend

pytestmark = gate

DATE_OFF = {"question_date_weight": 0}
TWO_DATES = ["1:56 pm on 3 May, 2023", "1:56 pm on 20 July, 2023"]
PLANTED = [["Planted tomatoes.", "Nice."], ["Planted tomatoes in the big garden by the shed.", "Ok."]]
PAINTING = [
    [
        "I painted a sunset over the lake with the kids, it took the whole weekend and a lot of orange.",
        "Ana, painting! Ana, more painting! Ana painting again!",
    ]
]
"""Bo's turn names Ana three times: Postgres's tie order (ts_rank_cd, cover density) puts it above Ana's own."""


class Stores:
    """One chat indexed into sqlite and into a fresh Postgres database, asked the same questions."""

    def __init__(self, root: Path, pg, sessions: list[list[str]], **chat) -> None:
        chunks = chat_chunks(root, sessions, **chat)
        self.dsn, self.root = pg.dsn(pg.new_database()), root
        backend(self.dsn, root / "pg", workers=1).index(chunks)
        sqlite_backend(root / "sqlite", config=SQLITE_ONLY_STEPS_OFF).index(chunks)

    def postgres(self, question: str, config: dict | None = None):
        return backend(self.dsn, self.root / "pg", config=config, workers=1).query(question, limit=10)

    def sqlite(self, question: str):
        return sqlite_backend(self.root / "sqlite", config=SQLITE_ONLY_STEPS_OFF).query(question, limit=10).hits


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def planted(tmp_path_factory, pg):
    return Stores(tmp_path_factory.mktemp("planted"), pg, PLANTED, dates=TWO_DATES)


def test_a_named_date_ranks_the_turn_of_that_date_first(planted):
    """Postgres's tie order (ts_rank_cd) puts the July turn first; the question asks about May."""
    question = "What did Ana plant in May 2023?"
    off = planted.postgres(question, DATE_OFF).hits
    assert _texts(off)[0] == "Planted tomatoes in the big garden by the shed."
    dated = planted.postgres(question).hits
    assert _texts(dated)[0] == "Planted tomatoes."
    assert {h.id: h.score for h in dated} == pytest.approx({h.id: h.score for h in off}), "scores stay per chunk"
    assert ordered_by_rank_value(dated)
    assert [h.id for h in dated] == [h.id for h in planted.sqlite(question)]


def test_an_addressed_turn_ranks_below_the_named_speakers_own(tmp_path, pg):
    stores = Stores(tmp_path, pg, PAINTING)
    off = stores.postgres("What has Ana painted?", {"addressed_turn_weight": 0}).hits
    assert _texts(off)[0].startswith("Ana, painting!")
    about = stores.postgres("What has Ana painted?").hits
    assert _texts(about)[0].startswith("I painted a sunset")
    assert {h.id: h.score for h in about} == pytest.approx({h.id: h.score for h in off}), "scores stay per chunk"
    assert [h.id for h in about] == [h.id for h in stores.sqlite("What has Ana painted?")]


# bad input (issue #34)


def test_a_question_that_is_only_a_date(planted):
    hits = planted.postgres("20 July, 2023").hits
    assert ordered_by_rank_value(hits) or hits == []


def test_a_question_of_only_stop_words(planted):
    """English stop words are no searchable words to Postgres (sqlite's FTS5 keeps them): nothing, said why."""
    result = planted.postgres("the of and to a")
    assert result.hits == [] and "no searchable words" in (result.reason or "")


def test_a_question_in_another_script(tmp_path, pg):
    stores = Stores(tmp_path, pg, [["Вчера я посадила помидоры.", "Хорошо."], ["Сегодня футбол.", "Да."]])
    hits = stores.postgres("Когда 9 ноября 2022 посадила помидоры?").hits
    assert _texts(hits)[0] == "Вчера я посадила помидоры."
    assert ordered_by_rank_value(hits)


def test_a_store_dated_2999_and_1850_keeps_its_order(tmp_path, pg):
    stores = Stores(tmp_path, pg, PLANTED, dates=["1:56 pm on 8 May, 2999", "1:56 pm on 8 May, 1850"])
    for question in ("What was planted in 2999?", "What was planted in May 1850?"):
        hits = stores.postgres(question).hits
        assert [h.id for h in hits] == [h.id for h in stores.postgres(question, DATE_OFF).hits]
        assert {h.event_time[:4] for h in hits} <= {"2999", "1850"} and ordered_by_rank_value(hits)
