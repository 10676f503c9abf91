"""The compact ledger (version 4): record ids keyed as short BLOBs that give the id back exactly, 8 bytes of
hash, a ledger of a newer memdock refused; and after `forget` the text is in no file of the store, raw or
decompressed."""

import gzip
import sqlite3

import orjson
import pytest

from memdock import Memory
from memdock.cli.main import main
from memdock.engine.ledger import HASH_BYTES, Ledger, record_hash, short
from memdock.engine.ledger_keys import Keys, decode, encode
from memdock.engine.ledger_migrate import VERSION
from memdock.errors import BackendError

IDS = [
    "chunk:8ea079809fb43c15",
    "edge:contains:e0bee6233f35cee7",
    "thread:notes-0000:58ed6a27",
    "entity:person:" + "ab" * 32,
    "entry:ABCDEF12",  # uppercase: kept as text
    "entry:abc",  # odd length
    "entry:",  # nothing after the colon
    "plain-id-without-colon",
    "note:café:00ff",
    "x:" + "0" * 66,  # longer than a digest
    "",
]


def test_every_id_gets_its_key_and_back_and_digest_ids_are_short():
    numbers: dict[str, int] = {}

    def number(prefix: str) -> int:
        return numbers.setdefault(prefix, 200 + len(numbers))  # past 127: two-byte prefix numbers too

    keys = [encode(i, number) for i in IDS]
    names = {n: p for p, n in numbers.items()}
    assert [decode(k, names.__getitem__) for k in keys] == IDS
    assert len(set(keys)) == len(IDS)
    assert len(keys[0]) == 2 + 8 and len(keys[1]) == 2 + 8
    assert keys[4] == b"\x00" + IDS[4].encode() and keys[7] == b"\x00" + IDS[7].encode()
    cached = Keys(lambda prefix, create: numbers.get(prefix, -1))
    assert [cached.key(i, create=False) for i in IDS + IDS] == keys + keys  # a known prefix's fast path agrees


def test_an_id_whose_prefix_was_never_written_is_not_found():
    assert encode("chunk:8ea079809fb43c15", lambda _: -1) == b"\x00chunk:8ea079809fb43c15"


def items(ids: list[str], salt: str = "") -> list[tuple[str, bytes, str, str]]:
    return [(i, record_hash({"id": i, "salt": salt}), "thread:t:00aa", "chunk") for i in ids]


def test_a_run_diffs_commits_and_prunes_by_id_for_every_kind_of_id(tmp_path):
    ids = [i for i in IDS if i]
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.begin_run("a")
    assert ledger.changed(items(ids)) == [True] * len(ids)
    ledger.add_pending(items(ids))
    assert all(ledger.is_pending(i) for i in ids)
    assert ledger.commit(ids) == len(ids)
    ledger.finish_run()
    assert sorted(r[0] for r in ledger.records()) == sorted(ids)
    assert ledger.hashes(ids) == {i: short(h) for i, h, _, _ in items(ids)}
    assert {len(h) for h in ledger.hashes(ids).values()} == {HASH_BYTES}

    ledger.begin_run("a")
    kept = ids[::2]
    assert ledger.changed(items(kept)) == [False] * len(kept)
    assert ledger.changed(items(kept[:1], salt="new")) == [True]
    assert ledger.vanished(["thread:t:00aa"]) == sorted(set(ids) - set(kept))
    ledger.forget(ids[1:3])
    assert ledger.count() == len(ids) - 2
    assert ledger.links() == {(i, "a") for i in ids if i not in ids[1:3]}
    ledger.close()


def test_a_ledger_from_a_newer_memdock_is_refused_naming_both_versions(tmp_path):
    path = tmp_path / "ledger.sqlite"
    Ledger(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version={VERSION + 1}")
    for opening in (Ledger, Ledger.reader):
        with pytest.raises(BackendError) as err:
            opening(path)
        assert f"version {VERSION + 1}" in str(err.value) and f"up to {VERSION}" in str(err.value)
        assert str(path) in str(err.value)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION + 1, "the newer ledger was left as it was"


CANARY = "zq-canary-journal-4417-marigold"


def test_forget_leaves_the_text_in_no_file_of_the_store_raw_or_decompressed(tmp_path):
    """A big `add` (its journal parts compressed as written), one note forgotten: no file under the store holds
    the text, read as raw bytes or decompressed; the other notes stay in the journal, compressed."""
    source = tmp_path / "notes.jsonl"
    lines = [
        {
            "id": f"n{i}",
            "thread": f"t{i % 7}",
            "text": f"note {i} on the harbour crane schedule, lot {i * 7919 % 10007}",
        }
        for i in range(3000)
    ]
    lines[1234]["text"] = f"the vault code is {CANARY}"
    source.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    store = tmp_path / "store"
    assert main(["add", str(source), "-f", "jsonl", "-b", "sqlite", "--data-dir", str(store), "-q"]) == 0
    with Memory("sqlite", data_dir=store) as memory:
        [hit] = memory.recall(CANARY).hits
        entry = (hit.provenance or {}).get("entry_id") or hit.id
        assert entry in memory.forget([entry]).deleted
    parts = list((store / "journal").rglob("*.gz"))
    assert parts, "the journal's parts are compressed"
    for p in store.rglob("*"):
        if not p.is_file() or p.is_symlink():
            continue
        raw = p.read_bytes()
        assert CANARY.encode() not in raw, p
        if p.suffix == ".gz":
            text = gzip.decompress(raw)
            assert CANARY.encode() not in text, p
            assert text.count(b"harbour crane") > 0 or "entry" not in p.name
    with Memory("sqlite", data_dir=store) as memory:
        assert len(memory.recall("harbour crane schedule lot", limit=5).hits) == 5


def write_v3(path) -> None:
    """A small ledger as version 3 wrote it: ids as text, 16-byte hashes."""
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE names (n INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL);"
            "CREATE UNIQUE INDEX names_name ON names(kind, name);"
            "INSERT INTO names VALUES (1, 1, 'thread:t:00aa'), (2, 2, 'chunk'), (3, 3, 'a'), (4, 3, 'b');"
            "CREATE TABLE committed (id TEXT PRIMARY KEY, hash BLOB NOT NULL, thread INTEGER, type INTEGER NOT NULL,"
            " origin INTEGER) WITHOUT ROWID;"
            "CREATE INDEX committed_thread ON committed(thread) WHERE thread IS NOT NULL;"
            "CREATE TABLE also (id TEXT NOT NULL, origin INTEGER NOT NULL, PRIMARY KEY (id, origin)) WITHOUT ROWID;"
        )
        for n, rid in enumerate(i for i in IDS if i):
            db.execute("INSERT INTO committed VALUES (?, ?, 1, 2, 3)", (rid, bytes([n]) * 16))
        db.execute("INSERT INTO also VALUES (?, 4)", (IDS[0],))
        db.execute("PRAGMA user_version=3")


def test_a_version_3_ledger_migrates_and_a_migration_killed_midway_leaves_it_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "ledger.sqlite"
    write_v3(path)
    before = path.read_bytes()
    calls = []

    def dies(self, rid, *, create=True):
        calls.append(rid)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(self, rid, create=create)

    real = Ledger._key
    monkeypatch.setattr(Ledger, "_key", dies)
    with pytest.raises(KeyboardInterrupt):
        Ledger(path)
    monkeypatch.setattr(Ledger, "_key", real)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
        assert db.execute("SELECT count(*) FROM committed WHERE id IS NOT NULL").fetchone()[0] == len(IDS) - 1
    assert len(path.read_bytes()) == len(before)

    ledger = Ledger(path)
    ids = [i for i in IDS if i]
    assert sorted(ledger.records()) == sorted(
        (rid, bytes([n]) * HASH_BYTES, "thread:t:00aa", "chunk") for n, rid in enumerate(ids)
    )
    assert ledger.links() == {(i, "a") for i in ids} | {(IDS[0], "b")}
    ledger.close()


def test_a_version_4_ledger_reads_as_it_is_and_loses_its_thread_index_at_the_first_write(tmp_path):
    """Version 5 is version 4 without the index of `committed` by thread: a reader (a snapshot, a backup) reads a
    version 4 ledger as it is; the first writable open drops the index and the file shrinks, every row kept."""
    path = tmp_path / "ledger.sqlite"
    ids = [f"chunk:{n:016x}" for n in range(3000)]
    ledger = Ledger(path)
    ledger.begin_run("a")
    rows = [(i, record_hash({"id": i}), f"thread:t{n % 7}:00aa", "chunk") for n, i in enumerate(ids)]
    ledger.add_pending(rows)
    ledger.commit(ids)
    ledger.finish_run()
    ledger.close()
    with sqlite3.connect(path) as db:
        db.execute("CREATE INDEX committed_thread ON committed(thread) WHERE thread IS NOT NULL")
        db.execute("PRAGMA user_version=4")
    db.close()
    v4 = path.stat().st_size

    reader = Ledger.reader(path)
    assert reader.count() == len(ids) and reader.threads() == {}
    assert sorted(r[0] for r in reader.records()) == ids
    reader.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 4, "a reader changes nothing"
    db.close()

    ledger = Ledger(path)
    assert sorted(ledger.records()) == sorted((i, short(h), t, "chunk") for i, h, t, _ in rows)
    ledger.begin_run("a")
    ledger.changed(rows[7:])
    assert ledger.vanished(["thread:t0:00aa"]) == [ids[0]]
    ledger.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION == 5
        assert (
            db.execute("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'committed'").fetchone()[
                0
            ]
            == 0
        )
    db.close()
    assert path.stat().st_size < v4
