"""bench/locomo.py --misses: the questions of a category whose evidence is nowhere in the top 10, printed with the
evidence turns and the top 10, so the pattern is read before a rule is built (issue 34, open-domain)."""

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import locomo


def question(text: str, category: int, evidence: set[str]) -> dict:
    return {"sample": "conv-1", "text": text, "category": category, "evidence": evidence}


TEXTS = {f"e{i}": f"Ann: turn {i}" for i in range(30)}


def test_a_miss_is_printed_with_its_evidence_and_top_ten_and_a_hit_is_not():
    questions = [
        question("Would Ann like parks?", 3, {"e20"}),  # missed: e20 is 11th
        question("What might Ann study?", 3, {"e2", "e25"}),  # e2 in the top 10: not a miss
        question("When did Ann go?", 2, {"e29"}),  # another category
    ]
    ranked = [[f"e{i}" for i in range(10, 21)], [f"e{i}" for i in range(10)], [f"e{i}" for i in range(10)]]
    lines = locomo.misses(questions, ranked, TEXTS, 3, 30)
    assert lines[0] == "open-domain: 1 of 2 questions have no evidence turn in the top 10"
    text = "\n".join(lines)
    assert "Would Ann like parks?" in text and "What might Ann study?" not in text and "When did" not in text
    assert "  evidence: 'Ann: turn 20'" in lines
    assert [line for line in lines if line.startswith("  top")][-1] == "  top 10: 'Ann: turn 19'"


def test_count_caps_the_questions_printed():
    questions = [question(f"q{i}?", 1, {"e29"}) for i in range(5)]
    lines = locomo.misses(questions, [["e0"]] * 5, TEXTS, 1, 2)
    assert lines[0].startswith("multi-hop: 5 of 5")
    assert sum(line.startswith("\nQ ") for line in lines) == 2


@pytest.mark.parametrize(("value", "parsed"), [("3", (3, 30)), ("open-domain:5", (3, 5)), ("multi-hop", (1, 30))])
def test_the_category_is_read_by_number_or_name(value, parsed):
    assert locomo.misses_spec(value) == parsed


@pytest.mark.parametrize("value", ["6", "0", "open domain", "3:0", "3:x", "3:-1", ""])
def test_a_bad_category_or_count_is_refused_naming_what_was_expected(value):
    with pytest.raises(argparse.ArgumentTypeError, match="expected a category"):
        locomo.misses_spec(value)
