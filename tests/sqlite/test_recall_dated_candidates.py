"""Dated candidates (memdock_sqlite search.py, `dated_candidates`; docs/concepts/recall.md): a question naming a date
ranks more word candidates, so a turn dated within it that holds fewer of the question's words than a hundred turns
of another day still reaches the named-date step. 400 by default, 100 (as any question) turns it off; a question
naming no date ranks as many as before. Then the bad input issue #34 names, for this path."""

import sys
from pathlib import Path

import pytest
from test_recall_reorder import chat_store, ordered_by_rank_value, recall

from memdock.errors import ConfigError

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_sqlite.search import MIN_CANDIDATES, _pool_size  # noqa: E402

OFF = {"dated_candidates": 100}
MAY = [f"Tomatoes and basil, row {n}." for n in range(120)]
JULY = "Basil, at last."
SESSIONS = [MAY, ["Hello.", JULY]]
DATES = ["1:56 pm on 3 May, 2023", "1:56 pm on 20 July, 2023"]
QUESTION = "What basil and tomatoes in July 2023?"


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def garden(tmp_path_factory) -> Path:
    return chat_store(tmp_path_factory.mktemp("dated"), SESSIONS, dates=DATES)


def test_a_turn_dated_within_the_named_date_reaches_the_page(garden):
    assert JULY not in _texts(recall(garden, QUESTION, OFF))
    hits = recall(garden, QUESTION)
    assert _texts(hits)[0] == JULY
    assert ordered_by_rank_value(hits)


def test_scores_stay_each_chunks_own(garden):
    off = {h.id: h.score for h in recall(garden, QUESTION, OFF | {"question_date_weight": 0})}
    wide = {h.id: h.score for h in recall(garden, QUESTION, {"question_date_weight": 0})}
    assert wide == pytest.approx(off), "without the date step the wider pool changes nothing on the page"


@pytest.mark.parametrize("question", ["What basil and tomatoes?", "basil tomatoes"])
def test_a_question_naming_no_date_ranks_as_before(garden, question):
    assert [h.id for h in recall(garden, question)] == [h.id for h in recall(garden, question, OFF)]


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"dated_candidates": 0}, r"\$\.dated_candidates: 0 is less than the minimum of 1"),
        ({"dated_candidates": 1.5}, r"\$\.dated_candidates: 1\.5 is not of type ['\"]integer['\"]"),
        ({"dated_candidates": 10**6}, r"\$\.dated_candidates: 1000000 is greater than the maximum of 5000"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(garden, config, reason):
    with pytest.raises(ConfigError, match=reason):
        recall(garden, QUESTION, config)


# bad input (issue #34)


@pytest.mark.parametrize("question", ["3 May 2023", "in July 2023", "the of and to a", "Что посадили в июле?"])
def test_a_question_of_a_date_stopwords_or_another_script(garden, question):
    hits = recall(garden, question)
    assert [h.id for h in hits] == [h.id for h in recall(garden, question, OFF)] or ordered_by_rank_value(hits)


@pytest.mark.parametrize(
    ("question", "size"),
    [
        ("What was planted in July 2023?", 400),
        ("What was planted between August 11 and August 15 2023?", 400),
        ("What was planted in July 2999?", MIN_CANDIDATES),
        ("What was planted in July 1850?", MIN_CANDIDATES),
        ("What was planted on 31 February 2023?", MIN_CANDIDATES),
        ("What did May plant?", MIN_CANDIDATES),
        ("What did Ana plant in May 2023?", 400),
        ("2023", MIN_CANDIDATES),
        ("", MIN_CANDIDATES),
    ],
)
def test_how_many_candidates_a_question_ranks(question, size):
    """Years outside 1900..2099, impossible days and a speaker called May name no date."""
    assert _pool_size(question, 400) == size
    assert _pool_size(question, MIN_CANDIDATES) == MIN_CANDIDATES
    assert _pool_size(question, 50) == MIN_CANDIDATES, "never fewer than any other question's"


def test_a_thread_with_no_dates_and_one_speaker(tmp_path):
    store = chat_store(tmp_path, SESSIONS, speakers=("Ana",), dates=[None, None])
    hits = recall(store, QUESTION)
    assert [h.id for h in hits] == [h.id for h in recall(store, QUESTION, OFF)], "nothing is dated within July 2023"


def test_a_speaker_named_like_a_common_word(tmp_path):
    """A speaker called May: "What did May plant?" names no date, and ranks as many candidates as before."""
    store = chat_store(tmp_path, SESSIONS, speakers=("May", "Bo"), dates=DATES)
    question = "What basil and tomatoes did May grow?"
    assert [h.id for h in recall(store, question)] == [h.id for h in recall(store, question, OFF)]


# the shared corpora: questions naming no date are answered as before

LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo" / "locomo_dev.json"


def locomo_conversation(root: Path, index: int) -> tuple[Path, list[str]]:
    """A store of LoCoMo dev's conversation INDEX (imported as chat, header on) and its questions."""
    if not LOCOMO.is_file():
        pytest.skip(f"LoCoMo dev not found at {LOCOMO}")
    import json

    from memdock.chunking import ChunkOptions, chunk_bundle
    from memdock.importers.pipeline import import_corpus

    sample = json.loads(LOCOMO.read_text())[index]
    (root / "conv.json").write_text(json.dumps([sample]))
    import_corpus([root / "conv.json"], "chat", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks", ChunkOptions(header="on"))
    return chat_store_of(root, root / "chunks"), [qa["question"] for qa in sample["qa"]]


@pytest.fixture(scope="module")
def locomo_store(tmp_path_factory):
    return locomo_conversation(tmp_path_factory.mktemp("locomo"), 0)


def chat_store_of(root: Path, bundle: Path) -> Path:
    from support.sqlite_helpers import sqlite_backend

    sqlite_backend(root / "store").index(bundle)
    return root / "store"


def changed_questions(store: Path, questions: list[str], off: dict) -> list[str]:
    """The QUESTIONS whose top 10 in STORE differs between the defaults and the config OFF."""
    from support.sqlite_helpers import sqlite_backend

    now, before = sqlite_backend(store), sqlite_backend(store, config=off)
    changed = [
        q
        for q in questions
        if [h.id for h in now.query(q, limit=10).hits] != [h.id for h in before.query(q, limit=10).hits]
    ]
    now.close()
    before.close()
    return changed


def test_locomo_questions_naming_no_date_are_answered_as_before(locomo_store):
    store, every = locomo_store
    dated = [q for q in every if _pool_size(q, 400) > MIN_CANDIDATES]
    changed = changed_questions(store, dated + [q for q in every if q not in dated][:40], OFF)
    assert changed, "a question naming a date reaches another turn"
    assert all(_pool_size(q, 400) > MIN_CANDIDATES for q in changed), changed
