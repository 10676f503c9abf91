"""The index on disk: its schema, its analyzer, and opening it safely.

The store is `<data dir>/index/` (threads, entries, entities and edges), `<data dir>/chunks/` (chunks alone) and
`<data dir>/memdock-tantivy.json`, a marker naming the schema version. Chunks have an index of their own because
tantivy's BM25 takes the document count and the average field length over every document of an index: with the
graph's records beside them, a chunk query ranked as if the corpus were five times larger and its chunks five times
longer than average, and shared 0.72 of raw tantivy-py's top 10 on the same texts (docs/concepts/ranking.md). New
stores are version 8: threads', entries' and entities' stored records are binary, an id's hex tail as its 8 bytes
(binrec), an entry whose chunks overlap but hold all of its body is stored without it (text_once.SPANS), and an
entry its chunks hold is searched through them, its body not indexed in the graph (search.search_nodes). Since
version 7 a structural edge's stored record is binary, its ids' hex tails as bytes (compact_edges); since version 6
the hash that ends an id is written shorter in its terms (keys); since version 5 a structural edge's stored record
is its type, ends, thread and source kind, its id put back from them when read (compact_edges); since version 4 a
chunk's stored record is compressed with the store's zstd dictionary (packed); since version 3 an entry's text may
be held by its chunks alone (text_once), and field norms are kept for ranked fields only (store_layout). A version
7 store (other records than structural edges' as JSON, an entry whose chunks overlap stored with its body), 6
(edges' records as text), 5 (ids as terms as they are), 4 (edges stored as JSON), 3 (chunks stored as JSON), 2
(every entry's body stored) or 1 (one index for every kind) is still read and written as it is. A directory with
index files but no marker, or with a marker from a newer adapter, is
refused and left as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import tantivy

from memdock.errors import BackendError, ConfigError, VersionError

from . import docs, full, keys, store_layout
from .packed import Packer
from .settings import Settings

SCHEMA_VERSION = 8
ONE_INDEX = 1  # the schema version whose chunks share the graph's index
TEXT_ONCE = 3  # from this version an entry's text may be stored in its chunks only (text_once)
PACKED = 4  # from this version chunks' stored records may be compressed with the store's dictionary (packed)
COMPACT_EDGES = 5  # from this version structural edges may be stored in compact_edges' form
COMPACT_IDS = 6  # from this version the id fields hold keys.compact's terms
BINARY_EDGES = 7  # from this version structural edges may be stored in compact_edges' binary form
BINARY_RECORDS = 8  # from this version every other record is stored in binrec's binary form
CHUNKED_ENTRIES = 8  # from this version an entry its chunks hold is searched through them, its body not indexed
MARKER = "memdock-tantivy.json"
INDEX_DIR = "index"
CHUNKS_DIR = "chunks"
ANALYZER = "memdock_en"

# Exact-match keys (ids, kinds, filter values): raw terms, no frequencies or positions.
KEYS = ("id", "kind", "entry_id", "thread_id", "source_id", "target_id", "author", "role", "etype", "unresolved")
# Searched text, one field set per kind searched, so a chunk query is a pure disjunction of term queries
# (which tantivy prunes to the top k) and entries or facts do not change chunk term statistics:
# chunks `head`/`body`, threads, entries and entities `name`/`text`, edges `fact`.
TEXTS = ("head", "body", "name", "text", "fact")
CHUNK_TEXTS = ("head", "body")
GRAPH_TEXTS = ("name", "text", "fact")


def schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for key in KEYS:
        sb.add_text_field(key, tokenizer_name="raw", index_option="basic")
    for field in TEXTS:
        sb.add_text_field(field, tokenizer_name=ANALYZER, index_option="freq")
    sb.add_float_field("ts", indexed=True, fast=True)
    sb.add_bytes_field("rec", stored=True, indexed=False)
    return sb.build()


def analyzer(stopwords: bool = False, *, stem: bool = True) -> tantivy.TextAnalyzer:
    """Words split on anything not a letter or digit, lower-cased, accents folded, English-stemmed (STEM False:
    not stemmed, for the benches that measure what the stemmer costs and buys: bench/peers.py's
    `tantivy-py-nostem`, bench/tantivy_stemmer.py)."""
    from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

    b = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(40)).filter(Filter.lowercase())
    b = b.filter(Filter.ascii_fold())
    if stopwords:
        b = b.filter(Filter.stopword("english"))
    return (b.filter(Filter.stemmer("english")) if stem else b).build()


def edge_form(version: int) -> int:
    """How a store of layout VERSION stores a structural edge's record (docs.COMPACT, docs.BINARY, 0: JSON)."""
    return docs.BINARY if version >= BINARY_EDGES else docs.COMPACT if version >= COMPACT_EDGES else 0


def index_path(data_dir: Path) -> Path:
    return data_dir / INDEX_DIR


def _check_marker(data_dir: Path) -> int:
    """The schema version of the store when it exists and is ours; 0 when there is none yet. Raises otherwise."""
    marker, folder = data_dir / MARKER, index_path(data_dir)
    if not marker.exists():
        if folder.exists() and any(folder.iterdir()):
            raise BackendError(
                f"{folder}: an index directory without {MARKER}; it was not written by the memdock "
                "tantivy adapter and was left untouched",
                details={"index": str(folder)},
            )
        return 0
    try:
        meta = json.loads(marker.read_text())
        version = int(meta["schema_version"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BackendError(
            f"{marker}: unreadable marker ({exc}); the store was left untouched", details={"marker": str(marker)}
        ) from None
    if version > SCHEMA_VERSION:
        raise VersionError(
            f"{marker}: index schema version {version} is newer than this adapter reads ({SCHEMA_VERSION}); "
            "upgrade the tantivy adapter. The store was left untouched.",
            details={"schema_version": version, "supported": SCHEMA_VERSION},
        )
    return version


def older(version: int) -> str:
    """What a store of an older layout VERSION is, and how to get this adapter's."""
    return (
        f"store layout {version}, read and written as it is; this adapter writes layout {SCHEMA_VERSION} "
        "(entries' text held once, by their chunks, compressed with a zstd dictionary; structural edges stored "
        "compactly, in binary, and every other record in binary; ids' hashes written shorter in their terms) "
        "into new stores: "
        "`memdock migrate -b tantivy --data-dir OLD "
        "--to tantivy --to-data-dir NEW` copies it into one"
    )


def _register(index: tantivy.Index) -> tantivy.Index:
    index.register_tokenizer(ANALYZER, analyzer())
    return index


def _open(folder: Path, *, create: bool, searched: tuple[str, ...] = ()) -> tantivy.Index:
    """The index at FOLDER; a new one keeps field norms of the SEARCHED fields only (store_layout)."""
    if create:
        folder.mkdir(parents=True, exist_ok=True)
        tantivy.Index(schema(), path=str(folder))
        store_layout.settle(folder, searched)
    return _register(tantivy.Index.open(str(folder)))


def open_index(data_dir: Path, *, write: bool) -> Indexes | None:
    """The store's indexes; for reads, None when nothing has been indexed yet."""
    version = _check_marker(data_dir)
    if version and not index_path(data_dir).exists():  # lost: restored from the journal (adapter.json store_files)
        if write:
            _start_afresh(data_dir)
        version = 0
    if not version and not write:
        return None
    if not write and version != ONE_INDEX and not (data_dir / CHUNKS_DIR).exists():
        return None  # its chunks index lost (adapter.json store_files): a read makes none, so the loss stays seen
    folder = index_path(data_dir)
    made = [f for f in (folder, data_dir / CHUNKS_DIR) if not f.exists()]
    try:
        return _opened(data_dir, version) if version else _created(data_dir)
    except PermissionError as exc:
        raise ConfigError(
            f"the data dir {data_dir} is not writable ({exc.strerror}); index and delete need to write there",
            details={"data_dir": str(data_dir)},
        ) from None
    except (OSError, ValueError) as exc:
        # an index this call began holds no document: it goes, else the next run would find index files and no
        # marker (or a chunks index cut short) and refuse the store
        full_ = full.as_disk_full(exc, data_dir, "creating the tantivy index")
        for f in made:
            shutil.rmtree(f, ignore_errors=True)
        (data_dir / f".{MARKER}.tmp").unlink(missing_ok=True)
        if full_ is not None:
            raise full_ from exc
        raise BackendError(f"{folder}: cannot open the tantivy index: {exc}", details={"index": str(folder)}) from None


def _start_afresh(data_dir: Path) -> None:
    """Remove what a lost store (its index folder moved aside or deleted) left: the marker and the chunks index,
    so the write that restores it from the journal makes a new store (a read meanwhile finds nothing indexed)."""
    shutil.rmtree(data_dir / CHUNKS_DIR, ignore_errors=True)
    (data_dir / MARKER).unlink(missing_ok=True)


def _opened(data_dir: Path, version: int) -> Indexes:
    """The indexes of a store of layout VERSION (a chunks index of its own begun when there is none yet)."""
    graph = _open(index_path(data_dir), create=False)
    packer = Packer(data_dir, version >= PACKED, data_dir / MARKER)
    if version == ONE_INDEX:
        return Indexes(graph, graph, version, packer, data_dir)
    chunks = data_dir / CHUNKS_DIR
    return Indexes(graph, _open(chunks, create=not chunks.exists(), searched=CHUNK_TEXTS), version, packer, data_dir)


def _created(data_dir: Path) -> Indexes:
    """A new store of this adapter's layout: its indexes, then its marker."""
    graph = _open(index_path(data_dir), create=True, searched=GRAPH_TEXTS)
    chunks_index = _open(data_dir / CHUNKS_DIR, create=True, searched=CHUNK_TEXTS)
    indexes = Indexes(graph, chunks_index, SCHEMA_VERSION, Packer(data_dir, True, data_dir / MARKER), data_dir)
    tmp = data_dir / f".{MARKER}.tmp"
    tmp.write_text(json.dumps({"format": "memdock-tantivy", "schema_version": SCHEMA_VERSION}))
    os.replace(tmp, data_dir / MARKER)
    return indexes


def generation(data_dir: str) -> tuple[tuple[int, int] | None, ...]:
    """Identifies the last commits: tantivy replaces meta.json (a new inode) at every commit."""
    out: list[tuple[int, int] | None] = []
    for folder in (INDEX_DIR, CHUNKS_DIR):
        try:
            st = os.stat(os.path.join(data_dir, folder, "meta.json"))
            out.append((st.st_ino, st.st_mtime_ns))
        except FileNotFoundError:
            out.append(None)
    return tuple(out)


def writer(index: tantivy.Index, settings: Settings, folder: Path) -> tantivy.IndexWriter:
    try:
        return index.writer(settings.writer_heap_mb * 1_000_000, settings.writer_threads)
    except ValueError as exc:
        full_ = full.as_disk_full(exc, folder, "starting the tantivy index writer")
        if full_ is not None:
            raise full_ from exc
        raise ConfigError(f"cannot start the tantivy index writer: {exc}") from None


class Indexes:
    """The graph's index and the chunks' (the same object in a version 1 store), the store's VERSION, the
    PACKER of its chunks' stored records, and the DATA_DIR holding them."""

    def __init__(self, graph: tantivy.Index, chunks: tantivy.Index, version: int, packer: Packer, data_dir: Path):
        self.graph, self.chunks, self.version, self.packer = graph, chunks, version, packer
        self.all = [graph] if chunks is graph else [graph, chunks]
        self.folders = [index_path(data_dir)] if chunks is graph else [index_path(data_dir), data_dir / CHUNKS_DIR]
        self.data_dir = data_dir
        self.schema = graph.schema
        self.keys = keys.Keys(self.schema, compact=version >= COMPACT_IDS, records=version >= BINARY_RECORDS)

    def of(self, kind: str | None) -> tantivy.Index:
        return self.chunks if kind == "chunk" else self.graph

    def reload(self) -> None:
        for index in self.all:
            index.reload()


class Writers:
    """A writer per index; records go to their kind's. Commits run graph first, then chunks: a crash between the
    two leaves records that were never checkpointed, which the re-run sends again and upserts.

    A full disk while they write is memdock's disk_full error (full.py), naming the index whose commit failed
    (the data dir when an indexing thread's write did), raised by `rollback(cause)` once the writers dropped what
    they had and the files they wrote for it."""

    def __init__(self, indexes: Indexes, settings: Settings):
        self.graph = writer(indexes.graph, settings, indexes.folders[0])
        self.chunks = writer(indexes.chunks, settings, indexes.folders[-1]) if len(indexes.all) > 1 else self.graph
        self.all = [self.graph] if self.chunks is self.graph else [self.graph, self.chunks]
        self.folders, self.data_dir = indexes.folders, indexes.data_dir
        self._committing: Path | None = None  # the index whose commit is under way
        self._half = False  # the graph's commit went through, the chunks' is under way

    def of(self, kind: str | None) -> tantivy.IndexWriter:
        return self.chunks if kind == "chunk" else self.graph

    def commit(self) -> None:
        self._half = False
        for w, folder in zip(self.all, self.folders):
            self._committing = folder
            w.commit()
            self._half = w is not self.all[-1]  # the graph's done, the chunks' not yet
        self._committing, self._half = None, False

    def rollback(
        self, cause: BaseException | None = None, undo: Callable[[tantivy.IndexWriter], bool] | None = None
    ) -> None:
        """Drop what was added since the last commit, and the files tantivy wrote for it: a segment cut short by a
        full disk stays there otherwise, taking the space. When the graph's commit went through and the chunks'
        failed, UNDO (given) takes the graph's back, in a commit of its own (small: deletes) when it says it deleted
        some. CAUSE, the error that ended the writing, is raised as disk_full when it was a full disk (known before
        those files go, as they are what fills the device)."""
        where = self._committing or self.data_dir
        full_ = full.as_disk_full(cause, where, "writing the tantivy index") if cause is not None else None
        half, self._committing, self._half = self._half, None, False
        for w in self.all:
            w.rollback()
            with contextlib.suppress(ValueError):  # the files stay for the next writer's collection
                w.garbage_collect_files()
        if half and undo is not None:
            with contextlib.suppress(ValueError):  # it failed too: the re-run upserts them, as after a kill -9
                if undo(self.graph):
                    self.graph.commit()
        if full_ is not None:
            raise full_ from cause

    def wait(self) -> None:
        for w in self.all:
            w.wait_merging_threads()
