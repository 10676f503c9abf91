"""Upsert a bundle's records in batches, each made durable by a tantivy commit before it is checkpointed.

Order matters: threads, entities and entries before chunks (a chunk takes author, role, type and time from
its entry when it lacks them), and edges last so their facts can name both ends. A batch may span record
types: a small bundle (one `remember`) is one commit, not one per type. An upsert is a delete of the id's
term and an add in the same commit, so re-indexing the same records leaves one copy of each.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import islice
from operator import itemgetter
from typing import Any

import tantivy

from memdock.sdk import facts as sdk_facts

from . import docs, facts, implied, packed, queries, text_once
from .reader import Reader
from .settings import BATCH
from .store import CHUNKED_ENTRIES, Writers

ORDER = ("thread", "entity", "entry", "chunk", "edge")
TYPE_FLUSH = 1000  # at a change of record type, flush what is pending once it is this many records (a stream's
# to the writers alone until its input is whole)
STREAM_SLICE = packed.SAMPLES  # a chunk slice that large trains the dictionary on as many chunks as a batch's
CACHE = 200_000
DESCRIBED = (
    "id",
    "title",
    "name",
    "entity_type",
    "author",
    "role",
    "entry_type",
    "event_time",
    "thread_id",
    "entry_id",
)


class Ingest:
    """Adds records, commits every BATCH_SIZE of them, then calls ON_COMMIT with the committed ids.

    A stream (ONE_COMMIT) commits nothing before its input is whole: its input may still end without its end line
    (the core refused a record or died), and then none of it may be in the store (sdk/stream.py). Its edges come
    only after the end line (the adapter holds them back until then), so from its first edge on it commits every
    BATCH_SIZE records too, the first commit holding all that came before: a run killed while it writes its edges
    (the entries held for the text once, the edges derived from the entries) keeps what was checkpointed.

    Call `finish()` after the last `run()`: it adds the entries held for the text once and commits what is
    still pending."""

    def __init__(
        self,
        writer: Writers,
        reader: Reader,
        *,
        on_commit: Callable[[list[str]], None],
        batch_size: int = BATCH,
        text_once_: bool = False,
        compact_edges: int = 0,
        one_commit: bool = False,
        spool_dir: str | os.PathLike[str] | None = None,
        held_chars: int = text_once.HELD_CHARS,
    ):
        self.writer, self.reader, self.on_commit, self.batch_size = writer, reader, on_commit, batch_size
        self.one_commit = one_commit  # a stream: documents go to the writer as they come, a slice at a time
        self.whole = not one_commit  # the input is whole: commit every batch_size records
        self._added: list[str] = []  # ids added to the writer and not yet reported committed
        self._uncommitted = False
        self._graph_ids: list[str] | None = []  # ids added to the graph since the last commit; None: it deleted some
        self.doomed: list[str] = []  # ids of stored documents to delete in the next commit (implied.py)
        self.counts: dict[str, int] = {}
        # An empty index holds no id of this bundle yet, and a bundle's ids are unique: no upsert needs a delete.
        self.replace = reader.num_docs > 0
        self._entries = False  # this run has sent entries (an index empty at its start holds no others)
        self._stale = False
        self._known: dict[str, dict[str, Any] | None] = {}
        self._pending: list[tuple[str, str, tantivy.Document]] = []
        self._handed = 0  # documents given to the writers since the last flush, before it (`release`)
        self.held = text_once.Held(text_once_, spool_dir, held_chars)
        self._checked: set[str] = set()  # entries sent in this run, or whose stored text was checked
        self.compact = compact_edges  # layout 5 (7: binary): structural edges stored in compact_edges' form
        self._phrases: sdk_facts.Phrases = {}  # what facts said of each node, while no node is written
        self.keys = reader.indexes.keys
        self.chunked_entries = reader.indexes.version >= CHUNKED_ENTRIES  # bodies its chunks hold not indexed

    def _fresh(self) -> Reader:
        if self._stale:
            self.reader.refresh()
            self._known = {k: v for k, v in self._known.items() if v is not None}
            self._phrases.clear()  # a node not found before may be there now
            self._stale = False
        return self.reader

    def get(self, record_id: str) -> dict[str, Any] | None:
        """What a fact needs to name a record: from this run's own writes, else from the index."""
        if record_id not in self._known:
            self._remember(record_id, self._fresh().get(record_id))
        return self._known[record_id]

    def _remember(self, record_id: str, rec: dict[str, Any] | None, kind: str | None = None) -> None:
        """Keep what facts need of REC (a stored record, or one of this run's of type KIND: its own `kind` field,
        when it has one, wins, as it did in the copy that added KIND to it)."""
        if len(self._known) >= CACHE:
            if self.one_commit:  # what leaves the cache must be readable from the index
                self._commit()
            self._known.clear()
        if rec is not None:
            get = rec.get
            described = dict(zip(DESCRIBED, map(get, DESCRIBED)))  # no copy of REC first: ~21k a run
            described["kind"] = get("kind", kind) if kind is not None else rec["kind"]
            # a fact names an untitled entry by the snippet of its body: made here once, not at each of its edges
            described["body"] = "" if get("title") else sdk_facts._snippet((get("body") or "")[:200])
            rec = described
        self._known[record_id] = rec

    def run(self, rtype: str, records: Iterable[dict[str, Any]]) -> None:
        if rtype == "edge":
            self.whole = True  # a stream's edges come after its end line (the adapter's `hold`)
            self.release()
        if rtype != "edge" or len(self._phrases) >= CACHE:
            self._phrases.clear()
        if self._waiting() >= min(TYPE_FLUSH, self.batch_size):  # a slice's room is then what is left
            self.flush()
        it = iter(records)
        while batch := list(islice(it, self._room())):
            if rtype in ("thread", "entity", "entry"):
                remember = self._remember
                for r in batch:
                    remember(r["id"], r, rtype)
            if rtype == "entry":
                self._entries = True
                self._checked.update(r["id"] for r in batch if self.replace)
                batch = [r for r in batch if not self.held.keep(r)]
            elif rtype == "chunk":
                self._before_chunks(batch)
            context = self._context(rtype, batch)
            if rtype == "chunk":
                docs_ = self._chunk_docs(batch, context)
            elif rtype == "edge":
                docs_ = self._edge_docs(batch)
            else:
                docs_ = [self._doc(rtype, r, extra) for r, extra in zip(batch, context)]
            self._pending += [(rtype, r["id"], d) for r, d in zip(batch, docs_)]
            if rtype == "chunk":
                self.held.ready()  # the entries its chunks now hold leave memory (their text for the spool)
            if self.one_commit or self._waiting() >= self.batch_size:
                self.flush()

    def _room(self) -> int:
        """How many records the next slice takes: a stream's go to the writers a slice at a time, so tantivy's
        indexing thread works while this one builds the next documents."""
        room = self.batch_size - self._waiting()
        return min(room, STREAM_SLICE) if self.one_commit else room

    def _before_chunks(self, batch: list[dict[str, Any]]) -> None:
        """Note the chunks of held entries; an entry stored earlier with its text in its chunks is stored again
        with its body before any of them changes (checked at its first chunk of the run, against the last commit,
        which holds none of this run's chunks of it yet), or is sent for another entry."""
        for r in batch:
            self.held.saw(r)
        if not self.replace:
            return
        first = {r["entry_id"] for r in batch}
        # a chunk sent for another entry than the one it was stored for leaves that one's text short
        moved = {c["entry_id"] for c in self._fresh().where("id", [r["id"] for r in batch], kind="chunk")} - first
        first = (first | moved) - self._checked
        self._checked |= first
        for rec in self._fresh().where("id", first, kind="entry") if first else []:
            if rec.get(text_once.FLAG):
                self._pending.append(("entry", rec["id"], docs.entry_doc(text_once.with_body(rec), self.keys)))

    def release(self) -> None:
        """Add the held entries, each without its body where this run's chunks hold it."""
        if not self.held.order:
            return
        stored = (lambda ids: self._fresh().where("entry_id", ids, kind="chunk")) if self.replace else lambda ids: []
        for released in self.held.release(stored):
            for r, in_chunks, crossed in released:
                # an entry with a chunk in another thread keeps its body indexed: a thread's search finds it by it
                apart = not self.chunked_entries or crossed
                doc = docs.entry_doc(r, self.keys, in_chunks, searched=not in_chunks or apart)
                self._pending.append(("entry", r["id"], doc))
            if len(self._pending) >= TYPE_FLUSH:  # to the writers now, not all the run's entries' documents at once
                self._hand()

    def finish(self) -> None:
        """After the last `run()`: add what is held, commit what is pending."""
        self.release()
        self.held.close()
        self.flush(final=True)

    def flush(self, *, final: bool = False) -> None:
        """Add the pending documents to the writers; commit them (and report them committed) unless this is a
        stream before its FINAL flush, or before its input is whole or batch_size records came since the last
        commit."""
        self._hand()
        self._handed = 0
        if final or not self.one_commit or (self.whole and len(self._added) >= self.batch_size):
            self._commit()
            added, self._added = self._added, []
            if added:
                self.on_commit(added)

    def _waiting(self) -> int:
        """Documents since the last flush: pending, or given to the writers before it."""
        return len(self._pending) + self._handed

    def _hand(self) -> None:
        """Add the pending documents to the writers (committed by the next flush)."""
        pending, self._pending = self._pending, []
        if pending or self.doomed:
            self._add(pending)
            for rtype, n in Counter(map(itemgetter(0), pending)).items():
                self.counts[rtype] = self.counts.get(rtype, 0) + n
            self._added += map(itemgetter(1), pending)
            self._handed += len(pending)

    def commit(self, documents: list[tuple[str, str, tantivy.Document]]) -> None:
        """DOCUMENTS as (record type, id, document), each added to its type's index, then committed."""
        self._add(documents)
        self._commit()

    def _add(self, documents: list[tuple[str, str, tantivy.Document]]) -> None:
        try:
            if self.doomed:
                self._graph_ids = None
            for record_id in self.doomed:
                self.keys.delete(self.writer.graph, record_id)
            self.doomed.clear()
            if self.replace:
                for rtype, record_id, doc in documents:
                    writer = self.writer.of(rtype)
                    self.keys.delete(writer, record_id)
                    writer.add_document(doc)
            else:  # an index empty at the start of the run holds none of these ids: nothing to delete
                graph, chunks = self.writer.of("graph").add_document, self.writer.of("chunk").add_document
                added = self._graph_ids if self._graph_ids is not None else []
                for rtype, record_id, doc in documents:
                    if rtype == "chunk":
                        chunks(doc)
                    else:
                        graph(doc)
                        added.append(record_id)
        except BaseException as exc:
            self.rollback(exc)
            raise
        self._uncommitted = True

    def _commit(self) -> None:
        if not self._uncommitted:
            return
        try:
            self.writer.commit()
        except BaseException as exc:
            self.rollback(exc)
            raise
        self._uncommitted, self._stale, self._graph_ids = False, True, []

    def rollback(self, cause: BaseException | None = None) -> None:
        """Drop what was added since the last commit (a failed run: none of it was reported committed); CAUSE, a
        full disk, is raised as disk_full (store.Writers.rollback)."""
        self._added, self._uncommitted, self._handed = [], False, 0
        ids, self._graph_ids = self._graph_ids, []
        self.writer.rollback(cause, undo=self._undo(ids))

    def _undo(self, ids: list[str] | None) -> Callable[[tantivy.IndexWriter], bool] | None:
        """What takes back the graph's half of a commit whose chunks' half failed (a full disk at the second of the
        two commits): deleting the IDS it added, when it deleted nothing (a run into an index empty at its start,
        whose ids are new); else None, and the re-run upserts them, as after a kill -9 between the two.

        An id is unique per record type only (a thread `x`, an entity `x`): when one of IDS also names a document
        an earlier commit of this run holds, deleting by it would take that one too, checkpointed and never sent
        again. The graph's last commit tells: it holds more documents under IDS than the batch added. Then nothing
        is taken back (what the batch added stays, for the re-run to upsert). The check runs at the failure only."""
        if self.replace or not ids:
            return None
        keys, graph_index = self.keys, self.reader.indexes.graph

        def undo(graph: tantivy.IndexWriter) -> bool:
            graph_index.reload()  # its last commit: the graph's half of this batch's
            found: Any = graph_index.searcher().search(queries.key(keys, "id", ids), 1, count=True)
            if found.count != len(ids):  # each added document holds one of IDS: more is an earlier commit's
                return False
            for record_id in ids:
                keys.delete(graph, record_id)
            return True

        return undo

    def _context(self, rtype: str, batch: list[dict[str, Any]]) -> list[Any]:
        if rtype != "chunk" or not (self.replace or self._entries):
            return [None] * len(batch)  # no entry a chunk could take what it lacks from
        orphans = {r["entry_id"] for r in batch if any(r.get(k) is None for k in docs.INHERITED)}
        parents = {i: self._known[i] for i in orphans if self._known.get(i)}
        missing = orphans - set(parents)
        if missing:
            parents.update((rec["id"], rec) for rec in self._fresh().where("id", missing, kind="entry"))
        return [parents.get(r["entry_id"]) for r in batch]

    def _chunk_docs(self, batch: list[dict[str, Any]], parents: list[Any]) -> list[tantivy.Document]:
        """BATCH's documents, their stored records packed with the store's dictionary (trained on the first
        chunks of a store whose layout packs)."""
        packer = self.reader.indexes.packer
        if packer.untrained:
            first = islice(zip(batch, parents), packed.SAMPLES)
            packer.train([docs.stored_bytes("chunk", docs.inherit(r, p)) for r, p in first])
        pack = packer.pack if packer.ready else None
        return [docs.chunk_doc(r, p, self.keys, pack) for r, p in zip(batch, parents)]

    def _doc(self, rtype: str, r: dict[str, Any], extra: Any) -> tantivy.Document:
        if rtype == "entry":
            return docs.entry_doc(r, self.keys)
        if rtype == "thread":
            return docs.thread_doc(r, self.keys)
        if rtype == "entity":
            return docs.entity_doc(r, self.keys)
        return self._edge_docs([r])[0]

    def _edge_docs(self, batch: list[dict[str, Any]]) -> list[tantivy.Document]:
        """BATCH's edge documents, each with its fact: an edge `implied` made the short way (in a store whose
        layout stores edges compactly), any other the long way."""
        get, phrases, keys, compact, made = self.get, self._phrases, self.keys, self.compact, implied.Made
        out = []
        for r in batch:
            text, resolved, source_kind = facts.render(get, r, phrases)
            if compact and type(r) is made:
                out.append(docs.made_edge_doc(r, source_kind, text, resolved, keys, compact))
            else:
                out.append(docs.edge_doc({**r, "source_kind": source_kind}, text, resolved, keys, compact=compact))
        return out

    def refresh_unresolved(self) -> int:
        """Render again the facts whose endpoints were missing; returns how many are now resolved."""
        self.finish()
        pending = self._fresh().where("unresolved", ["1"], kind="edge")
        fixed = []
        for rec in pending:
            text, resolved, source_kind = facts.render(self.get, rec)
            if resolved:
                edge = {k: v for k, v in rec.items() if k not in ("kind", "fact")}
                doc = docs.edge_doc({**edge, "source_kind": source_kind}, text, True, self.keys, compact=self.compact)
                fixed.append(("edge", rec["id"], doc))
        if fixed:
            self.replace = True
            self.commit(fixed)
        return len(fixed)
