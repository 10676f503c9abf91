"""Streaming JSON Lines: block reads with a line-size limit, strict decoding, precise errors."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson

from .errors import InvalidInputError

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64
"""The deepest a record may nest objects and arrays (the record itself is level 1). orjson decodes up to
1,024 levels but encodes only 255, and the ledger and adapters re-encode records, so the bound sits well
below both; JSON Schema cannot say it, so the reader and the writer check it."""
_NONFINITE = re.compile(rb"(?<![\"\w])-?(NaN|Infinity)\b")


class PayloadError(InvalidInputError):
    """A problem at one place of a payload: file, line, record id, JSON path."""

    def __init__(self, message: str, *, file: str = "", line: int | None = None, record_id: Any = None, path: str = ""):
        self.file, self.line, self.record_id, self.path = file, line, record_id, path
        where = file + (f":{line}" if line is not None else "")
        what = " ".join(p for p in (f"id={record_id}" if record_id is not None else "", path) if p)
        super().__init__(
            ": ".join(p for p in (where, what, message) if p),
            details={
                k: v
                for k, v in {"file": file, "line": line, "id": record_id, "path": path}.items()
                if v not in ("", None)
            },
        )
        self.reason = message


class LineReader:
    """Yields (line_number, raw_line) from a binary stream, hashing every byte read. A raw line keeps its
    newline (JSON takes it as whitespace).

    Each line is read with the stream's own bounded readline: splitting 1 MiB blocks in Python cost more than
    decoding the JSON. A line longer than max_line_bytes, a blank line, or a last line without its newline is a
    PayloadError.
    """

    def __init__(self, stream: IO[bytes], name: str, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES):
        self.stream, self.name, self.max_line_bytes = stream, name, max_line_bytes
        self.sha256 = hashlib.sha256()
        self.lines = 0

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        readline, update, limit = self.stream.readline, self.sha256.update, self.max_line_bytes
        n = 0
        while raw := readline(limit + 1):
            n += 1
            update(raw)
            if raw[-1] != 10:  # no newline: a line past the limit, or a last line cut short
                if len(raw) > limit:
                    raise PayloadError(f"line longer than the limit of {limit} bytes", file=self.name, line=n)
                raise PayloadError("truncated last line: the file does not end with a newline", file=self.name, line=n)
            if len(raw) == 1:
                raise PayloadError("blank line", file=self.name, line=n)
            self.lines = n
            yield n, raw


def decode_error(raw: bytes, exc: Exception) -> str:
    """A readable reason for a line orjson refused."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as u:
        return f"invalid UTF-8 at byte {u.start}"
    if _NONFINITE.search(raw):
        return "NaN and Infinity are not valid JSON numbers"
    return f"invalid JSON: {exc}"


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep VALUE nests objects and arrays (a scalar is 0), counting no further than LIMIT + 1."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list, tuple)))
    return deepest


def depth_problem(record: Any, limit: int = MAX_DEPTH, *, what: str = "the record") -> str | None:
    """Why RECORD (named WHAT in the message) nests too deeply, or None."""
    if nesting_depth(record, limit) <= limit:
        return None
    return f"{what} nests objects and arrays more than {limit} levels deep; the limit is {limit}"


def too_deep(raw: bytes, record: Any, limit: int = MAX_DEPTH, *, what: str = "the record") -> str | None:
    """depth_problem for RECORD decoded from RAW. Counting brackets in RAW bounds the depth, so almost every
    line is cleared without walking the record."""
    if _brackets_within(raw, limit):
        return None
    return depth_problem(record, limit, what=what)


def _brackets_within(raw: bytes, limit: int) -> bool:
    """Whether RAW holds at most LIMIT opening brackets. Two bytes.count calls (memchr-speed scans in C) beat a
    Python loop of bytes.find on every line measured: 0.05 s against 0.10 s for 20,000 838-byte chunk lines, and
    as fast on 223-byte edge lines."""
    return raw.count(b"{") + raw.count(b"[") <= limit


def has_nonfinite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_nonfinite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_nonfinite(v) for v in value)
    return False


def dumps_line(record: Any) -> bytes:
    """One JSONL line. NaN and Infinity are refused (orjson would silently write null), and so is a record
    nested deeper than MAX_DEPTH (no reader would take it)."""
    try:
        line = orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError as exc:
        raise InvalidInputError(depth_problem(record) or f"record cannot be written as JSON: {exc}") from None
    deep = too_deep(line, record)
    if deep:
        raise InvalidInputError(deep)
    if b"null" in line and has_nonfinite(record):
        raise InvalidInputError("record contains NaN or Infinity, which JSON cannot carry")
    return line
