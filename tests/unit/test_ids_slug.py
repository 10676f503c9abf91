"""`ids.slug` gives an id that is safe as it is (ASCII letters and digits, short enough) back without its regex,
and every other text as the regex makes it: the same slugs as before the shortcut."""

from __future__ import annotations

import random
import re

from memdock.ids import slug

_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@/+=~-]+")


def reference(text: str, max_len: int = 48) -> str:
    s = _UNSAFE.sub("-", text).strip("-._:@/+=~")
    return s[:max_len].rstrip("-._:@/+=~")


def test_slug_is_the_regex_slug_for_safe_and_unsafe_texts() -> None:
    rng = random.Random(31)
    alphabet = "abcXYZ019-_.:@/+=~ é²٣ⅷ\t"
    texts = ["", "a689991d25453422", "12345", "x" * 48, "x" * 49, "A-b", "ÅB", "²3", "٣", "ⅷ", "notes-0000"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60))) for _ in range(2000)]
    for text in texts:
        for max_len in (8, 48, 80):
            assert slug(text, max_len) == reference(text, max_len), (text, max_len)
