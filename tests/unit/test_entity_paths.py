"""`entities._paths` finds each word around its dot-before-a-letter-or-digit instead of splitting the text's lines
into words: the same paths, in the same order, as splitting every line that holds such a dot (the way before), on
texts of paths, URLs, versions, dotted names and every kind of space `str.split` splits at."""

from __future__ import annotations

import random

from memdock.importers import entities
from memdock.importers.entities import _DOT_ALNUM, _EXTENSION, _PATH, _paths


def by_lines(text: str) -> list[str]:
    """The search as it was: each line holding a dot before a letter or digit, split into words."""
    found: list[str] = []
    end = -1
    for m in _DOT_ALNUM.finditer(text):
        at = m.start()
        if at < end:
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        for word in text[start:end].split():
            if "." in word and ("/" in word or _EXTENSION.search(word)):
                found += _PATH.findall(word)
    return found


SPACES = [" ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000", "\u2028"]
PIECES = ["src/app.py", "a.b", "v1.2", "e.g.", "x.md", ".toml", "~/.bashrc", "lib/x.so.6", "2.6.8.1-3-686", "/", "."]
PIECES += ["https://example.org/wiki/a.html", "README.md:12", "@user.name", "(docs/guide.md)", "naïve.txt", "ü.py"]


def test_paths_are_the_paths_of_the_words_of_each_line() -> None:
    rng = random.Random(31)
    for _ in range(3000):
        parts = [
            rng.choice(PIECES) if rng.random() < 0.6 else rng.choice(["word", "x", "Ünï", "", "3"]) for _ in range(12)
        ]
        text = "".join(p + rng.choice(SPACES) * rng.randint(0, 2) for p in parts)
        assert _paths(text) == by_lines(text), repr(text)


def test_a_long_note_with_a_path_among_many_words() -> None:
    text = ("words without any dot " * 200) + "see src/memdock/ids.py and notes.md. " + ("more words " * 200)
    assert _paths(text) == by_lines(text) == ["src/memdock/ids.py", "notes.md"]
    assert entities._UP_TO_LAST_SPACE.match(text, 0, text.index(".py")).end() == text.index("src/")
