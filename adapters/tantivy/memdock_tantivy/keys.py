"""Ids as index terms: text (layouts 1-5) or compact bytes (layout 6).

memdock's ids end in a hash's 16 hex digits (`edge:mentions:0f3a…`, `chunk:…`, `entity:person:…`). The term
dictionary shares the prefix a term has with the one before it, never the random tail, so each id costs its 16
digits once per field that holds it (id, entry_id, thread_id, source_id, target_id). Layout 6 indexes those
fields as tantivy bytes fields, each id as one of two forms that no id has in common with another:

- `\\x00` + the id up to its last `:` + the 16 digits as 8 raw bytes, for an id ending in `:` and 16 lower-case
  hex digits (the fixed length of the tail makes the form reversible, so two ids never share it);
- `\\x01` + the id's UTF-8 bytes, for any other id.

Only the terms change: the stored records keep the ids as text, and no ranked field's statistics (document
count, lengths, document frequencies) move, so every answer and score is the one a text key gives
(tests/tantivy/test_tantivy_compact_ids.py). The bindings cannot delete by a bytes term, so an upsert's and a
delete's removal goes through a term query on it.
"""

from __future__ import annotations

import re
from functools import lru_cache

import tantivy

ID_FIELDS = frozenset({"id", "entry_id", "thread_id", "source_id", "target_id"})
HEXED, PLAIN = b"\x00", b"\x01"
_HEX_TAIL = re.compile(r"(.*:)([0-9a-f]{16})\Z", re.S)


@lru_cache(maxsize=65536)  # a run names each thread, entry and entity many times (its chunks, its edges)
def compact(value: str) -> bytes:
    """VALUE's layout 6 term."""
    m = _HEX_TAIL.match(value)
    if m is None:
        return PLAIN + value.encode()
    return HEXED + m.group(1).encode() + bytes.fromhex(m.group(2))


class Keys:
    """How a store indexes its id fields: as text, or (COMPACT, layout 6) as `compact`'s bytes."""

    def __init__(self, schema: tantivy.Schema, *, compact: bool):
        self.schema, self.compact = schema, compact

    def term(self, field: str, value: str) -> str | bytes:
        return compact(value) if self.compact and field in ID_FIELDS else value

    def add(self, doc: tantivy.Document, field: str, value: str) -> None:
        if self.compact and field in ID_FIELDS:
            doc.add_bytes(field, compact(value))
        else:
            doc.add_text(field, value)

    def delete(self, writer: tantivy.IndexWriter, record_id: str) -> None:
        """Drop, in WRITER's next commit, every document whose id is RECORD_ID."""
        if self.compact:
            writer.delete_documents_by_query(tantivy.Query.term_query(self.schema, "id", compact(record_id)))
        else:
            writer.delete_documents_by_term("id", record_id)
