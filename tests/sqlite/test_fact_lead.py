"""A fact names an untitled entry by the lead of its text (memdock_sqlite/facts.py `_lead`), not the whole text:
the sentence must be the one the whole text gives, for any spacing and length."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from memdock.sdk import facts as sdk_facts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import facts

PIECES = ["a", "bb", "ccc", " ", "  ", "\n", "\t", "é", "x" * 20, " \u00a0 ", "\u2003", "東京", "🚀"]


def _entry(body: str) -> dict:
    return {"kind": "entry", "author": "ann", "event_time": None, "entry_type": "note", "title": "", "body": body}


def _sentence(body: str | None) -> str:
    get = {"entry:s": _entry(body or ""), "thread:t": {"kind": "thread", "title": "t"}}.get
    return sdk_facts.render(get, {"type": "contains", "source_id": "thread:t", "target_id": "entry:s"})[0]


@pytest.mark.parametrize("seed", range(4))
def test_the_lead_of_a_text_names_its_entry_as_the_whole_text_does(seed):
    rng = random.Random(seed)
    for _ in range(5000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 70)))
        assert _sentence(facts._lead(text)) == _sentence(text), repr(text)


def test_a_long_text_is_cut_to_its_lead():
    text = "word " * 10_000
    assert len(facts._lead(text) or "") <= sdk_facts.SNIPPET + 2
    assert _sentence(facts._lead(text)) == _sentence(text)
