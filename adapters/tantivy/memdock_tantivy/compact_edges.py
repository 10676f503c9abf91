"""Structural edges stored compactly (layout 5): what an edge needs besides its rendered fact is its type, its
two ends, its thread and its source's kind; its id is the importer's, made from the first three
(`edge:TYPE:digest(TYPE, SOURCE, TARGET)`), so it is put back when read rather than stored.

On the 20k short notes of bench/peers.py (its store breakdown) the graph index's doc store went from 3.98 to
2.27 MB (63,544 contains / follows / mentions edges, JSON in tantivy's lz4 blocks before): their ids are 16 hex
digits of a hash each, which no block compressor shortens. The edge's keys (id, ends, thread) and its fact's
terms are indexed as before, so search_facts, get_edge, neighbours and deletes find and rank the same documents.
An edge with anything else (a weight, a time, attributes, an id made another way) keeps its JSON.
"""

from __future__ import annotations

from typing import Any

from memdock.sdk.implied import edge_id

MARK = b"\x01"  # first byte of a compact record: JSON starts with `{`, a zstd frame with 0x28
SEP = "\x1f"
FIELDS = ("type", "source_id", "target_id", "thread_id", "source_kind")
KEPT = frozenset({"kind", "id", *FIELDS})
_MADE = frozenset({"id", "event_time", "ingestion_time", *FIELDS})  # the fields of an edge `expand` made


def encode(stored: dict[str, Any]) -> bytes | None:
    """STORED (an edge's stored fields, `kind` and `source_kind` included) as a compact record; None when it holds
    anything the compact form cannot give back exactly."""
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
    return MARK + text.encode()


def encode_made(edge: dict[str, Any]) -> bytes | None:
    """`encode`'s record for EDGE, an edge record sdk/implied.py's `expand` made (so its id is `edge_id` of its type
    and ends) with its `source_kind`, read from it as it is: no stored fields built first, no id hashed again. None
    where `encode` could not take it (an event_time, an empty or odd value), for the caller to store it the long
    way."""
    return None if "source_kind" not in edge else encode_made_as(edge, edge["source_kind"])


def encode_made_as(edge: dict[str, Any], source_kind: str | None) -> bytes | None:
    """`encode_made`'s record for EDGE (with no `source_kind` of its own, or that one) with SOURCE_KIND: an edge is
    not copied to add its source's kind (docs.made_edge_doc)."""
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
    return MARK + text.encode() if text.count(SEP) == len(FIELDS) - 1 else None


def decode(raw: bytes) -> dict[str, Any]:
    """The record `encode` was given (source_kind None where it was; thread_id only where it was given)."""
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
