"""Deterministic ids: the same input gives the same id, so re-runs are idempotent.

An id is 1-256 ASCII characters from [A-Za-z0-9_.:@/+=~-], starting with a
letter or digit (schemas/v1/defs.schema.json#/$defs/id).
"""

from __future__ import annotations

import hashlib
import re

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/+=~-]{0,255}\Z")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@/+=~-]+")


def digest(*parts: str, length: int = 16) -> str:
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return h[:length]


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def slug(text: str, max_len: int = 48) -> str:
    if len(text) <= max_len and text.isascii() and text.isalnum():  # safe as it is (a source's hex or numeric id)
        return text
    s = _UNSAFE.sub("-", text).strip("-._:@/+=~")
    return s[:max_len].rstrip("-._:@/+=~")


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and bool(ID_PATTERN.match(value))
