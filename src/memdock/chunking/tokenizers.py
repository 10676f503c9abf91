"""Token counting. The default is a fast stdlib approximation (words and punctuation marks);
tiktoken is used when installed and asked for."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from ..errors import ConfigError

_APPROX = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_WORDY_NON_ASCII = re.compile(r"[^\x00-\x7f](?<=[\w\s])")
"""A character outside ASCII that is part of a word or a space: the byte count below cannot classify it. (Found
by its first character class, which the regex engine scans for in C, then checked behind.)"""


def _byte_classes() -> bytes:
    """UTF-8 byte -> its character's class: `a` a word character, ` ` a space, `.` any other mark (one token each).
    A lead byte of a longer character is a mark (text holding a non-ASCII word or space character is not counted
    so); continuation bytes are dropped."""
    table = bytearray(256)
    for i in range(256):
        c = chr(i)
        if i < 0x80:
            table[i] = ord("a" if re.match(r"\w", c) else " " if re.match(r"\s", c) else ".")
        else:
            table[i] = ord(".")
    return bytes(table)


_CLASSES = _byte_classes()
_CONTINUATION = bytes(range(0x80, 0xC0))
_WORD_BITS = bytes(c == ord("a") for c in _CLASSES)
"""ASCII byte -> 1 for a word character, else 0: the text's word bytes as the bits of one integer."""
_MARK_BITS = bytes(c == ord(".") for c in _CLASSES)


def approx_count(text: str, start: int = 0, end: int | None = None) -> int:
    """How many `_APPROX` tokens text[start:end] holds: word runs plus marks, counted on bytes in C (str.translate
    and bytes.count) unless the span holds a non-ASCII word or space character, when the regex counts them."""
    piece = text[start:end] if start or end is not None else text
    if piece.isascii():  # every note of bench/peers.py: word runs counted on an integer, marks by bytes.count
        data = piece.encode("ascii")
        words = int.from_bytes(data.translate(_WORD_BITS), "big")  # a word byte whose byte before is none: a run
        return data.translate(_MARK_BITS).count(1) + (words & ~(words >> 8)).bit_count()
    if _WORDY_NON_ASCII.search(piece):
        return len(_APPROX.findall(piece))
    classes = piece.encode("utf-8", "surrogatepass").translate(_CLASSES, _CONTINUATION)
    marks = classes.count(b".")
    spaced = classes.replace(b".", b" ") if marks else classes
    return marks + spaced.count(b" a") + spaced.startswith(b"a")


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class ApproxTokenizer:
    """Counts runs of word characters and single punctuation marks: close to BPE counts for English prose."""

    name = "approx"

    def count(self, text: str) -> int:
        return approx_count(text)


class TiktokenTokenizer:
    def __init__(self, encoding: str = "cl100k_base"):
        try:
            import tiktoken
        except ImportError:
            raise ConfigError("--tokenizer tiktoken needs the tiktoken package (pip install tiktoken)") from None
        try:
            self._enc = tiktoken.get_encoding(encoding)
        except Exception as exc:  # tiktoken downloads an encoding it has not cached; offline that fails
            raise ConfigError(
                f"tiktoken could not load the {encoding} encoding ({type(exc).__name__}: {exc}); it downloads an "
                "encoding on first use, so offline it needs a cached copy (TIKTOKEN_CACHE_DIR), or use "
                "--tokenizer approx"
            ) from None
        self.name = f"tiktoken:{encoding}"

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))


def get_tokenizer(name: str = "approx") -> Tokenizer:
    if name == "approx":
        return ApproxTokenizer()
    if name.startswith("tiktoken"):
        _, _, enc = name.partition(":")
        return TiktokenTokenizer(enc or "cl100k_base")
    raise ConfigError(f"unknown tokenizer {name!r}; use approx or tiktoken[:ENCODING]")


def count_upto(tok: Tokenizer, text: str, start: int, end: int, limit: int) -> int:
    """The tokens of text[start:end], exactly when at most LIMIT; otherwise some number above LIMIT.

    The approximate tokenizer counts a long span's head, twice as long each time, until it holds more than LIMIT
    tokens or is the whole span (a head never holds more tokens than the span); another tokenizer counts a long
    span in slices of 64K characters and stops once past LIMIT (a token cut at a slice edge counts twice, which
    matters only for spans of more than 64K characters).
    """
    if isinstance(tok, ApproxTokenizer):
        size = _SHORT * limit
        while True:
            head = min(end, start + size)
            n = approx_count(text, start, head)
            if n > limit or head == end:
                return n
            size *= 2
    if end - start <= _SLICE:
        return tok.count(text[start:end])
    n = 0
    for s in range(start, end, _SLICE):
        n += tok.count(text[s : min(end, s + _SLICE)])
        if n > limit:
            break
    return n


_SLICE = 1 << 16
_SHORT = 4
WHOLE_CHARS = 1 << 20
"""The longest text `span_counter` classifies whole (one byte a character held beside it); a longer one is counted
span by span, so memory stays bounded by a constant, not the text."""


def span_counter(tok: Tokenizer, text: str) -> Callable[[int, int, int], int]:
    """`count_upto(tok, text, start, end, limit)` as a function of (start, end, limit), for the many spans of one
    TEXT a splitter counts (its paragraphs, lines, sentences).

    For the approximate tokenizer and a text of at most WHOLE_CHARS characters holding no non-ASCII word or space
    character, the text's classes (`_CLASSES`) are made once, a character a byte (every other non-ASCII character
    is one mark, as `approx_count` counts it), and from them the byte where each token starts (`_starts`): a span
    is counted exactly by one `bytes.count` over its range, plus one when it starts inside a word. No span is
    sliced or encoded. Otherwise each span is counted as `count_upto` counts it."""
    if (
        not isinstance(tok, ApproxTokenizer)
        or len(text) > WHOLE_CHARS
        or (not text.isascii() and _WORDY_NON_ASCII.search(text))
    ):
        return lambda start, end, limit: count_upto(tok, text, start, end, limit)
    classes = text.encode("ascii", "replace").translate(_CLASSES)  # a non-ASCII character is `?`, a mark
    starts = _starts(classes)

    def count(start: int, end: int, limit: int) -> int:
        if start >= end:
            return 0
        return starts.count(1, start, end) + (start > 0 and classes[start] == 97 and classes[start - 1] == 97)

    return count


_WORD = bytes(1 if i == 97 else 0 for i in range(256))  # `a` -> 1
_MARK = bytes(1 if i == 46 else 0 for i in range(256))  # `.` -> 1


def _starts(classes: bytes) -> bytes:
    """A byte for each byte of CLASSES: 1 where a token starts (a mark, or a word character after no word
    character), else 0. Made with whole-text operations in C: each class as a big integer a byte a character,
    a word start being a word byte whose neighbour before it (the integer shifted a byte) is not one."""
    n = len(classes)
    word = int.from_bytes(classes.translate(_WORD), "big")
    mark = int.from_bytes(classes.translate(_MARK), "big")
    return ((word & ~(word >> 8)) | mark).to_bytes(n, "big")
