"""Token windows with overlap, cut at paragraph, then line, then sentence, then word boundaries.

Every window is a contiguous slice of the text, so its character offsets
round-trip: text[start:end] is exactly the window. A single word longer than
a window is the only thing ever cut inside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tokenizers import Tokenizer

_LEVELS = (
    re.compile(r"\n[ \t]*\n\s*"),          # paragraphs
    re.compile(r"\n"),                      # lines (a fenced code line is never cut inside)
    re.compile(r"(?<=[.!?])[ \t]+"),        # sentences
    re.compile(r"[ \t]+"),                  # words
)


@dataclass(frozen=True, slots=True)
class Window:
    start: int
    end: int
    tokens: int


class Splitter:
    def __init__(self, tokenizer: Tokenizer, *, max_tokens: int = 900, overlap: int = 100):
        if max_tokens < 1 or not 0 <= overlap < max_tokens:
            raise ValueError("need max_tokens >= 1 and 0 <= overlap < max_tokens")
        self.tok, self.max, self.overlap = tokenizer, max_tokens, overlap

    def _units(self, text: str, start: int, end: int, level: int, out: list[tuple[int, int, int]]) -> None:
        """Atomic pieces of text[start:end], each within the window size where possible."""
        n = self.tok.count(text[start:end])
        if n <= self.max or end - start <= 1:
            out.append((start, end, n))
            return
        if level >= len(_LEVELS):
            step = max(1, (end - start) * self.max // (n + 1))
            for s in range(start, end, step):
                out.append((s, min(end, s + step), self.tok.count(text[s:min(end, s + step)])))
            return
        pieces = []
        cur = start
        for m in _LEVELS[level].finditer(text, start, end):
            if m.start() > cur:
                pieces.append((cur, m.end()))
                cur = m.end()
        if cur < end:
            pieces.append((cur, end))
        if len(pieces) <= 1:
            self._units(text, start, end, level + 1, out)
            return
        for s, e in pieces:
            self._units(text, s, e, level + 1, out)

    def split(self, text: str, budget: int | None = None) -> list[Window]:
        """Windows over TEXT of at most BUDGET tokens (default max_tokens), overlapping by about `overlap`."""
        limit = max(1, budget or self.max)
        saved = self.max
        self.max = limit
        try:
            if not text.strip():
                return []
            units: list[tuple[int, int, int]] = []
            self._units(text, 0, len(text), 0, units)
        finally:
            self.max = saved
        overlap = min(self.overlap, limit - 1)
        windows: list[Window] = []
        i = 0
        while i < len(units):
            j, total = i, 0
            while j < len(units) and (total + units[j][2] <= limit or j == i):
                total += units[j][2]
                j += 1
            windows.append(Window(units[i][0], units[j - 1][1], total))
            if j >= len(units):
                break
            back, k = 0, j
            while k - 1 > i and back + units[k - 1][2] <= overlap:
                k -= 1
                back += units[k][2]
            i = k
        return [_trim(text, w) for w in windows]


def _trim(text: str, w: Window) -> Window:
    s, e = w.start, w.end
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return Window(s, e, w.tokens)
