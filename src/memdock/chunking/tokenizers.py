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
        self._enc = tiktoken.get_encoding(encoding)
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
