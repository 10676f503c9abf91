"""Token windows with overlap, cut at paragraph, then line, then sentence, then word boundaries.

Every window is a contiguous slice of the text, so its character offsets
round-trip: text[start:end] is exactly the window. Only a run with no boundary
that is longer than a window (in tokens, or in characters: at most
MAX_CHARS_PER_TOKEN a token) is ever cut inside.

Memory stays bounded by the window, not the text: pieces are found lazily
(regex iterators over index ranges, no slices of the whole text), a span's
tokens are counted only as far as the window needs, and windows are built
from a stream of pieces holding one window's worth at a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import chain
from typing import NamedTuple

from .tokenizers import ApproxTokenizer, Tokenizer, approx_count, span_counter

_LEVELS = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraphs
    re.compile(r"\n"),  # lines (a fenced code line is never cut inside)
    re.compile(r"(?<=[.!?])[ \t]+"),  # sentences
    re.compile(r"[ \t]+"),  # words
)
_NON_SPACE = re.compile(r"\S")
MAX_CHARS_PER_TOKEN = 32
"""A window holds at most max_tokens * this many characters, so a run the tokenizer counts as one token
(a base64 blob, a line of 30 MB of `a`) cannot make a window as large as the text."""

Unit = tuple[int, int, int]  # start, end, tokens
Count = Callable[[int, int, int], int]  # (start, end, limit) -> tokens, see `tokenizers.span_counter`


class Window(NamedTuple):
    """text[start:end], of TOKENS tokens (a tuple: made for every chunk, it costs less than a frozen dataclass)."""

    start: int
    end: int
    tokens: int


class Splitter:
    def __init__(self, tokenizer: Tokenizer, *, max_tokens: int = 900, overlap: int = 100):
        if max_tokens < 1 or not 0 <= overlap < max_tokens:
            raise ValueError("need max_tokens >= 1 and 0 <= overlap < max_tokens")
        self.tok, self.max, self.overlap = tokenizer, max_tokens, overlap

    def _units(
        self, text: str, count: Count, start: int, end: int, level: int, limit: int, chars: int
    ) -> Iterator[Unit]:
        """Atomic pieces of text[start:end], each within LIMIT tokens and CHARS characters where possible (COUNT
        counts a span of TEXT)."""
        if end - start <= chars:  # a longer span is cut whatever its count: it is not counted (nor copied to be)
            n = count(start, end, limit)
            if n <= limit or end - start <= 1:
                yield (start, end, n)
                return
        if level >= len(_LEVELS):
            yield from self._cut(text, start, end, limit, chars)
            return
        pieces = _pieces(_LEVELS[level], text, start, end)
        first = next(pieces)
        second = next(pieces, None)
        if second is None:
            yield from self._units(text, count, start, end, level + 1, limit, chars)
            return
        for s, e in chain((first, second), pieces):
            if e - s <= chars:  # most pieces are a unit: taken here, not through another generator
                n = count(s, e, limit)
                if n <= limit or e - s <= 1:
                    yield (s, e, n)
                    continue
            yield from self._units(text, count, s, e, level + 1, limit, chars)

    def _cut(self, text: str, start: int, end: int, limit: int, chars: int) -> Iterator[Unit]:
        """A run with no boundary, cut into consecutive pieces of at most LIMIT tokens and CHARS characters.

        Each piece is first tried at the length that worked for the one before (at most 4 characters a token to
        begin with), so the run is counted about once; windows then pack the pieces up to the window size."""
        step = min(chars, 4 * limit)
        s = start
        while s < end:
            e = min(end, s + step)
            n = self.tok.count(text[s:e])
            while n > limit and e - s > 1:
                e = s + max(1, (e - s) * limit // (n + 1))
                n = self.tok.count(text[s:e])
            step = max(e - s, 1)
            yield (s, e, n)
            s = e

    def split(self, text: str, budget: int | None = None) -> list[Window]:
        """Windows over TEXT of at most BUDGET tokens (default max_tokens), overlapping by about `overlap`."""
        return list(self.windows(text, budget))

    def short(self, text: str, budget: int | None = None) -> tuple[Window, ...] | None:
        """The windows of `split` when TEXT cannot take more than one (none for a blank text), else None: with the
        approximate tokenizer a token holds a character at least, so a text of at most BUDGET characters is one
        window, the whole text without the space at its ends (found by str.strip, which strips what isspace says,
        as `_trim` does: one call in C, no generator)."""
        if len(text) > max(1, budget or self.max) or not isinstance(self.tok, ApproxTokenizer):
            return None
        end = len(text.rstrip())
        if not end:
            return ()
        start = len(text) - len(text.lstrip())
        return (Window(start, end, approx_count(text)),)

    def windows(self, text: str, budget: int | None = None) -> Iterator[Window]:
        """The windows of `split`, one at a time."""
        one = self.short(text, budget)
        if one is not None:
            yield from one
            return
        limit = max(1, budget or self.max)
        if not _NON_SPACE.search(text):
            return
        chars = limit * MAX_CHARS_PER_TOKEN
        overlap = min(self.overlap, limit - 1)
        window: list[Unit] = []
        tokens = size = 0
        for unit in self._units(text, span_counter(self.tok, text), 0, len(text), 0, limit, chars):
            if window and (tokens + unit[2] > limit or size + unit[1] - unit[0] > chars):
                yield _trim(text, window[0][0], window[-1][1], tokens)
                window, tokens, size = _carry(window, overlap, overlap * MAX_CHARS_PER_TOKEN)
                while window and (tokens + unit[2] > limit or size + unit[1] - unit[0] > chars):
                    s, e, n = window.pop(0)  # the overlap gives way to a unit that would not fit beside it
                    tokens, size = tokens - n, size - (e - s)
            window.append(unit)
            tokens += unit[2]
            size += unit[1] - unit[0]
        if window:
            yield _trim(text, window[0][0], window[-1][1], tokens)


def _pieces(sep: re.Pattern[str], text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """text[start:end] cut after each match of SEP (a match at a piece's start stays in that piece)."""
    cur = start
    for m in sep.finditer(text, start, end):
        if m.start() > cur:
            yield (cur, m.end())
            cur = m.end()
    if cur < end:
        yield (cur, end)


def _carry(window: list[Unit], overlap: int, chars: int) -> tuple[list[Unit], int, int]:
    """The tail of WINDOW that starts the next one: whole units worth at most OVERLAP tokens and CHARS
    characters, never the first."""
    k, back, size = len(window), 0, 0
    while k - 1 > 0 and back + window[k - 1][2] <= overlap and size + window[k - 1][1] - window[k - 1][0] <= chars:
        k -= 1
        back += window[k][2]
        size += window[k][1] - window[k][0]
    return window[k:], back, size


def _trim(text: str, s: int, e: int, tokens: int) -> Window:
    """The window text[s:e] of TOKENS tokens without the space at its ends."""
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return Window(s, e, tokens)
