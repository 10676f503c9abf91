"""Threads', entries' and entities' stored records in binary (layout 8).

Layouts 1-7 store these records as JSON: every record spells its keys, and the hash that ends an id as 16 hex
digits, which tantivy's lz4 blocks shorten little. Layout 8 writes each field as a byte naming its key (KEYS; 0 and
the key spelled out for any other), a byte naming its value's type, and the value: a string behind its length, an
id's hex tail as the 8 bytes it spells, an integer as a varint, true / false / null as the type alone, anything
else (a float, a list, an object) as JSON. Chunks' records stay JSON, packed with the store's zstd dictionary
(packed.py): decoding one in Python took 4.9 µs against orjson's 0.8, which showed in `query`'s p50 (0.54 against
0.48 ms on bench/peers.py's 20k notes, 300 queries) for 0.04x the text of store.

Fields keep their order, so a record reads back as the dict that was stored, key for key. A record starts with
MARK (JSON starts with `{`, a zstd frame with 0x28, compact_edges' records with 0x01 or 0x02). Both forms are read
whatever the layout; a store writes its layout's.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson

from .compact_edges import varint

MARK = b"\x03"
KEYS = (
    "kind",
    "id",
    "thread_id",
    "entry_id",
    "position",
    "text",
    "start",
    "end",
    "header",
    "author",
    "role",
    "entry_type",
    "event_time",
    "source",
    "source_line",
    "title",
    "in_chunks",
    "name",
    "entity_type",
    "aliases",
    "format",
    "topic",
    "status",
    "ball",
    "source_kind",
    "body",
    "metadata",
    "type",
    "source_id",
    "target_id",
    "fact",
    "weight",
)
_CODE = {k: i + 1 for i, k in enumerate(KEYS)}
STR, HEX_ID, INT, NEG, TRUE, FALSE, NONE, JSON = range(8)
_HEX = frozenset("0123456789abcdef")
_CONSTANTS = {TRUE: True, FALSE: False, NONE: None}


def _read_varint(raw: bytes, at: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        byte = raw[at]
        at += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return n, at


_KEY = {k: bytes((i,)) for k, i in _CODE.items()}
_INTS = [bytes((INT,)) + varint(n) for n in range(4096)]
_SIMPLE = {True: bytes((TRUE,)), False: bytes((FALSE,)), None: bytes((NONE,))}


def _key(key: str) -> bytes:
    return _KEY.get(key) or b"\0" + varint(len(raw := key.encode())) + raw


def _other(value: Any) -> bytes:
    """A value that is not a string: an integer, true / false / null, or JSON."""
    if type(value) is int:
        if 0 <= value < 4096:
            return _INTS[value]
        return bytes((INT,)) + varint(value) if value >= 0 else bytes((NEG,)) + varint(-value)
    if value is True or value is False or value is None:
        return _SIMPLE[value]
    raw = orjson.dumps(value)
    return bytes((JSON,)) + varint(len(raw)) + raw


def _string(key: str, value: str) -> bytes:
    """KEY and its string VALUE (an id's hex tail as its 8 bytes, anything else as UTF-8, behind its length)."""
    if len(value) > 17 and value[-17] == ":" and _HEX.issuperset(value[-16:]):
        head = value[:-16].encode()
        return _key(key) + bytes((HEX_ID,)) + varint(len(head)) + head + bytes.fromhex(value[-16:])
    raw = value.encode()
    return _key(key) + bytes((STR,)) + varint(len(raw)) + raw


_field = lru_cache(maxsize=65536)(_string)  # for REPEATED keys: a run names each value in many records
REPEATED = frozenset({"kind", "thread_id", "entry_id", "author", "role", "entry_type", "source", "format", "type"})


def encode(fields: dict[str, Any]) -> bytes:
    """FIELDS (a stored record, `kind` included; string keys) in binary."""
    out = [MARK]
    for key, value in fields.items():
        if type(value) is str:
            out.append(_field(key, value) if key in REPEATED else _string(key, value))
        else:
            out.append(_key(key) + _other(value))
    return b"".join(out)


def _long(raw: bytes, at: int, kind: int) -> tuple[Any, int]:
    """The value of type KIND at offset AT of RAW (after its type byte) when it is not a short string or id."""
    n, at = _read_varint(raw, at)
    if kind in (INT, NEG):
        return n if kind == INT else -n, at
    if kind not in (STR, HEX_ID, JSON) or at + n + 8 * (kind == HEX_ID) > len(raw):
        raise ValueError(f"a binary record with an unknown or cut value: {raw[:120]!r}")
    if kind == JSON:
        return orjson.loads(raw[at : at + n]), at + n
    if kind == HEX_ID:
        return raw[at : at + n].decode() + raw[at + n : at + n + 8].hex(), at + n + 8
    return raw[at : at + n].decode(), at + n


def _fields(raw: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    at, end = 1, len(raw)
    while at < end:
        code, kind = raw[at], raw[at + 1]
        if code:
            key, at = KEYS[code - 1], at + 2
        else:
            n, at = _read_varint(raw, at + 1)
            key, at = raw[at : at + n].decode(), at + n
            kind, at = raw[at], at + 1
        n = raw[at] if at < end else 0x80  # a length under 128: one byte
        if kind == STR and n < 0x80 and at + 1 + n <= end:
            out[key], at = raw[at + 1 : at + 1 + n].decode(), at + 1 + n
        elif kind == HEX_ID and n < 0x80 and at + 9 + n <= end:
            at += 1 + n
            out[key], at = raw[at - n : at].decode() + raw[at : at + 8].hex(), at + 8
        elif kind in _CONSTANTS:
            out[key] = _CONSTANTS[kind]
        else:
            out[key], at = _long(raw, at, kind)
    return out


def decode(raw: bytes) -> dict[str, Any]:
    """The record `encode` was given, its fields in their order."""
    try:
        out = _fields(raw)
    except (IndexError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        raise ValueError(f"a binary record cut short or unreadable ({exc!r}): {raw[:120]!r}") from None
    return out
