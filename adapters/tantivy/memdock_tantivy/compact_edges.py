"""Structural edges stored compactly (layout 5): what an edge needs besides its rendered fact is its type, its
two ends, its thread and its source's kind; its id is the importer's, made from the first three
(`edge:TYPE:digest(TYPE, SOURCE, TARGET)`), so it is put back when read rather than stored.

On the 20k short notes of bench/peers.py (its store breakdown) the graph index's doc store went from 3.98 to
2.27 MB (63,544 contains / follows / mentions edges, JSON in tantivy's lz4 blocks before): their ids are 16 hex
digits of a hash each, which no block compressor shortens. The edge's keys (id, ends, thread) and its fact's
terms are indexed as before, so search_facts, get_edge, neighbours and deletes find and rank the same documents.
An edge with anything else (a weight, a time, attributes, an id made another way) keeps its JSON.

Layout 7 writes the same fields in binary (MARK_BINARY): an id that ends in `:` and 16 hex digits keeps its prefix
and the 8 bytes the digits spell (lz4 finds nothing to share in hex digits of a hash; half as many bytes are half
the store), each field behind its length; a thread that is the source (a contains edge's) and a source kind that
is `thread` or `entry` are flags. On bench/peers.py's 20k notes the graph index's doc store went from 2.23 to
1.85 MB (`python bench/tantivy_edges.py`). Both forms are read whatever the layout; a store writes its layout's.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from memdock.sdk.implied import edge_id

MARK = b"\x01"  # first byte of a compact record: JSON starts with `{`, a zstd frame with 0x28
MARK_BINARY = b"\x02"  # first byte of a layout 7 record
MARKS = (MARK, MARK_BINARY)
_NO_THREAD, _THREAD_IS_SOURCE, _KIND_NONE, _KIND_THREAD, _KIND_ENTRY = 1, 2, 4, 8, 16
_KINDS = {None: _KIND_NONE, "thread": _KIND_THREAD, "entry": _KIND_ENTRY}
_THREAD_FLAGS, _KIND_FLAGS = _NO_THREAD | _THREAD_IS_SOURCE, _KIND_NONE | _KIND_THREAD | _KIND_ENTRY
_KIND_OF = {_KIND_NONE: "", _KIND_THREAD: "thread", _KIND_ENTRY: "entry"}
_HEX = frozenset("0123456789abcdef")
_FLAGS = [MARK_BINARY + bytes((f,)) for f in range(32)]
SEP = "\x1f"
FIELDS = ("type", "source_id", "target_id", "thread_id", "source_kind")
KEPT = frozenset({"kind", "id", *FIELDS})
_MADE = frozenset({"id", "event_time", "ingestion_time", *FIELDS})  # the fields of an edge `expand` made


def encode(stored: dict[str, Any], binary: bool = False) -> bytes | None:
    """STORED (an edge's stored fields, `kind` and `source_kind` included) as a compact record (BINARY: layout 7's);
    None when it holds anything the compact form cannot give back exactly."""
    if not KEPT.issuperset(stored) or "source_kind" not in stored:
        return None
    etype, source, target = stored.get("type"), stored.get("source_id"), stored.get("target_id")
    thread, source_kind = stored.get("thread_id", ""), stored["source_kind"]
    if not (etype and source and target) or source_kind == "" or ("thread_id" in stored and not thread):
        return None  # an empty value would read back as absent
    try:
        text = SEP.join((etype, source, target, thread, source_kind or ""))
    except TypeError:  # a value that is not a string
        return None
    if text.count(SEP) != len(FIELDS) - 1 or stored.get("id") != edge_id(etype, source, target):
        return None
    return _binary(etype, source, target, thread, source_kind) if binary else MARK + text.encode()


def encode_made_as(edge: dict[str, Any], source_kind: str | None, binary: bool = False) -> bytes | None:
    """`encode`'s record for EDGE, an edge record sdk/implied.py's `expand` made (so its id is `edge_id` of its type
    and ends), with SOURCE_KIND, read from it as it is: no stored fields built first, no id hashed again, and the edge
    not copied to add its source's kind (docs.made_edge_doc). None where `encode` could not take it (an event_time,
    an empty or odd value), for the caller to store it the long way. BINARY: layout 7's."""
    if not _MADE.issuperset(edge) or "event_time" in edge:
        return None
    etype, source, target = edge.get("type"), edge.get("source_id"), edge.get("target_id")
    thread = edge.get("thread_id", "")
    if not (etype and source and target) or source_kind == "" or ("thread_id" in edge and not thread):
        return None
    try:
        text = SEP.join((etype, source, target, thread, source_kind or ""))
    except TypeError:
        return None
    if text.count(SEP) != len(FIELDS) - 1:
        return None
    return _binary(etype, source, target, thread, source_kind) if binary else MARK + text.encode()


@lru_cache(maxsize=65536)  # a run names each thread, entity and type, and most entries, in several edges
def _field(value: str) -> bytes:
    """VALUE behind its length: an id's hex tail as its 8 bytes (the length's low bit set), anything else as UTF-8."""
    if len(value) > 17 and value[-17] == ":" and _HEX.issuperset(value[-16:]):
        head = value[:-16].encode()
        return varint(len(head) << 1 | 1) + head + bytes.fromhex(value[-16:])
    raw = value.encode()
    return varint(len(raw) << 1) + raw


def varint(n: int) -> bytes:
    """N (>= 0) in LEB128: seven bits a byte, the high bit set on every byte but the last (binrec's too)."""
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _binary(etype: str, source: str, target: str, thread: str, source_kind: str | None) -> bytes:
    """The layout 7 record of an edge whose fields `encode` accepted (THREAD "" when it has none)."""
    flags = _KINDS.get(source_kind, 0)
    if not thread:
        flags |= _NO_THREAD
    elif thread == source:
        flags |= _THREAD_IS_SOURCE
    out = _FLAGS[flags] + _field(etype) + _field(source) + _field(target)
    if not flags & _THREAD_FLAGS:
        out += _field(thread)
    if not flags & _KIND_FLAGS:
        out += _field(source_kind or "")
    return out


def _fields(raw: bytes, at: int) -> list[str]:
    """The fields `_binary` wrote from offset AT of RAW."""
    out = []
    while at < len(raw):
        n = shift = 0
        while True:
            if at >= len(raw):
                raise ValueError(f"a binary edge record cut short: {raw[:120]!r}")
            byte = raw[at]
            at += 1
            n |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        size = n >> 1
        if at + size + 8 * (n & 1) > len(raw):
            raise ValueError(f"a binary edge record cut short: {raw[:120]!r}")
        value = raw[at : at + size].decode()
        at += size
        if n & 1:
            value += raw[at : at + 8].hex()
            at += 8
        out.append(value)
    return out


def _decode_binary(raw: bytes) -> tuple[str, ...]:
    if len(raw) < 2 or raw[1] & ~31:
        raise ValueError(f"a binary edge record without its flags or with unknown ones: {raw[:120]!r}")
    flags, fields = raw[1], _fields(raw, 2)
    want = 3 + (not flags & _THREAD_FLAGS) + (not flags & _KIND_FLAGS)
    if len(fields) != want or not all(fields[:3]):
        raise ValueError(f"a binary edge record that is not {want} fields: {raw[:120]!r}")
    etype, source, target = fields[:3]
    rest = iter(fields[3:])
    thread = "" if flags & _NO_THREAD else source if flags & _THREAD_IS_SOURCE else next(rest)
    kind = _KIND_OF.get(flags & _KIND_FLAGS)
    return etype, source, target, thread, next(rest) if kind is None else kind


def decode(raw: bytes) -> dict[str, Any]:
    """The record `encode` was given (source_kind None where it was; thread_id only where it was given)."""
    if raw[:1] == MARK_BINARY:
        etype, source, target, thread, source_kind = _decode_binary(raw)
    else:
        parts = raw[1:].decode(errors="replace").split(SEP)
        if len(parts) != len(FIELDS) or not all(parts[:3]):
            raise ValueError(f"a compact edge record that is not {len(FIELDS)} fields: {raw[:120]!r}")
        etype, source, target, thread, source_kind = parts
    rec: dict[str, Any] = {"kind": "edge", "id": edge_id(etype, source, target), "type": etype}
    rec.update(source_id=source, target_id=target)
    if thread:
        rec["thread_id"] = thread
    rec["source_kind"] = source_kind or None
    return rec
