"""Argument checks the service makes before any backend call: a bad argument never costs a process.

Every front door (Memory, AsyncMemory, MemoryService, the MCP tools) goes through these, so a wrong type or
an out-of-range value is an InvalidInputError naming the argument, never a TypeError from deeper down.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from .. import times
from ..errors import InvalidInputError
from ..ids import is_valid_id
from ..importers.base import MAX_ENTRY_BYTES
from ..limits import MAX_QUERY, check_limit, check_min_score, check_mode, check_text, limit_error

MAX_ID = 256
MAX_FIELD = 1_000


def _kind(value: Any) -> str:
    return type(value).__name__


def encodable(value: str, *, name: str) -> str:
    """Refuse a lone surrogate: it cannot be written as UTF-8, so no payload or backend could take it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(value[exc.start])
        byte = f", an undecodable byte 0x{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else ""
        raise InvalidInputError(
            f"{name} has a lone surrogate (U+{code:04X}{byte}) at character {exc.start}: it is not valid Unicode text"
        ) from None
    return value


def string(value: Any, *, name: str, max_len: int = MAX_FIELD) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise InvalidInputError(f"{name} must be a string, got {_kind(value)}: decode it first")
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a string, got {_kind(value)}")
    if len(value) > max_len:
        raise InvalidInputError(f"{name} is {len(value)} characters; the limit is {max_len}")
    return encodable(value, name=name)


def text(value: Any, *, name: str = "query") -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise InvalidInputError(f"{name} must be a string, got {_kind(value)}: decode it first")
    if isinstance(value, str) and len(value) > MAX_QUERY:
        raise InvalidInputError(f"{name} is {len(value)} characters; the limit is {MAX_QUERY}")
    return encodable(check_text(value, name), name=name)


def optional(value: Any, *, name: str) -> str | None:
    """A short optional field (thread, author, role, type, title): None or a string."""
    return None if value is None else string(value, name=name)


def thread(value: Any, *, name: str = "thread") -> str | None:
    """A thread name, or a thread id as is (`thread:...`), which must then be a valid id."""
    checked = optional(value, name=name)
    if checked and checked.startswith("thread:") and not is_valid_id(checked):
        raise InvalidInputError(
            f"{name} {checked!r} starts with 'thread:' but is not a valid id "
            "(1-256 characters from A-Z a-z 0-9 _ . : @ / + = ~ -)"
        )
    return checked


def threads(value: Any, *, name: str = "thread") -> list[str]:
    """One thread or several, each a name or an id; an empty one is an error, not "every thread"."""
    out = []
    for v in _many(value, name=name):
        t = thread(v, name=name)
        if not t or not t.strip():
            raise InvalidInputError(f"{name} is empty: give a thread name or id")
        out.append(t)
    return out


def content(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise InvalidInputError(f"content must be a string, got {_kind(value)}: decode it first")
    if not isinstance(value, str):
        raise InvalidInputError(f"content must be a string, got {_kind(value)}")
    if len(value) > MAX_ENTRY_BYTES:  # a cheap first test; the exact one is on the UTF-8 size below
        raise InvalidInputError(f"content is {len(value)} characters; remember takes at most {MAX_ENTRY_BYTES} bytes")
    size = len(encodable(value, name="content").encode("utf-8"))
    if size > MAX_ENTRY_BYTES:
        raise InvalidInputError(f"content is {size} bytes of UTF-8; remember takes at most {MAX_ENTRY_BYTES}")
    if not value.strip():
        raise InvalidInputError("content is empty: there is nothing to remember")
    return value


def when(value: Any, *, name: str = "time") -> datetime | None:
    """None, a datetime or an ISO 8601 string, as an aware datetime that UTC can hold (a zone-less one is UTC)."""
    if value is None:
        return None
    if isinstance(value, str):
        encodable(value, name=name)
        try:
            value = times.parse(value)
        except ValueError:
            raise InvalidInputError(f"{name} {value!r} is not an ISO 8601 date-time") from None
    elif not isinstance(value, datetime):
        raise InvalidInputError(f"{name} must be an ISO 8601 string or a datetime, got {_kind(value)} {value!r}")
    moment: datetime = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    try:
        moment.astimezone(UTC)
        moment.utcoffset()
    except (OverflowError, ValueError):
        raise InvalidInputError(
            f"{name} {moment.isoformat()} is outside the years 1-9999 once converted to UTC"
        ) from None
    return moment


def rfc3339(value: datetime) -> str:
    return times.format(value)


def limit(value: Any, *, name: str = "limit") -> int:
    """memdock.limits' rule, after taking what a caller may mean as a whole number (20.0, "20")."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    elif isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise limit_error(name, repr(value)) from None
    return check_limit(value, name)


def offset(value: Any, *, name: str = "offset") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{name} must be an integer of 0 or more, got {value!r}")
    return value


def mode(value: Any, *, name: str = "mode") -> str | None:
    return check_mode(value, name)


def min_score(value: Any, *, name: str = "min_score") -> float | None:
    return check_min_score(value, name)


def identifier(value: Any, *, name: str = "id") -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a string, got {_kind(value)}")
    if not value.strip():
        raise InvalidInputError(f"{name} is empty")
    if len(value) > MAX_ID:
        raise InvalidInputError(f"{name} is {len(value)} characters; ids are at most {MAX_ID}")
    return encodable(value, name=name)


def _many(values: Any, *, name: str) -> list[Any]:
    """A string or a sequence of them as a list (a lone string is one item, not its characters)."""
    if isinstance(values, str):
        return [values]
    if isinstance(values, (bytes, bytearray, Mapping)) or not isinstance(values, (Sequence, set, frozenset)):
        raise InvalidInputError(f"{name} must be a string or a list of strings, got {_kind(values)}")
    return list(values)


def identifiers(values: Any, *, name: str = "ids") -> list[str]:
    items = _many(values, name=name)
    if not items:
        raise InvalidInputError(f"{name} must be a non-empty list of ids")
    return [identifier(v, name=name) for v in items]


def strings(values: Any, *, name: str) -> list[str]:
    """A string or a list of them (authors, roles, types); empty values are dropped."""
    return [string(v, name=name) for v in _many(values, name=name) if v not in (None, "")]
