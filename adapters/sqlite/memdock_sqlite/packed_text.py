"""Text stored compressed where that pays: chunk bodies (schema 5 to 7, one by one; schema 8 packs them in blocks,
text_blocks.py, and these are read as they were), nodes' attrs (schema 6); content hashes kept only where they are
not the hash of the chunk's own text (schema 7).

A value is stored as TEXT when zlib would not make it smaller, else as a BLOB of its UTF-8 bytes, zlib-compressed;
the column's type says which. Every connection the adapter opens registers `unpack` (db._connect), and every
reader reads the `chunks` and `nodes` views, which unpack: the very text that was given. Chunks' attrs stay text:
a metadata filter reads every chunk's (filters.py), and would unpack them all.
On the 20k short notes of bench/peers.py the bodies take 0.61 of their size; compressing costs about 30 µs a body.

Attrs are short JSON objects that repeat their keys and most of their values (the source, the import's time, the
metadata's keys) from one record to the next, so zlib alone barely shrinks them. They are compressed with a
preset dictionary (zlib's zdict): the attrs of the first batch of each record type a store receives, at most
DICT_BYTES, kept in `meta` under the dictionary's Adler-32 (`zdict:<8 hex digits>`), which zlib writes in every
stream that needs it. A dictionary is never changed once stored, so `unpack` finds it by that id, on any
connection, in any later run.

Schema 12 packs a node's attrs against its kind's dictionary followed by the node's own id (ATTRS_TAG, then raw
deflate: no zlib header, dictionary id or checksum), since attrs often repeat their record's id (an importer's
`metadata.source_id`): an entry's attrs take 16.5 bytes on the 20k notes of bench/peers.py where they took 38.3.
The `nodes` view reads them with `unpack(attrs, id, kind)`; values packed before are read as they were.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import zlib
from collections.abc import Callable, Sequence

LEVEL = 6
_MIN = 64  # shorter bodies almost never shrink by more than the zlib header and checksum
ATTRS_MIN = 24  # with a dictionary, short attrs shrink too
DICT_BYTES = 1024  # a longer dictionary shrinks attrs little more and costs more a record to set
BODY_DICT_BYTES = 8192  # schema 5 to 7's bodies' (bench/sqlite_ingest.py --blocks packs them so again)
DICT_SAMPLES = 8  # a first batch with fewer records makes no dictionary (the next one may)
ATTRS_TAG = 0x01  # a node's attrs packed with its kind's dictionary and its id; never a zlib stream's first byte
_ATTRS_WINDOW = 11  # 2 KiB: the dictionary and the id
_FDICT = 0x20  # zlib header: a preset dictionary is needed, its Adler-32 follows the two header bytes
_SHA256 = re.compile(r"sha256:[0-9a-f]{64}")

Dictionary = Callable[[int], bytes]


def pack(text: str, zdict: bytes | None = None, minimum: int = _MIN, window: int = 14, memory: int = 5) -> str | bytes:
    """TEXT as stored: as it is, or its UTF-8 zlib-compressed (with ZDICT, when given) when that is smaller.
    WINDOW and MEMORY are zlib's wbits and memLevel: what a compressor allocates and clears, most of its cost on
    short texts; a 16 KiB window (2 KiB for attrs, whose dictionary is 1 KiB) packs them as small as the default
    32 KiB does."""
    return packer(zdict, minimum, window, memory)(text)


def packer(
    zdict: bytes | None = None, minimum: int = _MIN, window: int = 14, memory: int = 5
) -> Callable[[str], str | bytes]:
    """`pack` with these settings, for many texts: the compressor is set up (and primed with ZDICT) once, and
    each text is compressed by a copy of it, the very bytes a compressor of its own writes. Setting an 8 KiB
    dictionary cost more than compressing a short body."""
    primed = zlib.compressobj(
        LEVEL, zlib.DEFLATED, window, memory, zlib.Z_DEFAULT_STRATEGY, *([zdict] if zdict else [])
    )

    def one(text: str) -> str | bytes:
        raw = _packable(text, minimum)
        if raw is None:
            return text
        z = primed.copy()
        packed = z.compress(raw) + z.flush()
        return packed if len(packed) < len(raw) else text

    return one


def _packable(text: str, minimum: int) -> bytes | None:
    """TEXT's UTF-8 when it is worth compressing (MINIMUM characters or more), else None (stored as it is; text
    that cannot be encoded is left to SQLite, which refuses it as it refused it before)."""
    if len(text) < minimum:
        return None
    try:
        return text.encode()
    except UnicodeEncodeError:
        return None


def unpack(value: str | bytes | None, dictionary: Dictionary | None = None) -> str | None:
    """The text a stored value holds (DICTIONARY: a preset dictionary by its Adler-32)."""
    if value is None or isinstance(value, str):
        return value
    if value[:1] == bytes([ATTRS_TAG]):
        raise ValueError("these attrs were packed with their node's id and kind: read through unpack(attrs, id, kind)")
    if len(value) > 6 and value[1] & _FDICT:
        if dictionary is None:
            raise ValueError("this value was packed with a dictionary, and none was given")
        z = zlib.decompressobj(zdict=dictionary(int.from_bytes(value[2:6], "big")))
        return (z.decompress(value) + z.flush()).decode()
    return zlib.decompress(value).decode()


def _id_bytes(node_id: str) -> bytes:
    return node_id.encode("utf-8", "surrogatepass")


def attrs_packer(zdict: bytes) -> Callable[[str, str], str | bytes]:
    """A node's attrs (and its id) as stored: ATTRS_TAG and the raw deflate of its UTF-8 with ZDICT and the id as
    the preset dictionary, when that is smaller than the text; else the text as it is."""

    def one(attrs: str, node_id: str) -> str | bytes:
        raw = _packable(attrs, ATTRS_MIN)
        if raw is None:
            return attrs
        primed = zdict + _id_bytes(node_id)
        z = zlib.compressobj(LEVEL, zlib.DEFLATED, -_ATTRS_WINDOW, 2, zlib.Z_DEFAULT_STRATEGY, primed)
        packed = bytes([ATTRS_TAG]) + z.compress(raw) + z.flush()
        return packed if len(packed) < len(raw) else attrs

    return one


def unpack_attrs(value: str | bytes | None, node_id: str, kind: str, dictionaries: Dictionaries) -> str | None:
    """The attrs a node's stored value holds: packed by `attrs_packer` with its kind's dictionary and its id, or
    as `unpack` reads them (schema 11 and before)."""
    if isinstance(value, bytes) and value[:1] == bytes([ATTRS_TAG]):
        z = zlib.decompressobj(-_ATTRS_WINDOW, zdict=dictionaries.of_kind(kind) + _id_bytes(node_id))
        return (z.decompress(value[1:]) + z.flush()).decode()
    return unpack(value, dictionaries)


def chunk_text(header: str, body: str) -> str:
    """A chunk's text from its header and body as stored (ingest.chunk_body split it so)."""
    return f"{header}\n{body}" if header else body


def text_digest(header: str | None, body: str | None) -> bytes | None:
    """The sha256 of the chunk text HEADER and BODY make (None when either is missing)."""
    if header is None or body is None:
        return None
    return hashlib.sha256(chunk_text(header, body).encode("utf-8", "surrogatepass")).digest()


DERIVED_HASH = b""  # stored for a content hash that is the sha256 of the chunk's own text: rebuilt when read


def pack_hash(value: str | None, header: str = "", body: str | None = None) -> str | bytes | None:
    """A `sha256:<hex>` content hash as stored: DERIVED_HASH when it is the hash of the chunk text HEADER and BODY
    make, else its 32 bytes (the `chunks` view spells either out again); any other value as it is."""
    if value is None:
        return None
    if _spells_digest(value, header, body):
        return DERIVED_HASH
    return bytes.fromhex(value[7:]) if _SHA256.fullmatch(value) else value


def _spells_digest(value: str, header: str | None, body: str | None) -> bool:
    """Whether VALUE is `sha256:` and the hexdigest of the chunk text HEADER and BODY make: lower-case hex, as
    _SHA256 asks, so a match spares the pattern and decoding the hash."""
    if not value.startswith("sha256:"):
        return False
    digest = text_digest(header, body)
    return digest is not None and digest.hex() == value[7:]


# The `chunks` view's content_hash: what pack_hash was given ({header}, {body}: the SQL of the chunk's header and
# body, db.HEADER and db.BODY).
HASH_SQL = (
    "CASE WHEN typeof(content_hash) <> 'blob' THEN content_hash "
    "WHEN length(content_hash) = 0 THEN 'sha256:' || lower(hex(text_digest({header}, {body}))) "
    "ELSE 'sha256:' || lower(hex(content_hash)) END"
)


class Dictionaries:
    """The preset dictionaries of one database, read from its `meta` table as they are needed."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.known: dict[int, bytes] = {}
        self.kinds: dict[str, bytes] = {}  # record type: its dictionary (`of_kind`)

    def __call__(self, dict_id: int) -> bytes:
        if dict_id not in self.known:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (f"zdict:{dict_id:08x}",)).fetchone()
            if row is None:
                raise ValueError(f"a value was packed with dictionary {dict_id:08x}, which this database lacks")
            self.known[dict_id] = bytes(row[0])
        return self.known[dict_id]

    def of_kind(self, kind: str) -> bytes:
        """The dictionary of record type KIND (the one its attrs were packed with: never changed once stored)."""
        if kind not in self.kinds:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (f"zdict-of:{kind}",)).fetchone()
            if row is None:
                raise ValueError(f"attrs of a {kind!r} were packed with a dictionary, and this database has none")
            self.kinds[kind] = self(int(row[0], 16))
        return self.kinds[kind]

    def for_kind(self, kind: str, samples: Sequence[str], size: int = DICT_BYTES) -> bytes | None:
        """The dictionary of record type KIND; made from SAMPLES (inside the caller's transaction) if it has none
        yet and they are enough. None: no dictionary."""
        key = f"zdict-of:{kind}"
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return self(int(row[0], 16))
        if len(samples) < DICT_SAMPLES or sum(map(len, samples)) < size:
            return None
        tail, got = [], 0
        for sample in reversed(samples):  # the last samples, SIZE of them: zlib looks nearest first
            tail.append(sample)
            got += len(sample)
            if got >= size:
                break
        zdict = "".join(reversed(tail)).encode(errors="replace")[-size:]
        dict_id = zlib.adler32(zdict)
        stored = self.conn.execute("SELECT value FROM meta WHERE key = ?", (f"zdict:{dict_id:08x}",)).fetchone()
        if stored is not None and bytes(stored[0]) != zdict:
            return None  # another dictionary has this Adler-32: an id must name one dictionary
        self.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (f"zdict:{dict_id:08x}", zdict))
        self.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (key, f"{dict_id:08x}"))
        self.known[dict_id] = zdict
        return zdict

    def pack_attrs(self, kind: str, attrs: list[str], ids: list[str]) -> list[str | bytes]:
        """ATTRS of records of type KIND, whose ids are IDS, as stored."""
        zdict = self.for_kind(kind, attrs)
        return list(attrs) if zdict is None else list(map(attrs_packer(zdict), attrs, ids))


def register(conn: sqlite3.Connection) -> None:
    dictionaries = Dictionaries(conn)
    conn.create_function("unpack", 1, lambda value: unpack(value, dictionaries), deterministic=True)
    conn.create_function(
        "unpack", 3, lambda value, i, kind: unpack_attrs(value, i, kind, dictionaries), deterministic=True
    )
    conn.create_function("unpack_forget", 0, dictionaries.kinds.clear)
    conn.create_function("pack", 1, packer(), deterministic=True)
    conn.create_function("text_digest", 2, text_digest, deterministic=True)


def forget_kinds(conn: sqlite3.Connection) -> None:
    """Forget which dictionary each record type has (at a writer's transaction boundaries: one a rolled-back run
    made is not one a later run's attrs are packed with)."""
    conn.execute("SELECT unpack_forget()")
