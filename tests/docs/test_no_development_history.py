"""User documentation labels figures by release and command, never by a stage of the project's own development.

The patterns are the labels the long README used to carry ("session 13", "the session's last code", "an earlier
session's run", "the issue's target", "today's code", "an earlier run"), plus the same family of words ("step 4",
"turn-2", "this week"). A figure in the docs names the memdock version or commit and the command that prints it.
"""

from __future__ import annotations

import re

import pytest
from doc_blocks import ROOT, markdown_pages

HISTORY = re.compile(
    r"\bsessions? \d+"
    r"|\b(?:this|an? earlier|a later|the last) session(?:'s)?\b"
    r"|\bsession's (?:last code|run|changes|machine)\b"
    r"|\bsteps? \d+\b|\bturn-\d+\b|\bthis week\b|\btoday's code\b|\bthe issue's\b|\ban earlier run\b",
    re.I,
)
OLD_README = [  # sentences of the former README, kept to prove the scan catches what it is for
    "the rows are from session 13, at the session's last code",
    "(session 9's run.) graphiti's index time split",
    "the mem0 rows are an earlier session's, with the box's load average at 7-8",
    "tantivy answered within 0.48 ms (the issue's target: within 1 ms)",
    "Session 11, the same command on today's code (quiet box)",
    "An earlier run gave 651.60 / 221.45 / 153.21 s for the three local rows.",
    "labelled by step 4 of the plan, turn-2 of the chat, measured this week",
]
ALLOWED = ["Every session shares one memory", "each MCP client session", "a LoCoMo session"]


def hits(text: str) -> list[str]:
    return [m.group(0) for m in HISTORY.finditer(text)]


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_carries_no_development_history(page):
    text = page.read_text(encoding="utf-8")
    found = [
        f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in HISTORY.finditer(text)
    ]
    assert not found, "label figures by release and command, not by development history:\n" + "\n".join(found)


@pytest.mark.parametrize("sentence", OLD_README)
def test_the_scan_catches_the_former_readmes_labels(sentence):
    assert hits(sentence), sentence


@pytest.mark.parametrize("sentence", ALLOWED)
def test_the_scan_leaves_ordinary_uses_alone(sentence):
    assert not hits(sentence), sentence
