"""A question that names one speaker ranks the other speaker's turns that only name them lower (memdock_entries
speakers.py, rerank.py; docs/concepts/recall.md); scores stay each chunk's own. Then the bad input issue #34
names, for this path."""

import sys
from pathlib import Path

import pytest
from test_recall_reorder import chat_store, ordered_by_rank_value, recall

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"
sys.path[:0] = [str(ADAPTERS / "sqlite"), str(ADAPTERS / "common")]
from memdock_entries.speakers import addresses, named  # noqa: E402

OFF = {"addressed_turn_weight": 0}
PAINTING = [
    [
        "I painted a sunset over the lake with the kids, it took the whole weekend and a lot of orange.",
        "Ana, painting!",
    ]
]


def _texts(hits) -> list[str]:
    return [h.text.split("\n")[-1] for h in hits]


@pytest.fixture(scope="module")
def painting(tmp_path_factory):
    return chat_store(tmp_path_factory.mktemp("painting"), PAINTING)


def test_the_named_speakers_own_turn_outranks_a_turn_that_only_names_them(painting):
    off = recall(painting, "What has Ana painted?", OFF)
    assert _texts(off)[0] == "Ana, painting!"
    about = recall(painting, "What has Ana painted?")
    assert _texts(about)[0].startswith("I painted a sunset")
    assert {h.id: h.score for h in about} == pytest.approx({h.id: h.score for h in off}), "scores stay per chunk"
    assert ordered_by_rank_value(about)


def test_which_speaker_a_question_names():
    assert named("What has Melanie painted?", ["Melanie", "Caroline"]) == "Melanie"
    assert named("What did Melanie's kids paint?", ["Melanie", "Caroline"]) == "Melanie"
    assert named("What do Melanie and Caroline both like?", ["Melanie", "Caroline"]) is None
    assert named("What did they paint?", ["Melanie", "Caroline"]) is None
    assert addresses("Wow, Melanie! Lovely.", "Caroline", "Melanie")
    assert not addresses("Wow, Melanie! Lovely.", "Melanie", "Melanie"), "her own turn"
    assert not addresses("Wow! Lovely.", "Caroline", "Melanie") and not addresses("Hi Melanie", None, "Melanie")


# bad input (issue #34)


def test_a_speaker_named_like_a_common_word():
    """May and Will name no one as "may" or as the question's first word; written as a name, they do."""
    assert named("What may they bake?", ["May", "Bo"]) is None
    assert named("Will Bo come to the party?", ["Will", "Bo"]) == "Bo"
    assert named("What did May bake?", ["May", "Bo"]) == "May"
    assert not addresses("You may bake it.", "Bo", "May")


def test_a_question_in_another_script():
    assert named("Что нарисовала Анна?", ["Анна", "Борис"]) == "Анна"
    assert addresses("Анна, красиво!", "Борис", "Анна")


def test_a_conversation_of_one_speaker_keeps_its_order(tmp_path):
    store = chat_store(tmp_path, [["Ana painted the lake.", "Ana painted it again, Ana says."]], speakers=("Ana",))
    hits = recall(store, "What has Ana painted?")
    assert [h.id for h in hits] == [h.id for h in recall(store, "What has Ana painted?", OFF)]


@pytest.mark.parametrize("question", ["the of and to a", "1 May, 2023", "Ana", "What was painted?"])
def test_a_question_naming_no_speaker_past_its_first_word_keeps_its_order(painting, question):
    hits = recall(painting, question)
    assert [h.id for h in hits] == [h.id for h in recall(painting, question, OFF)]
