"""Score fusion in hybrid mode (memdock_sqlite score_fusion.py, docs/concepts/recall.md): with
`hybrid_cosine_weight` set, a chunk is ranked and scored by (1 - w) x its word share + w x its cosine, so the
cosine decides among turns whose words tie (a question that reaches them through the speaker's name alone). Then
the bad input issue #34 names, through a hybrid store. Embeddings come from the loopback endpoint's hashed bag of
words (tests/support/openai_loopback.py): texts sharing words are near."""

import sys
from pathlib import Path

import pytest
from support.chat_stores import chat_chunks, ordered_by_rank_value
from support.openai_loopback import OpenAILoopback
from support.sqlite_helpers import sqlite_backend

from memdock.errors import ConfigError

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_sqlite import score_fusion, scoring  # noqa: E402

LATER_STEPS_OFF = {"substance_weight": 0, "context_turn_weight": 0, "neighbour_weight": 0}
NATE = [["So long.", "Hi.", "See you.", "Ok.", "What I do on weekends is kickboxing at the gym.", "Nice."]]
GARDEN = [
    ["I planted tomatoes in the raised bed.", "The basil is growing well in the raised bed.", "Tomatoes and basil."],
    ["Basil pesto tonight.", "The football match was a draw."],
]


@pytest.fixture(scope="module")
def server():
    with OpenAILoopback() as s:
        yield s


def embedded(server) -> dict:
    return {"embedding_provider": "openai", "embedding_model": "hash-64", "embedding_base_url": server.base_url}


def hybrid_store(root: Path, server, sessions, **kw) -> Path:
    sqlite_backend(root / "store", config=embedded(server)).index(chat_chunks(root, sessions, **kw))
    return root / "store"


def recall(store: Path, server, question: str, config: dict | None = None, mode: str = "hybrid"):
    backend = sqlite_backend(store, config=embedded(server) | (config or {}))
    return backend.query(question, limit=10, mode=mode).hits


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def nate(tmp_path_factory, server):
    return hybrid_store(tmp_path_factory.mktemp("nate"), server, NATE, speakers=("Nate", "Jo"))


def test_the_cosine_decides_among_turns_the_speakers_name_alone_reaches(nate, server):
    question = "What does Nate do?"  # its only word past the stopwords is the speaker's name
    words = recall(nate, server, question, LATER_STEPS_OFF, mode="bm25")
    assert _texts(words)[0] in ("So long.", "See you."), "every turn of Nate's ties on words; BM25 favours short"
    fused = recall(nate, server, question, LATER_STEPS_OFF | {"hybrid_cosine_weight": 0.3})
    assert _texts(fused)[0] == "What I do on weekends is kickboxing at the gym."
    assert ordered_by_rank_value(fused)
    top = fused[0]
    expected = 0.7 * top.extra["coverage"] + 0.3 * scoring.cosine(top.extra["cosine"])
    assert top.score == pytest.approx(expected), "the score is the fused value, in [0, 1]"


def test_weight_zero_ranks_as_the_words_do(nate, server):
    question = "What does Nate do?"
    words = recall(nate, server, question, LATER_STEPS_OFF, mode="bm25")
    fused = recall(nate, server, question, LATER_STEPS_OFF | {"hybrid_cosine_weight": 0})
    assert [h.id for h in fused][: len(words)] == [h.id for h in words]


def test_score_fusion_is_the_default_and_rrf_can_be_chosen(nate, server):
    default = recall(nate, server, "What does Nate do?", LATER_STEPS_OFF)
    assert _texts(default)[0] == "What I do on weekends is kickboxing at the gym."
    assert not any("rrf" in h.extra for h in default)
    top = default[0]
    assert top.score == pytest.approx(
        (1 - score_fusion.COSINE_WEIGHT) * top.extra["coverage"]
        + score_fusion.COSINE_WEIGHT * scoring.cosine(top.extra["cosine"])
    )
    by_rank = recall(nate, server, "What does Nate do?", LATER_STEPS_OFF | {"hybrid_fusion": "rrf"})
    assert all("rrf" in h.extra for h in by_rank if "bm25" in h.extra or "cosine" in h.extra)


def test_fuse_orders_equal_word_shares_by_cosine_and_keeps_a_clear_word_lead():
    lexical = [(1, -3.0), (2, -2.0), (3, -1.0), (4, -0.5)]
    cover = {1: 1.0, 2: 0.5, 3: 0.5, 4: 0.5}
    cosines = {1: 0.3, 2: 0.2, 3: 0.7, 4: 0.5}
    ranked = score_fusion.fuse(lexical, cover, cosines, [(5, 0.9), (3, 0.7)], 0.3)
    assert [rid for rid, _, _ in ranked] == [1, 3, 4, 2, 5]
    assert ranked[-1][2] == {"cosine": 0.9}, "a chunk only the vectors found has no word share"
    assert all(0 <= score <= 1 for _, score, _ in ranked)
    assert [rid for rid, _, _ in score_fusion.fuse(lexical, cover, cosines, [], 0.0)] == [1, 2, 3, 4]


def test_fuse_refuses_a_weight_outside_zero_to_one():
    with pytest.raises(ValueError, match="hybrid_cosine_weight"):
        score_fusion.fuse([], {}, {}, [], 1.5)


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"hybrid_cosine_weight": 2}, r"\$\.hybrid_cosine_weight: 2 is greater than the maximum of 1"),
        ({"hybrid_cosine_weight": -0.1}, r"\$\.hybrid_cosine_weight: -0\.1 is less than the minimum of 0"),
        (
            {"hybrid_cosine_weight": "a"},
            r"\$\.hybrid_cosine_weight: 'a' is not of type 'number'|\$\.hybrid_cosine_weight: \"a\"",
        ),
    ],
)
def test_a_bad_weight_is_refused_naming_it(nate, server, config, reason):
    with pytest.raises(ConfigError, match=reason):
        recall(nate, server, "What does Nate do?", config)


# bad input (issue #34), through a hybrid store with score fusion

FUSED: dict = {}
"""The defaults: score fusion at hybrid_cosine_weight 0.2."""


@pytest.fixture(scope="module")
def garden(tmp_path_factory, server):
    return hybrid_store(tmp_path_factory.mktemp("garden"), server, GARDEN)


@pytest.mark.parametrize("question", ["8 May 2023", "the of and to a", "?!"])
def test_a_question_of_only_a_date_stopwords_or_marks(garden, server, question):
    hits = recall(garden, server, question, FUSED)
    assert all(0 <= h.score <= 1 and "rank_value" in h.extra for h in hits)


def test_a_question_in_another_script(tmp_path, server):
    store = hybrid_store(tmp_path, server, [["Вчера я посадила помидоры.", "Хорошо."], ["Сегодня футбол.", "Да."]])
    hits = recall(store, server, "Когда посадила помидоры?", FUSED)
    assert _texts(hits)[0] == "Вчера я посадила помидоры."
    assert ordered_by_rank_value(hits)


def test_a_thread_with_no_dates_and_one_speaker(tmp_path, server):
    store = hybrid_store(tmp_path, server, GARDEN, speakers=("Ana",), dates=[None, None])
    hits = recall(store, server, "When was the basil growing?", FUSED)
    assert hits and not any(h.event_time for h in hits) and {h.extra["author"] for h in hits} == {"Ana"}
    assert _texts(hits)[0] == "The basil is growing well in the raised bed."
    assert ordered_by_rank_value(hits)


def test_dates_in_the_future_and_before_1900(tmp_path, server):
    store = hybrid_store(tmp_path, server, GARDEN, dates=["1:56 pm on 8 May, 2999", "1:56 pm on 8 May, 1850"])
    hits = recall(store, server, "When was the basil growing in 2999?", FUSED)
    assert {h.event_time[:4] for h in hits} <= {"2999", "1850"}
    assert ordered_by_rank_value(hits)


def test_an_entity_named_like_a_common_word(tmp_path, server):
    store = hybrid_store(
        tmp_path, server, [["You may plant tomatoes now.", "Planted tomatoes."]], speakers=("May", "Bo")
    )
    hits = recall(store, server, "When did May plant tomatoes?", FUSED)
    assert _texts(hits)[0] == "You may plant tomatoes now."
    assert ordered_by_rank_value(hits)
