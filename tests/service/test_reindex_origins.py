"""A record is only ever deleted by the source that wrote it: re-indexing a bundle (through the CLI, on the real
sqlite adapter) never removes what `remember` or another bundle added to the same thread."""

import re
import sqlite3
from pathlib import Path

import orjson
import pytest

from memdock import Memory
from memdock.bundle import BundleReader
from memdock.cli.main import main
from memdock.engine.ledger import LEGACY, Ledger
from memdock.engine.ledger_migrate import VERSION

LINES = [
    {"id": "a1", "thread": "standup", "author": "ana", "text": "the apricot orchard needs pruning in march"},
    {"id": "a2", "thread": "standup", "author": "bo", "text": "the walrus migration study finished early"},
]


def write_jsonl(folder: Path, lines: list[dict]) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "log.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return folder


def import_(src: Path, out: Path) -> Path:
    assert main(["import", str(src), "-f", "jsonl", "-o", str(out), "--force", "-q"]) == 0
    return out


def index(bundle: Path, store: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["index", str(bundle), "-b", "sqlite", "--data-dir", str(store), "-q"]) == 0
    return capsys.readouterr().out


def links(ledger_path: Path) -> set[tuple[str, str]]:
    """Every (record id, origin) link the ledger holds."""
    ledger = Ledger.reader(ledger_path)
    try:
        return ledger.links()
    finally:
        ledger.close()


def records(ledger_path: Path) -> list[tuple]:
    """The ledger's committed rows: (id, kept hash as hex, thread id, record type)."""
    ledger = Ledger.reader(ledger_path)
    try:
        return sorted((i, h.hex(), t, r) for i, h, t, r in ledger.records())
    finally:
        ledger.close()


def downgrade(ledger_path: Path, version: int) -> list[tuple]:
    """Rewrite the ledger as an older memdock wrote it (0: no origins; 1: committed a rowid table, seen in the
    file; 2: committed WITHOUT ROWID, origins as text; 3: ids as text, a 16-byte hash, numbered names); returns
    its committed rows (hash as hex) as the current version keeps them; 4: today's rows with an index by thread)."""
    rows = records(ledger_path)
    held = links(ledger_path)
    if version == 4:
        with sqlite3.connect(ledger_path) as db:
            db.execute("CREATE INDEX committed_thread ON committed(thread) WHERE thread IS NOT NULL")
            db.execute("PRAGMA user_version=4")
        return rows
    ledger_path.unlink()
    for extra in ledger_path.parent.glob(ledger_path.name + "-*"):
        extra.unlink()
    if version == 3:
        _write_v3(ledger_path, rows, held)
        return rows
    rowid = "" if version < 2 else " WITHOUT ROWID"
    with sqlite3.connect(ledger_path) as db:
        db.execute(
            "CREATE TABLE committed (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT, "
            "record_type TEXT NOT NULL)" + rowid
        )
        db.execute("CREATE INDEX committed_thread ON committed(thread_id)")
        db.execute("CREATE TABLE pending (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT, record_type TEXT)")
        db.executemany("INSERT INTO committed VALUES (?,?,?,?)", rows)
        if version >= 1:
            db.execute("CREATE TABLE origins (id TEXT NOT NULL, origin TEXT NOT NULL, PRIMARY KEY (id, origin))")
            db.executemany("INSERT INTO origins VALUES (?,?)", sorted(held))
        if version == 1:
            db.execute("CREATE TABLE seen (id TEXT PRIMARY KEY)")
            db.execute("INSERT INTO seen SELECT id FROM committed")
        db.execute(f"PRAGMA user_version={version}")
    return rows


def _write_v3(ledger_path: Path, rows: list[tuple], held: set[tuple[str, str]]) -> None:
    """Version 3's layout: one row per record keyed by its id's text, the hash 16 bytes (8 more than kept now)."""
    with sqlite3.connect(ledger_path) as db:
        db.executescript(
            "CREATE TABLE names (n INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL);"
            "CREATE UNIQUE INDEX names_name ON names(kind, name);"
            "CREATE TABLE committed (id TEXT PRIMARY KEY, hash BLOB NOT NULL, thread INTEGER, type INTEGER NOT NULL,"
            " origin INTEGER) WITHOUT ROWID;"
            "CREATE INDEX committed_thread ON committed(thread) WHERE thread IS NOT NULL;"
            "CREATE TABLE also (id TEXT NOT NULL, origin INTEGER NOT NULL, PRIMARY KEY (id, origin)) WITHOUT ROWID;"
            "CREATE TABLE forgetting (id TEXT PRIMARY KEY) WITHOUT ROWID;"
        )
        names: dict[tuple[int, str], int] = {}

        def n(kind: int, name: str | None) -> int | None:
            if name is None:
                return None
            if (kind, name) not in names:
                names[kind, name] = db.execute(
                    "INSERT INTO names(kind, name) VALUES (?, ?) RETURNING n", (kind, name)
                ).fetchone()[0]
            return names[kind, name]

        origin: dict[str, str] = {}
        for rid, o in sorted(held):
            origin.setdefault(rid, o)
        for rid, h, thread, rtype in rows:
            db.execute(
                "INSERT INTO committed VALUES (?,?,?,?,?)",
                (rid, bytes.fromhex(h) + bytes(8), n(1, thread), n(2, rtype), n(3, origin.get(rid))),
            )
        for rid, o in sorted(held):
            if o != origin[rid]:
                db.execute("INSERT INTO also VALUES (?,?)", (rid, n(3, o)))
        db.execute("PRAGMA user_version=3")


def deleted(summary: str) -> int:
    return int(re.search(r"deleted (\d+)", summary).group(1))


def thread_of(corpus: Path) -> str:
    [t] = list(BundleReader(corpus).records("thread"))
    return t["id"]


def texts(store: Path, query: str) -> list[str]:
    with Memory("sqlite", data_dir=store) as m:
        result = m.recall(query)
    assert not result.degraded, result.reason
    return [h.text for h in result.hits]


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store"


def test_reindex_keeps_what_remember_added_to_the_bundles_thread(tmp_path, store, capsys):
    src = write_jsonl(tmp_path / "src", LINES)
    corpus = import_(src, tmp_path / "corpus")
    index(corpus, store, capsys)
    with Memory("sqlite", data_dir=store) as m:
        note = m.remember("the quokka census moves to thursday", thread=thread_of(corpus), author="cy")
    assert not note.degraded, note.reason
    again = index(corpus, store, capsys)
    assert deleted(again) == 0, again
    assert any("quokka census" in t for t in texts(store, "quokka census"))

    write_jsonl(src, LINES[:1])
    import_(src, corpus)
    edited = index(corpus, store, capsys)
    assert deleted(edited) > 0, edited
    assert texts(store, "walrus migration") == []
    assert any("quokka census" in t for t in texts(store, "quokka census"))
    assert any("apricot orchard" in t for t in texts(store, "apricot orchard"))


def test_two_bundles_sharing_a_thread_do_not_delete_each_others_records(tmp_path, store, capsys):
    a = write_jsonl(tmp_path / "a", LINES)
    b = write_jsonl(
        tmp_path / "b", [{"id": "b1", "thread": "standup", "author": "cy", "text": "the lighthouse lens was polished"}]
    )
    ca, cb = import_(a, tmp_path / "ca"), import_(b, tmp_path / "cb")
    assert thread_of(ca) == thread_of(cb)
    index(ca, store, capsys)
    index(cb, store, capsys)
    assert deleted(index(ca, store, capsys)) == 0
    assert deleted(index(cb, store, capsys)) == 0
    assert any("lighthouse lens" in t for t in texts(store, "lighthouse lens"))
    assert any("walrus migration" in t for t in texts(store, "walrus migration"))

    write_jsonl(a, LINES[:1])
    import_(a, ca)
    assert deleted(index(ca, store, capsys)) > 0
    assert texts(store, "walrus migration") == []
    assert any("lighthouse lens" in t for t in texts(store, "lighthouse lens"))


def test_the_same_sources_imported_elsewhere_are_the_same_source(tmp_path, store, capsys):
    """The source identity follows the imported files, not the bundle's folder (nor the CLI's temp chunks)."""
    src = write_jsonl(tmp_path / "src", LINES)
    index(import_(src, tmp_path / "first"), store, capsys)
    write_jsonl(src, LINES[:1])
    assert deleted(index(import_(src, tmp_path / "second"), store, capsys)) > 0
    assert texts(store, "walrus migration") == []


def test_a_ledger_from_before_origins_is_migrated_and_prunes_as_before(tmp_path, store, capsys):
    src = write_jsonl(tmp_path / "src", LINES)
    corpus = import_(src, tmp_path / "corpus")
    index(corpus, store, capsys)
    ledger_path = store / "ledger.sqlite"
    downgrade(ledger_path, 0)

    ledger = Ledger(ledger_path)
    try:
        held = links(ledger_path)
        assert {o for _, o in held} == {LEGACY} and len(held) == ledger.count() > 0
    finally:
        ledger.close()
    write_jsonl(src, LINES[:1])
    import_(src, corpus)
    assert deleted(index(corpus, store, capsys)) > 0
    assert texts(store, "walrus migration") == []
    assert any("apricot orchard" in t for t in texts(store, "apricot orchard"))


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_an_older_ledger_is_compacted_keeping_what_it_knows(tmp_path, store, capsys, version):
    """Version 5 keeps one row per record (a short binary key, 8 bytes of hash, numbered thread, type and origin),
    no index by thread, and a run's seen and pending ids out of the file; an older ledger is rebuilt so, with the
    same hashes and origins: the next run sends nothing unchanged and still prunes what vanished."""
    src = write_jsonl(tmp_path / "src", LINES)
    corpus = import_(src, tmp_path / "corpus")
    index(corpus, store, capsys)
    ledger_path = store / "ledger.sqlite"
    held = links(ledger_path)
    before = downgrade(ledger_path, version)

    Ledger(ledger_path).close()
    db = sqlite3.connect(ledger_path)
    schema = dict(db.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table'"))
    assert "WITHOUT ROWID" in schema["committed"] and not {"seen", "pending", "origins"} & set(schema)
    assert not {"committed_old", "committed_v3", "also_v3"} & set(schema)
    keys = [k for (k,) in db.execute("SELECT key FROM committed")]
    assert all(isinstance(k, bytes) for k in keys)
    assert sum(map(len, keys)) * 2 < sum(len(i) for i, *_ in before)  # a numbered prefix and the digest's bytes
    assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION == 5
    assert db.execute("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'committed'").fetchall() == []
    db.close()
    assert records(ledger_path) == before
    assert links(ledger_path) == held

    assert re.search(r"sent 0\b", index(corpus, store, capsys))
    write_jsonl(src, LINES[:1])
    import_(src, corpus)
    assert deleted(index(corpus, store, capsys)) > 0
    assert texts(store, "walrus migration") == []
    assert any("apricot orchard" in t for t in texts(store, "apricot orchard"))
    db = sqlite3.connect(ledger_path)
    assert "seen" not in {n for (n,) in db.execute("SELECT name FROM sqlite_schema")}
    db.close()


@pytest.mark.parametrize("claim", ["remember", "legacy"])
def test_a_bundle_claiming_a_reserved_origin_is_refused_and_remember_notes_survive(tmp_path, store, capsys, claim):
    corpus = import_(write_jsonl(tmp_path / "src", LINES), tmp_path / "corpus")
    index(corpus, store, capsys)
    with Memory("sqlite", data_dir=store) as m:
        assert not m.remember("the quokka census moves to thursday", thread=thread_of(corpus)).degraded
    assert any(origin == "remember" for _, origin in links(store / "ledger.sqlite"))
    spoof = tmp_path / "spoof"
    spoof.mkdir()
    for f in corpus.iterdir():
        (spoof / f.name).write_bytes(f.read_bytes())
    manifest = orjson.loads((spoof / "manifest.json").read_bytes())
    manifest["metadata"]["source_id"] = claim
    (spoof / "manifest.json").write_bytes(orjson.dumps(manifest))
    capsys.readouterr()
    where = f"{spoof / 'manifest.json'}: metadata.source_id: source_id '{claim}' is reserved"
    assert main(["validate", str(spoof)]) == 1
    assert where in capsys.readouterr().out + capsys.readouterr().err
    assert main(["index", str(spoof), "-b", "sqlite", "--data-dir", str(store), "-q"]) == 4
    assert where in capsys.readouterr().err
    assert main(["chunk", str(spoof), "-o", str(tmp_path / "chunks"), "-q"]) == 4
    assert not (tmp_path / "chunks").exists()
    assert any("quokka census" in t for t in texts(store, "quokka census"))


def test_a_moved_source_is_another_source_its_leftovers_are_reported_and_forget_clears_them(tmp_path, store, capsys):
    """The documented rule: the identity is the resolved source paths, so after a move an entry removed from a file
    is kept (and reported); `memdock forget THREAD` and a re-index leave exactly what the moved files hold."""
    src = write_jsonl(tmp_path / "src", LINES)
    corpus = import_(src, tmp_path / "corpus")
    index(corpus, store, capsys)
    moved = src.rename(tmp_path / "moved")
    write_jsonl(moved, LINES[:1])
    import_(moved, corpus)
    capsys.readouterr()
    assert main(["index", str(corpus), "-b", "sqlite", "--data-dir", str(store), "-q"]) == 0
    out, err = capsys.readouterr()
    kept = re.search(
        r"warning: (\d+) record\(s\) in these threads are not in this bundle and came from another source", err
    )
    assert deleted(out) == 0 and kept and int(kept.group(1)) > 0, err
    assert any("walrus migration" in t for t in texts(store, "walrus migration"))
    assert main(["forget", thread_of(corpus), "-b", "sqlite", "--data-dir", str(store)]) == 0
    capsys.readouterr()
    assert main(["index", str(corpus), "-b", "sqlite", "--data-dir", str(store), "-q"]) == 0
    assert "another source" not in capsys.readouterr().err
    assert texts(store, "walrus migration") == []
    assert any("apricot orchard" in t for t in texts(store, "apricot orchard"))
