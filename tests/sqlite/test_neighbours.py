"""Answer expansion: a hit that asks a question pulls in the chunk after it in its thread (its likely answer),
placed at a share of its own place, naming the hit it came with; a hit that asks nothing lends nothing, and
nothing is pulled in from before a hit; scores still fall with rank; filters still hold. By default only in a
conversation (threads imported as chat or irc): the answer scores a share of its hit's score whatever words it
holds, which is what a conversation's next turn deserves and not what min_score means on a memory of notes."""

import orjson
import pytest
from sqlite_helpers import sqlite_backend

from memdock import Memory
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus

ASKS = "storage engine flag"  # release-planning: "Cut the 2.0 release", which ends on an open question
TELLS = "thundering herd"  # incident-cache: "Cache stampede at 02:00", which asks nothing


@pytest.fixture(scope="module")
def store(tmp_path_factory, fixture_chunks):
    root = tmp_path_factory.mktemp("neighbours") / "store"
    sqlite_backend(root).index(fixture_chunks)
    return root


def search(store, weight: float, query: str = ASKS, **kw):
    return sqlite_backend(store, config={"neighbour_weight": weight}).query(query, limit=5, **kw).hits


def test_the_entry_after_a_question_comes_with_it(store):
    alone = search(store, 0)
    assert "Cut the 2.0 release" in alone[0].text and not any("Migration script dry run" in h.text for h in alone)
    expanded = search(store, 0.8)
    assert expanded[0].id == alone[0].id
    answer = next(h for h in expanded if "Migration script dry run" in h.text)
    assert answer.extra["neighbour_of"] == alone[0].id
    assert answer.score == pytest.approx(alone[0].score * 0.8)
    assert answer.provenance["thread_id"] == alone[0].provenance["thread_id"]


def test_a_hit_that_asks_nothing_lends_nothing(store):
    alone = search(store, 0, TELLS)
    assert "Cache stampede" in alone[0].text
    expanded = search(store, 0.8, TELLS)
    assert [(h.id, h.score) for h in expanded] == [(h.id, h.score) for h in alone]
    assert not any("neighbour_of" in h.extra for h in expanded)


def test_an_answer_outside_the_filters_stays_out(store):
    only_planners = search(store, 0.8, filters={"roles": ["planner"]})
    assert only_planners and {h.extra["role"] for h in only_planners} == {"planner"}
    assert not any("neighbour_of" in h.extra for h in only_planners)


def test_scores_still_fall_with_rank(store):
    hits = search(store, 0.8)
    scores = [h.score for h in hits]
    assert any("neighbour_of" in h.extra for h in hits) and scores == sorted(scores, reverse=True)


def test_off_by_default_outside_conversations(store):
    default = sqlite_backend(store).query(ASKS, limit=5).hits
    assert [(h.id, h.score) for h in default] == [(h.id, h.score) for h in search(store, 0)]
    assert not any("neighbour_of" in h.extra for h in default)


CHAT = {
    "sample_id": "trip",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "How was your weekend?"},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "What did you do on Sunday afternoon?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "We went hiking up the ridge with the dog."},
            {"speaker": "Bo", "dia_id": "D1:4", "text": "Sounds lovely, I stayed home and read."},
        ],
    },
}


@pytest.fixture(scope="module")
def chat_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("chat")
    (root / "chat.json").write_bytes(orjson.dumps(CHAT))
    import_corpus([root / "chat.json"], "chat", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    sqlite_backend(root / "store").index(root / "chunks")
    return root / "store"


def test_in_a_conversation_the_answer_to_a_hit_comes_with_it_by_default(chat_store):
    hits = sqlite_backend(chat_store).query("Sunday afternoon", limit=3).hits
    assert "Sunday afternoon" in hits[0].text
    answer = next(h for h in hits if "hiking" in h.text)
    assert answer.extra["neighbour_of"] == hits[0].id
    assert answer.score == pytest.approx(0.9 * hits[0].score)
    assert not any("weekend" in h.text for h in hits), "the turn before a hit is not its answer"
    off = sqlite_backend(chat_store, config={"neighbour_weight": 0}).query("Sunday afternoon", limit=3).hits
    assert not any("hiking" in h.text for h in off)


def test_notes_remembered_one_after_another_are_not_neighbours_by_default(tmp_path):
    with Memory("sqlite", data_dir=tmp_path / "notes") as memory:
        memory.remember("What did we decide about the Sunday afternoon deploys?", thread="ops")
        memory.remember("The office plants need watering twice a week.", thread="ops")
        hits = memory.recall("Sunday afternoon deploys", limit=5).hits
    assert len(hits) == 1 and "deploys" in hits[0].text
