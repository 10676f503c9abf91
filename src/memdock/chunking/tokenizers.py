"""Token counting. The default is a fast stdlib approximation (words and punctuation marks);
tiktoken is used when installed and asked for."""

from __future__ import annotations

import re
from typing import Protocol

from ..errors import ConfigError

_APPROX = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class ApproxTokenizer:
    """Counts runs of word characters and single punctuation marks: close to BPE counts for English prose."""

    name = "approx"

    def count(self, text: str) -> int:
        return len(_APPROX.findall(text))


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

    The approximate tokenizer stops counting past LIMIT without slicing the text; another tokenizer counts a
    long span in slices of 64K characters and stops once past LIMIT (a token cut at a slice edge counts twice,
    which matters only for spans of more than 64K characters).
    """
    if isinstance(tok, ApproxTokenizer):
        if end - start <= _SHORT * limit:  # too short to hold many more than LIMIT tokens: count them all at once
            return len(_APPROX.findall(text, start, end))
        n = 0
        for _ in _APPROX.finditer(text, start, end):
            n += 1
            if n > limit:
                break
        return n
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
