"""Answer expansion: a hit that asks a question pulls in the chunk after it in its thread (its likely answer),
placed at a share of its own place, naming the hit it came with; a hit that asks nothing lends nothing, and
nothing is pulled in from before a hit; scores still fall with rank; filters still hold. By default only in a
conversation (threads imported as chat or irc): the answer scores a share of its hit's score whatever words it
holds, which is what a conversation's next turn deserves and not what min_score means on a memory of notes."""

import orjson
import pytest
from support.sqlite_helpers import sqlite_backend

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


def chat_store_of(root, *sessions: list[str]):
    """A chat store of SESSIONS (lists of turns, Ana and Bo in turn)."""
    conversation: dict = {"speaker_a": "Ana", "speaker_b": "Bo"}
    for i, turns in enumerate(sessions, 1):
        conversation[f"session_{i}_date_time"] = f"1:56 pm on {i} May, 2023"
        conversation[f"session_{i}"] = [
            {"speaker": ("Ana", "Bo")[j % 2], "dia_id": f"D{i}:{j + 1}", "text": text} for j, text in enumerate(turns)
        ]
    (root / "chat.json").write_bytes(orjson.dumps({"sample_id": "s", "conversation": conversation}))
    import_corpus([root / "chat.json"], "chat", root / "corpus")
    chunk_bundle(root / "corpus", root / "chunks")
    sqlite_backend(root / "store").index(root / "chunks")
    return root / "store"


@pytest.fixture(scope="module")
def chat_store(tmp_path_factory):
    return chat_store_of(
        tmp_path_factory.mktemp("chat"),
        [
            "How was your weekend?",
            "What did you do on Sunday afternoon?",
            "We went hiking up the ridge with the dog.",
            "Sounds lovely, I stayed home and read.",
        ],
    )


def test_in_a_conversation_the_answer_to_a_hit_comes_with_it_by_default(chat_store):
    alone = {"context_turn_weight": 0, "substance_weight": 0}  # the later steps (test_recall_context.py) alone
    hits = sqlite_backend(chat_store, config=alone).query("Sunday afternoon", limit=3).hits
    assert "Sunday afternoon" in hits[0].text
    answer = next(h for h in hits if "hiking" in h.text)
    assert answer.extra["neighbour_of"] == hits[0].id
    assert answer.score == pytest.approx(0.9 * hits[0].score)
    assert not any("weekend" in h.text for h in hits), "the turn before a hit is not its answer"
    off = sqlite_backend(chat_store, config=alone | {"neighbour_weight": 0}).query("Sunday afternoon", limit=3).hits
    assert not any("hiking" in h.text for h in off)


def test_notes_remembered_one_after_another_are_not_neighbours_by_default(tmp_path):
    with Memory("sqlite", data_dir=tmp_path / "notes") as memory:
        memory.remember("What did we decide about the Sunday afternoon deploys?", thread="ops")
        memory.remember("The office plants need watering twice a week.", thread="ops")
        hits = memory.recall("Sunday afternoon deploys", limit=5).hits
    assert len(hits) == 1 and "deploys" in hits[0].text


def bodies(hits):
    return [h.text.split("\n", 1)[-1] for h in hits]


def test_an_answer_that_asks_again_lends_from_the_place_and_score_it_was_given(tmp_path):
    store = chat_store_of(
        tmp_path,
        ["Did you see the purple giraffe zebra?", "Which one, the purple one?", "The tall one near the fence.", "Ok."],
        ["A zebra and a giraffe walked by.", "Lunch was fine."],
    )
    hits = sqlite_backend(store).query("purple giraffe zebra", limit=4).hits
    assert bodies(hits)[:3] == [
        "Did you see the purple giraffe zebra?",
        "Which one, the purple one?",
        "The tall one near the fence.",
    ]
    assert hits[2].extra["neighbour_of"] == hits[1].id
    assert hits[2].score == pytest.approx(0.9 * hits[1].score)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_ties_keep_their_bm25_order_when_nothing_is_lent(tmp_path):
    long_turn = "zorblat quimble frandish " + "and then we walked along the long winding road for hours " * 3
    turns = [long_turn, "quimble frandish plovix.", *(f"frandish note {i}." for i in range(3)), "unrelated turn."]
    store = chat_store_of(tmp_path, turns)
    query = "zorblat quimble frandish plovix"
    default = sqlite_backend(store).query(query, limit=5).hits
    off = sqlite_backend(store, config={"neighbour_weight": 0}).query(query, limit=5).hits
    assert default[0].score == pytest.approx(default[1].score)  # a tie, broken by BM25
    assert [h.id for h in default] == [h.id for h in off]


def test_the_answer_is_the_next_turn_with_text(tmp_path):
    store = chat_store_of(tmp_path, ["Where is the marmalade kept?", "", "In the pantry on the top shelf.", "Thanks."])
    hits = sqlite_backend(store).query("marmalade", limit=3).hits
    assert bodies(hits)[:2] == ["Where is the marmalade kept?", "In the pantry on the top shelf."]
    assert hits[1].extra["neighbour_of"] == hits[0].id


def test_a_long_question_lends_to_the_reply_not_to_the_rest_of_its_own_turn(tmp_path):
    question = "Did you ever finish the lighthouse painting? " + " ".join(f"filler{i} word" for i in range(600))
    store = chat_store_of(tmp_path, [question, "Yes, I finished it last week.", "Nice."])
    hits = sqlite_backend(store).query("lighthouse painting", limit=3).hits
    reply = [h for h in hits if "neighbour_of" in h.extra]
    assert len(reply) == 1 and bodies(reply) == ["Yes, I finished it last week."]


@pytest.mark.parametrize("mark", ["?", "\uff1f", "\u061f", "\u203d"])
def test_question_marks_of_other_scripts_count(tmp_path, mark):
    store = chat_store_of(tmp_path, [f"Which colour was the kayak{mark}", "It was bright orange.", "Ok then."])
    hits = sqlite_backend(store).query("kayak colour", limit=3).hits
    assert "bright orange" in hits[1].text and hits[1].extra["neighbour_of"] == hits[0].id


SHIP_DAY = """# ship-day — Thread
Status: OPEN
Ball: Codex (lee)
Topic: ship-day
Created: 2026-01-20T02:10:00Z

---
Entry: Codex (lee) 2026-01-20T02:10:00Z
Role: planner
Type: Note
Title: Should we ship the quokka build on Friday?

Release notes for the quokka build are attached.

---
Entry: Claude (lee) 2026-01-20T09:00:00Z
Role: critic
Type: Decision
Title: Not on Friday

No: we hold it until Monday morning.
"""


def test_a_question_in_the_title_lends_too(tmp_path):
    (tmp_path / "ship-day.md").write_text(SHIP_DAY)
    import_corpus([tmp_path / "ship-day.md"], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    sqlite_backend(tmp_path / "store").index(tmp_path / "chunks")
    hits = sqlite_backend(tmp_path / "store", config={"neighbour_weight": 0.9}).query("quokka build", limit=3).hits
    assert "?" not in bodies(hits)[0] and "Monday" in hits[1].text
    assert hits[1].extra["neighbour_of"] == hits[0].id
