"""Queries that could break FTS5, and database files the adapter must refuse without touching them."""

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.sqlite_helpers import can_unshare, sqlite_backend

from memdock.engine.store import Store
from memdock.errors import BackendError, ConfigError, InvalidInputError, VersionError

ADAPTER_DIR = Path(__file__).resolve().parents[2] / "adapters" / "sqlite"


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_query_is_invalid_input(indexed, text):
    with pytest.raises(InvalidInputError, match="empty"):
        indexed.query(text)


@pytest.mark.parametrize("text", ["?!", "...---...", "«»—", "()[]{}"])
def test_punctuation_only_returns_no_hits_and_says_why(indexed, text):
    result = indexed.query(text)
    assert result.hits == [] and "no searchable words" in result.reason


@pytest.mark.parametrize(
    "text, expect",
    [
        ('"cache', "Cache stampede"),
        ('cache"', "Cache stampede"),
        ("NEAR(cache stampede)", "Cache stampede"),
        ("cache NEAR stampede", "Cache stampede"),
        ("stamp*", None),
        ("-cache", "Cache stampede"),
        ("cache -stampede", "Cache stampede"),
        ("title:cache", "Cache stampede"),
        ("header:stampede", "Cache stampede"),
        ("cache AND OR NOT stampede", "Cache stampede"),
        ("^cache", "Cache stampede"),
        ("cache + stampede", "Cache stampede"),
    ],
)
def test_fts5_syntax_in_a_query_is_just_words(indexed, text, expect):
    hits = indexed.query(text, limit=3).hits
    if expect is None:
        return
    assert hits and expect in hits[0].text.split("\n", 1)[0]


def test_prefix_operator_is_not_applied(indexed):
    # "stamp*" would match "stampede" if the star were FTS5 syntax; quoted, it is the word "stamp".
    assert indexed.query("stamp*").hits == []


def test_a_10kb_query_answers(indexed):
    text = ("cache stampede latency jitter " * 400)[:10240] + " " + " ".join(f"word{i}" for i in range(500))
    assert len(text) > 10000
    hits = indexed.query(text, limit=3).hits
    assert hits and "Cache stampede" in hits[0].text


def test_other_scripts(chat_index):
    cyrillic = chat_index.query("резервное копирование", limit=2).hits
    assert cyrillic and cyrillic[0].provenance["entry_id"] == "entry:m3"
    japanese = chat_index.query("バックアップ", limit=2).hits
    assert japanese and japanese[0].provenance["entry_id"] == "entry:m4"
    assert chat_index.query("備份", limit=2).hits == []


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_corrupt_database_is_refused_and_left_untouched(tmp_path, fixture_chunks):
    store = tmp_path / "store"
    db = Store(store).ensure().data_dir / "memory.sqlite"
    db.write_bytes(b"this is not a database, but someone's notes " * 200)
    before = _digest(db)
    b = sqlite_backend(store, retries=0)
    with pytest.raises(BackendError, match="corrupt or not a SQLite file.*untouched"):
        b.query("cache")
    with pytest.raises(BackendError, match="memory.sqlite"):
        b.index(fixture_chunks)
    health = b.healthcheck()
    assert not health.ok and "corrupt" in health.message
    assert _digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["memory.sqlite"]


def test_a_damaged_page_is_reported_by_healthcheck(tmp_path, fixture_chunks):
    store = tmp_path / "store"
    b = sqlite_backend(store)
    b.index(fixture_chunks)
    db = store / "data" / "memory.sqlite"
    raw = bytearray(db.read_bytes())
    page = int.from_bytes(raw[16:18], "big")
    for i in range(page * 2, len(raw)):  # keep the header and the schema page, scramble the rest
        raw[i] = (raw[i] * 7 + 13) % 256
    db.write_bytes(bytes(raw))
    health = b.healthcheck()
    assert not health.ok
    assert "integrity check failed" in health.message or "malformed" in health.message


def test_a_database_from_a_newer_schema_is_refused_and_left_untouched(tmp_path, fixture_chunks):
    store = tmp_path / "store"
    b = sqlite_backend(store, retries=0)
    b.index(fixture_chunks)
    db = store / "data" / "memory.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = _digest(db)
    with pytest.raises(VersionError, match="schema version 99 is newer"):
        b.query("cache")
    with pytest.raises(VersionError, match="untouched"):
        b.delete(["entry:whatever"])
    assert _digest(db) == before


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    store = tmp_path / "store"
    db = Store(store).ensure().data_dir / "memory.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    before = _digest(db)
    with pytest.raises(BackendError, match="not written by the memdock sqlite adapter"):
        sqlite_backend(store, retries=0).query("cache")
    assert _digest(db) == before


@pytest.mark.skipif(
    not can_unshare(), reason="needs `unshare -m` (root or user namespaces) to mount a read-only filesystem"
)
def test_a_store_on_a_read_only_filesystem(tmp_path, fixture_chunks):
    store = tmp_path / "store"
    sqlite_backend(store).index(fixture_chunks)
    before = _digest(store / "data" / "memory.sqlite")
    script = f"""
set -u
mount --bind {store} {store} && mount -o remount,bind,ro {store} || exit 99
{sys.executable} -m memdock query "cache stampede" -b sqlite --data-dir {store} -n 1 --json \
    > {tmp_path}/query.json; echo "query=$?"
{sys.executable} -m memdock recall "zebra xylophone" -b sqlite --data-dir {store} \
    > {tmp_path}/nohit.txt 2>&1; echo "nohit=$?"
{sys.executable} -m memdock index {fixture_chunks} -b sqlite --data-dir {store} 2> {tmp_path}/index.err; echo "index=$?"
{sys.executable} -m memdock forget entry:x -b sqlite --data-dir {store} 2> {tmp_path}/forget.err; echo "forget=$?"
"""
    out = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode != 99, out.stderr
    status = dict(line.split("=") for line in out.stdout.split())
    refused = str(ConfigError("").exit_code)
    assert status == {"query": "0", "nohit": "0", "index": refused, "forget": refused}, (
        tmp_path / "nohit.txt"
    ).read_text()
    assert "Cache stampede" in (tmp_path / "query.json").read_text()
    assert (tmp_path / "nohit.txt").read_text().strip() == "no results"  # the ledger read to tell, not written
    for name in ("index.err", "forget.err"):
        assert "not writable (read-only filesystem)" in (tmp_path / name).read_text()
    assert _digest(store / "data" / "memory.sqlite") == before


@pytest.mark.skipif(
    not can_unshare(), reason="needs `unshare -m` (root or user namespaces) to mount a read-only filesystem"
)
def test_the_adapter_itself_refuses_a_read_only_data_dir(tmp_path):
    """The adapter checks too: a caller other than memdock's runner may hand it a read-only data dir."""
    data = tmp_path / "data"
    data.mkdir()
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); from memdock_sqlite import db; "
        "db.open_db(Path(sys.argv[2]), write=True)"
    )
    script = (
        f"mount --bind {data} {data} && mount -o remount,bind,ro {data} && {sys.executable} -c '{code}' "
        f"{ADAPTER_DIR} {data}"
    )
    out = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert f"the data dir {data} is not writable (Read-only file system)" in out.stderr
    assert list(data.iterdir()) == []
