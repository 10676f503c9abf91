"""The index on disk: its schema, its analyzer, and opening it safely.

The store is `<data dir>/index/` (tantivy's own files) plus `<data dir>/memdock-tantivy.json`, a marker naming
the schema version. A directory with index files but no marker, or with a marker from a newer adapter, is
refused and left as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import tantivy

from memdock.errors import BackendError, ConfigError, VersionError

SCHEMA_VERSION = 1
MARKER = "memdock-tantivy.json"
INDEX_DIR = "index"
ANALYZER = "memdock_en"

# Exact-match keys (ids, kinds, filter values): raw terms, no frequencies or positions.
KEYS = ("id", "kind", "entry_id", "thread_id", "source_id", "target_id", "author", "role", "etype", "unresolved")
# Searched text, one field set per kind searched, so a chunk query is a pure disjunction of term queries
# (which tantivy prunes to the top k) and entries or facts do not change chunk term statistics:
# chunks `head`/`body`, threads, entries and entities `name`/`text`, edges `fact`.
TEXTS = ("head", "body", "name", "text", "fact")


def schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for key in KEYS:
        sb.add_text_field(key, tokenizer_name="raw", index_option="basic")
    for field in TEXTS:
        sb.add_text_field(field, tokenizer_name=ANALYZER, index_option="freq")
    sb.add_float_field("ts", indexed=True, fast=True)
    sb.add_bytes_field("rec", stored=True, indexed=False)
    return sb.build()


def analyzer(stopwords: bool = False) -> tantivy.TextAnalyzer:
    """Words split on anything not a letter or digit, lower-cased, accents folded, English-stemmed."""
    from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

    b = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(40)).filter(Filter.lowercase())
    b = b.filter(Filter.ascii_fold())
    if stopwords:
        b = b.filter(Filter.stopword("english"))
    return b.filter(Filter.stemmer("english")).build()


def index_path(data_dir: Path) -> Path:
    return data_dir / INDEX_DIR


def _check_marker(data_dir: Path) -> bool:
    """True when the store exists and is ours; False when there is none yet. Raises for anything else."""
    marker, folder = data_dir / MARKER, index_path(data_dir)
    if not marker.exists():
        if folder.exists() and any(folder.iterdir()):
            raise BackendError(
                f"{folder}: an index directory without {MARKER}; it was not written by the memdock "
                "tantivy adapter and was left untouched",
                details={"index": str(folder)},
            )
        return False
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
    return True


def _register(index: tantivy.Index) -> tantivy.Index:
    index.register_tokenizer(ANALYZER, analyzer())
    return index


def open_index(data_dir: Path, *, write: bool) -> tantivy.Index | None:
    """The store's index; for reads, None when nothing has been indexed yet."""
    exists = _check_marker(data_dir)
    folder = index_path(data_dir)
    try:
        if exists:
            return _register(tantivy.Index.open(str(folder)))
        if not write:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        index = _register(tantivy.Index(schema(), path=str(folder)))
    except PermissionError as exc:
        raise ConfigError(
            f"the data dir {data_dir} is not writable ({exc.strerror}); index and delete need to write there",
            details={"data_dir": str(data_dir)},
        ) from None
    except (OSError, ValueError) as exc:
        raise BackendError(f"{folder}: cannot open the tantivy index: {exc}", details={"index": str(folder)}) from None
    tmp = data_dir / f".{MARKER}.tmp"
    tmp.write_text(json.dumps({"format": "memdock-tantivy", "schema_version": SCHEMA_VERSION}))
    os.replace(tmp, data_dir / MARKER)
    return index


def generation(data_dir: str) -> tuple[int, int] | None:
    """Identifies the last commit: tantivy replaces meta.json (a new inode) at every commit."""
    try:
        st = os.stat(os.path.join(data_dir, INDEX_DIR, "meta.json"))
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def writer(index: tantivy.Index, config: dict) -> tantivy.IndexWriter:
    heap = int(config.get("writer_heap_mb", 128)) * 1_000_000
    threads = int(config.get("writer_threads", 0))
    try:
        return index.writer(heap, threads)
    except ValueError as exc:
        raise ConfigError(f"cannot start the tantivy index writer: {exc}") from None
