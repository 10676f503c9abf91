"""The rule of answer expansion that the sqlite and postgres adapters share (memdock_sqlite.neighbours says why and
what it measured): which threads lend a place to the turn after a question, at what weight, and what asks."""

from __future__ import annotations

CONVERSATIONS = frozenset({"chat", "irc"})
CONVERSATION_WEIGHT = 0.9
"""The weight every rotation fold of `bench/locomo.py --neighbours` chose (docs/performance.md)."""

QUESTION_MARKS = frozenset("?\uff1f\ufe56\u061f\u055e\u1367\u203d\u2047\u2048\u2049\u2e2e")
"""?, fullwidth and small ? (Chinese, Japanese), Arabic, Armenian and Ethiopic question marks, ‽, ⁇, ⁈, ⁉, ⸮."""
SKIPPED_ENTRIES = 8
"""How many following entries without a chunk (a turn that only shared an image) the search for an answer passes."""


def asks(text: str) -> bool:
    return not QUESTION_MARKS.isdisjoint(text)
