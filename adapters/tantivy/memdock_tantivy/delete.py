"""Delete records and what hangs off them, as the sqlite adapter does: thread → its entries → their chunks (and
the chunks sent with the thread whatever their entry's) → every edge touching any of them, and entities left with
no edge at all. One tantivy commit: a delete happens entirely or not at all."""

from __future__ import annotations

from typing import Any

from memdock.errors import InvalidInputError

from . import docs, text_once
from .reader import Reader
from .store import Indexes


def doomed(reader: Reader, ids: list[str]) -> tuple[list[str], dict[str, str]]:
    """The stored ids among IDS, and everything the cascade takes with them (those ids included), id to kind."""
    direct = {rec["id"]: rec for rec in reader.where("id", ids)}
    gone = dict(direct)
    threads = [i for i, rec in direct.items() if rec["kind"] == "thread"]
    gone.update((rec["id"], rec) for rec in reader.where("thread_id", threads, kind="entry"))
    gone.update(
        (rec["id"], rec)
        for rec in reader.where("entry_id", [i for i, r in gone.items() if r["kind"] == "entry"], kind="chunk")
    )
    # a chunk sent with a thread its entry is not in answers as that thread's: it goes with the thread
    gone.update((rec["id"], rec) for rec in reader.where("thread_id", threads, kind="chunk"))
    out_edges = reader.where("source_id", gone, kind="edge")
    in_edges = reader.where("target_id", gone, kind="edge")
    gone.update((e["id"], e) for e in out_edges + in_edges)
    touched = {e["target_id"] for e in out_edges} - set(direct)
    for entity in reader.where("id", touched, kind="entity"):
        remaining = [
            e
            for e in reader.where("source_id", [entity["id"]], kind="edge")
            + reader.where("target_id", [entity["id"]], kind="edge")
            if e["id"] not in gone
        ]
        if not remaining:
            gone[entity["id"]] = entity
    return list(direct), {i: r["kind"] for i, r in gone.items()}


def kept_texts(reader: Reader, gone: dict[str, str]) -> list[dict[str, Any]]:
    """The entries that stay while chunks holding their text go: stored again with their bodies (text_once)."""
    chunks = [i for i, kind in gone.items() if kind == "chunk"]
    entries = {c["entry_id"] for c in reader.where("id", chunks, kind="chunk")} - set(gone)
    return [r for r in reader.where("id", entries, kind="entry") if r.get(text_once.FLAG)]


def delete(index: Indexes, writer_of, params: dict[str, Any]) -> dict[str, Any]:
    ids = params.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a list of non-empty ids")
    ids = list(dict.fromkeys(ids))
    reader = Reader(index)
    direct, gone = doomed(reader, ids)
    if gone:
        keep = kept_texts(reader, gone)
        writer = writer_of()
        try:
            for record_id, kind in gone.items():
                index.keys.delete(writer.of(kind), record_id)
            for rec in keep:
                index.keys.delete(writer.graph, rec["id"])
                writer.graph.add_document(docs.entry_doc(text_once.with_body(rec), index.keys))
            writer.commit()
        except BaseException as exc:
            writer.rollback(exc)  # a full disk: disk_full, the store as it was
            raise
        finally:
            writer.wait()  # and the index's lock let go, for the next delete of a worker that lives on
    found = set(direct)
    return {"deleted": list(gone), "not_found": [i for i in ids if i not in found], "cascaded": len(gone) - len(direct)}
