"""Ids as index terms: as they are (layouts 1-5) or with their hash written shorter (layout 6).

memdock's ids end in a hash's 16 hex digits (`edge:mentions:0f3a…`, `chunk:…`, `entity:person:…`). The term
dictionary (an FST) shares the prefix a term has with the others, never the random tail, so each id costs its
tail once per field that holds it (id, entry_id, thread_id, source_id, target_id). Layout 6 writes those 64 bits
as 11 characters of a 64-letter alphabet instead of 16 hex digits. On 100,000 such ids (in one field, one
segment) the terms took 16.6 bytes each against 19.4 as hex; 8 raw bytes in a bytes field took 22.1 (the FST
stores a transition on one of its common ASCII bytes in one byte, on any other byte in two) and the 85- or
128-letter alphabets 18.9 and 22.3, for the same reason.

Every id has a term of its own (`term` is one-to-one):
- an id with no `!` that ends in `:` and 16 lower-case hex digits: the id up to its last `:`, `!`, the 11 letters;
- any other id with no `!`: the id itself (no `!` in it, so never one of the above);
- an id holding a `!` (not a valid memdock id, but the store takes what it is given): `!` and the id (the only
  terms that start with `!`: the first kind's start with the id's first character).

Only the terms change: stored records keep the ids as they are, and no ranked field's statistics (document count,
lengths, document frequencies) move, so every answer and score is the one layout 5 gives
(tests/tantivy/test_tantivy_compact_ids.py).

The 11 letters are the 64-bit tail's base-64 digits, most significant first: the stdlib's base64 of the tail's 8
bytes behind one zero byte (72 bits, 12 digits, the first always 0) gives the same digits in its own alphabet, which
a byte translation maps to ALPHABET. That is about a third of the CPU of dividing the number down in Python, for
the same terms (test_tantivy_compact_ids.py checks them against that loop).
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from functools import lru_cache

import tantivy

ID_FIELDS = frozenset({"id", "entry_id", "thread_id", "source_id", "target_id"})
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
WIDTH = 11  # 64 ** 11 > 2 ** 64
MARK = "!"
HEX = "0123456789abcdef"
_TO_ALPHABET = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", ALPHABET.encode())


def _term(value: str) -> str:
    """VALUE's layout 6 term."""
    if MARK in value:
        return MARK + value
    tail = value[-16:]
    if len(value) < 17 or value[-17] != ":" or tail.strip(HEX):
        return value
    digits = binascii.b2a_base64(b"\0" + bytes.fromhex(tail), newline=False).translate(_TO_ALPHABET)
    return value[:-16] + MARK + digits[1:].decode()


compact = lru_cache(maxsize=65536)(_term)  # a run names each thread, entry and entity many times
_compact = compact


def _as_is(value: str) -> str:
    return value


class Keys:
    """How a store writes its id fields' terms: as the ids are, or (COMPACT, layout 6) as `compact` writes them."""

    def __init__(self, schema: tantivy.Schema, *, compact: bool, records: bool = False):
        self.schema, self.compact = schema, compact
        self.records = records  # layout 8: threads', entries' and entities' records stored in binary (binrec)
        self.id_term: Callable[[str], str] = _compact if compact else _as_is  # bound once: a run adds ~355k keys
        # a record's own id is named once a run: caching it would only evict the ids named again
        self.own_term: Callable[[str], str] = _term if compact else _as_is

    def term(self, field: str, value: str) -> str:
        return self.id_term(value) if field in ID_FIELDS else value

    def delete(self, writer: tantivy.IndexWriter, record_id: str) -> None:
        """Drop, in WRITER's next commit, every document whose id is RECORD_ID."""
        writer.delete_documents_by_term("id", self.term("id", record_id))
