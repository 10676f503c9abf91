"""Which of a conversation's speakers a question is about, and which turns of the others only talk to or of them.

A question that names one speaker ("What has Melanie painted?") is about what that speaker said; the other
speaker's turns that name them ("Wow, Melanie! The colours...") hold the name's words without the fact, and on
LoCoMo dev they crowd the speaker's own turns out of the top ten. rerank.py ranks such a turn lower.

A name counts where it is written as the speaker's name is, capitalised, and not as the question's first word:
a speaker called May or Will is not named by "may" or by "Will Bo come?". A question naming both speakers, or
none, names no one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def _written(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


def named(question: str, speakers: Iterable[str]) -> str | None:
    """The one speaker of SPEAKERS that QUESTION names (case as written, past its first word), else None."""
    found = set()
    for speaker in speakers:
        if not speaker or not speaker[0].isupper():
            continue
        if any(match.start() > 0 for match in _written(speaker).finditer(question.strip())):
            found.add(speaker)
    return found.pop() if len(found) == 1 else None


def addresses(body: str, author: str | None, speaker: str) -> bool:
    """Whether a turn by AUTHOR, someone other than SPEAKER, names SPEAKER in BODY."""
    return author is not None and author != speaker and _written(speaker).search(body) is not None
