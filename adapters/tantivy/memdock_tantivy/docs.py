"""Records to tantivy documents: exact keys for lookups and filters, analysed text for search, and what hits are
built from stored once (JSON in `rec`): a record's fields less those no answer reads (content hashes, token
counts, ingestion times, metadata), no edge's fact sentence (rendered from its ends when read, as the sqlite
adapter renders its structural links). A chunk keeps its own text: putting it back from its entry's body when read
took a second lookup per query, five times the query's own time. So the text is stored once the other way round:
an entry whose chunks join to its body stores none (text_once)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import orjson
import tantivy

from memdock import times

from . import binrec, compact_edges, text_once
from .keys import Keys

_AGENT_USER = re.compile(r"^(.*?)\s*\(([^()]*)\)$")
INHERITED = ("author", "role", "entry_type", "event_time")
Pack = Callable[[bytes], bytes]
UNREAD = frozenset({"content_hash", "token_count", "ingestion_time", "metadata"})
COMPACT, BINARY = 1, 2  # an edge's stored form where it has one: compact_edges' text (layouts 5-6), binary (7)


@lru_cache(maxsize=65536)  # a thread's entries and chunks share times; a corpus has few authors
def timestamp(value: str | None) -> float | None:
    if not value:
        return None
    return times.parse(value).timestamp()


@lru_cache(maxsize=4096)
def author_keys(author: str | None) -> tuple[str, ...]:
    """ "Codex (lee)" is found as itself, as "codex" and as "lee" (watercooler writes authors as "agent (user)")."""
    if not author:
        return ()
    low = author.strip().lower()
    m = _AGENT_USER.match(low)
    return (low, *(k for k in (m.group(1).strip(), m.group(2).strip()) if k)) if m else (low,)


def stored_bytes(kind: str, stored: dict[str, Any], *, compact: int = 0, binary: bool = False) -> bytes:
    """The record as stored (JSON, or an edge's compact form when COMPACT and it has one: BINARY its layout 7 form;
    BINARY: any other record in binrec's form, layout 8), before any packing. (An edge `expand` made takes a
    shorter way to the same bytes: `made_edge_doc`.)"""
    fields = {"kind": kind, **stored}
    for key in UNREAD.intersection(stored):  # deleting keeps the others' order: the same bytes as a filtered copy
        del fields[key]
    if compact and (edge := compact_edges.encode(fields, compact == BINARY)):
        return edge
    return binrec.encode(fields) if binary else orjson.dumps(fields)


def _made(fields: dict[str, Any], keys: Keys) -> tantivy.Document:
    """The document of FIELDS (a field's name: its value, or a list of them) in one call, typed by the schema:
    tantivy-py keeps a document's values by field name (a BTreeMap), so it is the document that one `add_*` call a
    value makes (test_tantivy_doc_build.py), for less than half their CPU (an edge's: 1.4 against 3.3 µs)."""
    return _FROM_DICT(fields, keys.schema)


_FROM_DICT = tantivy.Document.from_dict


def _base_fields(
    kind: str,
    r: dict[str, Any],
    stored: dict[str, Any],
    keys: Keys,
    pack: Pack | None = None,
    *,
    compact: int = 0,
) -> dict[str, Any]:
    raw = stored_bytes(kind, stored, compact=compact, binary=keys.records and kind != "chunk")
    fields: dict[str, Any] = {"id": keys.own_term(r["id"]), "kind": kind, "rec": pack(raw) if pack is not None else raw}
    ts = timestamp(stored.get("event_time"))
    if ts is not None:
        fields["ts"] = ts
    return fields


def _filters(fields: dict[str, Any], r: dict[str, Any]) -> None:
    if authors := author_keys(r.get("author")):
        fields["author"] = list(authors)
    if r.get("role"):
        fields["role"] = str(r["role"]).lower()
    if r.get("entry_type"):
        fields["etype"] = str(r["entry_type"]).lower()


def thread_doc(r: dict[str, Any], keys: Keys) -> tantivy.Document:
    fields = _base_fields("thread", r, {**r, "thread_id": r["id"]}, keys)
    fields["thread_id"] = keys.id_term(r["id"])
    fields["name"] = r.get("title", "")
    fields["text"] = " ".join(x for x in (r.get("topic"), r.get("status"), r.get("ball")) if x)
    return _made(fields, keys)


def entity_doc(r: dict[str, Any], keys: Keys) -> tantivy.Document:
    fields = _base_fields("entity", r, r, keys)
    fields["name"] = r["name"]
    fields["text"] = " ".join([r["entity_type"], r["name"], *(r.get("aliases") or [])])
    return _made(fields, keys)


def entry_doc(r: dict[str, Any], keys: Keys, in_chunks: int = 0, *, searched: bool = True) -> tantivy.Document:
    """IN_CHUNKS (text_once.JOINED or, in a layout 8 store, SPANS): the body is stored only in the entry's chunks
    (text_once); a layout before 8 stores an entry its chunks hold as SPANS with its body. SEARCHED: the body is
    indexed too; otherwise the entry is found by its title here and by its body through its chunks
    (store.CHUNKED_ENTRIES)."""
    if in_chunks == text_once.SPANS and not keys.records:
        in_chunks = 0
    flag = True if in_chunks == text_once.JOINED else in_chunks
    stored = {**{k: v for k, v in r.items() if k != "body"}, text_once.FLAG: flag} if in_chunks else r
    fields = _base_fields("entry", r, stored, keys)
    fields["thread_id"] = keys.id_term(r["thread_id"])
    _filters(fields, r)
    fields["name"] = r.get("title", "")
    if searched:
        fields["text"] = r["body"]
    return _made(fields, keys)


def inherit(r: dict[str, Any], parent: dict[str, Any] | None) -> dict[str, Any]:
    """Chunk R with what PARENT (the stored entry) supplies where R lacks it: author, role, type and time."""
    if parent is not None and any(r.get(k) is None for k in INHERITED):
        return {**r, **{k: parent.get(k) for k in INHERITED if r.get(k) is None and parent.get(k) is not None}}
    return r


def chunk_doc(
    r: dict[str, Any], parent: dict[str, Any] | None, keys: Keys, pack: Pack | None = None
) -> tantivy.Document:
    """PARENT supplies what the chunk lacks (`inherit`); PACK, when given, compresses the stored record."""
    r = inherit(r, parent)
    fields = _base_fields("chunk", r, r, keys, pack)
    term = keys.id_term
    fields["entry_id"] = term(r["entry_id"])
    fields["thread_id"] = term(r["thread_id"])
    _filters(fields, r)
    if header := r.get("header"):  # an empty value adds no token: the index is the same bytes without it
        fields["head"] = header
    fields["body"] = text_once.chunk_body(r)
    return _made(fields, keys)


def edge_doc(r: dict[str, Any], fact: str, resolved: bool, keys: Keys, *, compact: int = 0) -> tantivy.Document:
    """FACT is indexed, not stored: it is rendered again from the edge's ends when read (`Reader`). COMPACT (layout
    5; BINARY, layout 7): stored in compact_edges' form where the edge has one."""
    fields = _base_fields("edge", r, r, keys, compact=compact)
    return _made(_edge_fields(fields, r, fact, resolved, keys), keys)


def made_edge_doc(
    r: dict[str, Any], source_kind: str | None, fact: str, resolved: bool, keys: Keys, compact: int = COMPACT
) -> tantivy.Document:
    """`edge_doc`'s document (COMPACT) for R, an edge record implied.Made, with its SOURCE_KIND: the same fields and
    bytes, added without a copy of R or the checks a record sent as such needs (a run derives ~3 a note): its id is
    `edge_id` of its type and ends, not hashed again (compact_edges.encode_made_as)."""
    raw = compact_edges.encode_made_as(r, source_kind, compact == BINARY)
    if raw is None:  # a time or an odd value: JSON, the long way
        return edge_doc({**r, "source_kind": source_kind}, fact, resolved, keys, compact=compact)
    fields = {"id": keys.own_term(r["id"]), "kind": "edge", "rec": raw}
    return _made(_edge_fields(fields, r, fact, resolved, keys), keys)


def _edge_fields(fields: dict[str, Any], r: dict[str, Any], fact: str, resolved: bool, keys: Keys) -> dict[str, Any]:
    """FIELDS with edge R's ends and thread as the store's id terms, its unresolved mark and its FACT."""
    term = keys.id_term
    fields["source_id"] = term(r["source_id"])
    fields["target_id"] = term(r["target_id"])
    if thread := r.get("thread_id"):
        fields["thread_id"] = term(thread)
    if not resolved:
        fields["unresolved"] = "1"
    fields["fact"] = fact
    return fields


def record(doc: tantivy.Document, unpack: Pack | None = None) -> dict[str, Any]:
    stored = doc.get_first("rec")
    if stored is None:
        raise ValueError("a tantivy document without its stored record (not written by this adapter)")
    mark = stored[:1]
    if mark in compact_edges.MARKS:
        return compact_edges.decode(stored)
    if mark == binrec.MARK:
        return binrec.decode(stored)
    raw = unpack(stored) if unpack is not None else stored
    return binrec.decode(raw) if raw[:1] == binrec.MARK else orjson.loads(raw)
