"""RecordLines: a record made into the JSONL line a bundle holds, checked as a writer checks it.

The checks: the record's schema (when a validator is given), the JSON encoding rules (`jsonl.dumps_line`: no NaN,
no nesting past the limit) and one id per record type. `BundleWriter` writes these lines into parts; `memdock add`
hands them straight to the index run (see `importers/onepass.py`) without a bundle in between.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ..errors import InvalidInputError
from ..jsonl import PayloadError, dumps_line
from ..schemas import RECORD_TYPES
from ..validation import Compiled, SchemaValidator
from .idset import IdSet
from .manifest import record_key


class _Stream:
    """What is kept for one record type: how many were made, the ids seen, the key and schema."""

    __slots__ = ("compiled", "count", "key_of", "seen")

    def __init__(self, key_of: Callable[[dict[str, Any]], Any], compiled: Compiled | None):
        self.key_of, self.compiled = key_of, compiled
        self.count = 0
        self.seen = IdSet()


class RecordLines:
    """Lines of checked records; VALIDATOR None skips the schema check (records the core itself built)."""

    def __init__(self, validator: SchemaValidator | None):
        self.validator = validator
        self.streams: dict[str, _Stream] = {}

    def stream(self, record_type: str) -> _Stream:
        """RECORD_TYPE's state, made at its first record (an unknown type is refused here)."""
        stream = self.streams.get(record_type)
        if stream is None:
            if record_type not in RECORD_TYPES:
                raise InvalidInputError(f"unknown record type {record_type!r}")
            compiled = self.validator.compiled(record_type) if self.validator is not None else None
            stream = self.streams[record_type] = _Stream(record_key(record_type), compiled)
        return stream

    def line(self, record_type: str, record: dict[str, Any], *, claimed: bool = False) -> bytes:
        """RECORD's line; a PayloadError names the record type, its ordinal and id, and the JSON path. CLAIMED: its
        id is unique by construction (an importer's entry, `ImportContext.claim_entry_id`), not looked up among the
        ids seen (a set that spills to SQLite past 16,384 ids)."""
        stream = self.streams.get(record_type) or self.stream(record_type)
        ordinal = stream.count = stream.count + 1
        key = stream.key_of(record) if isinstance(record, dict) else None
        if stream.compiled is not None and not stream.compiled.is_valid(record):
            issues = self.validator.issues(record_type, record)  # type: ignore[union-attr]
            more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
            raise PayloadError(
                issues[0].message + more, file=f"{record_type} record #{ordinal}", record_id=key, path=issues[0].path
            )
        try:
            line = dumps_line(record)
        except InvalidInputError as exc:
            raise PayloadError(exc.message, file=f"{record_type} record #{ordinal}", record_id=key) from None
        if not claimed and not stream.seen.add(hash(key)):
            raise PayloadError(
                f"duplicate {record_type} id in this bundle", file=f"{record_type} record #{ordinal}", record_id=key
            )
        return line

    def built(self, record_type: str, record: dict[str, Any]) -> bytes:
        """The line of RECORD, built by memdock of strings already checked, its id unique by construction (see
        `importers/onepass.DERIVED`): counted among its type's records, not checked (none of the checks can fail)."""
        stream = self.streams.get(record_type) or self.stream(record_type)
        stream.count += 1
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)

    def close(self) -> None:
        """Let go of the ids seen (an IdSet past its spill holds a temporary database)."""
        for stream in self.streams.values():
            stream.seen.close()
        self.streams.clear()
