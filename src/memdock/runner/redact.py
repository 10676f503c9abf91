"""Keeping secrets out of everything the core writes or shows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MASK = "***"
MIN_SECRET_LEN = 3


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()):
        self.secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len, reverse=True)
        self._bsecrets = [s.encode() for s in self.secrets]
        self.hits = 0

    @property
    def longest(self) -> int:
        return max((len(b) for b in self._bsecrets), default=0)

    def text(self, s: str) -> str:
        for sec in self.secrets:
            if sec in s:
                self.hits += s.count(sec)
                s = s.replace(sec, MASK)
        return s

    def bytes(self, b: bytes) -> bytes:
        for sec in self._bsecrets:
            if sec in b:
                self.hits += b.count(sec)
                b = b.replace(sec, MASK.encode())
        return b

    def value(self, v: Any) -> Any:
        """Redact every string inside a JSON-like value."""
        if not self.secrets:
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v
