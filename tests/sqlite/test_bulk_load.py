"""A first index into a store with no database loads in bulk into a file renamed into place when complete
(memdock_sqlite/bulk.py); later runs write in place, in WAL. Real processes, a real kill -9, a real full disk."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.records_factory import chunk
from support.sqlite_helpers import can_unshare, sqlite_backend
from support.tmpfs import in_tmpfs, status

from memdock.bundle import BundleWriter

LOADING = "memory.sqlite.loading"
WORDS = "storage latency cache replica shard quorum migration rollback snapshot index "


def chunks_bundle(path: Path, n: int, start: int = 0) -> Path:
    with BundleWriter(path, "chunks") as w:
        for i in range(start, start + n):
            w.write("chunk", chunk(i, text=f"{i} " + WORDS * 4))
    return path


def memdock(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdock", *args], capture_output=True, text=True, **kw)


def stored(store: Path) -> tuple[int, str]:
    """(chunks in the store's database, its journal mode)."""
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        return conn.execute("SELECT count(*) FROM chunk_rows").fetchone()[0], conn.execute(
            "PRAGMA journal_mode"
        ).fetchone()[0]
    finally:
        conn.close()


def test_a_first_index_loads_in_bulk_and_later_runs_write_in_place(tmp_path):
    store = tmp_path / "store"
    b = sqlite_backend(store, workers=1)
    try:
        first = b.index(chunks_bundle(tmp_path / "a", 500))
        second = b.index(chunks_bundle(tmp_path / "b", 200, start=500))
        hits = b.call("query", {"text": "quorum 510", "limit": 3})["hits"]
    finally:
        b.close()
    assert first.details["bulk_load"] is True and second.details["bulk_load"] is False
    assert stored(store) == (700, "wal")
    assert not (store / "data" / LOADING).exists()
    assert hits and hits[0]["id"] == "chunk:510"


def test_kill_9_during_a_bulk_load_leaves_no_database_and_the_rerun_loads_everything(tmp_path):
    n = 60000
    bundle = chunks_bundle(tmp_path / "big", n)
    store = tmp_path / "store"
    cmd = [sys.executable, "-m", "memdock", "index", str(bundle), "--data-dir", str(store), "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    loading = store / "data" / LOADING
    deadline = time.monotonic() + 300
    while not (loading.exists() and loading.stat().st_size > 0):  # the load has begun
        assert proc.poll() is None, f"the index ended before its load could be killed: {proc.stderr.read()!r}"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its adapter process with it
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not (store / "data" / "memory.sqlite").exists()  # the store is as it was: no database

    again = memdock("index", str(bundle), "--data-dir", str(store), "--json", timeout=900)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["indexed"] == {"chunk": n} and result["skipped"] == 0
    assert stored(store) == (n, "wal")
    assert not loading.exists()
    third = json.loads(memdock("index", str(bundle), "--data-dir", str(store), "--json", timeout=900).stdout)
    assert third["skipped"] == n and not third["indexed"]


@pytest.mark.skipif(not can_unshare(), reason="needs `unshare -m` (root or user namespaces) to mount a small tmpfs")
def test_a_full_disk_during_a_bulk_load_leaves_no_database_nor_loading_file(tmp_path):
    bundle = chunks_bundle(tmp_path / "chunks", 20000)
    script = f"""
mkdir -p $M/store
fill 3000000
$PY -m memdock index {bundle} --data-dir $M/store > /dev/null 2> err.txt; echo "index=$?"
test -e $M/store/data/memory.sqlite; echo "db=$?"
test -e $M/store/data/{LOADING}; echo "loading=$?"
rm $M/filler
$PY -m memdock index {bundle} --data-dir $M/store --json > again.json 2> err2.txt; echo "again=$?"
$PY -m memdock health --data-dir $M/store --json > health.json; echo "health=$?"
"""
    out = in_tmpfs(tmp_path, "24m", script)
    err = (tmp_path / "err.txt").read_text()
    assert status(out) == {"index": "7", "db": "1", "loading": "1", "again": "0", "health": "0"}, (
        out.stdout + err + (tmp_path / "err2.txt").read_text()
    )
    assert "disk full: no space left on the device holding " + str(tmp_path / "mnt" / "store") in err
    assert "Traceback" not in err
    assert json.loads((tmp_path / "again.json").read_text())["indexed"] == {"chunk": 20000}
    health = json.loads((tmp_path / "health.json").read_text())
    assert health["ok"] and health["checks"]["chunks"] == 20000


def notes(path: Path, prefix: str, n: int) -> Path:
    with open(path, "w") as f:
        for i in range(n):
            f.write(
                json.dumps({"id": f"{prefix}{i:05d}", "thread": prefix, "text": f"{prefix} note {i} {WORDS}"}) + "\n"
            )
    return path


def test_two_adds_on_one_new_store_at_once_lose_nothing(tmp_path):
    """The store's write lock lets one load at a time: the other waits or is refused (and is run again)."""
    store = tmp_path / "store"
    sources = [notes(tmp_path / "a.jsonl", "alpha", 3000), notes(tmp_path / "b.jsonl", "beta", 3000)]
    cmd = [sys.executable, "-m", "memdock", "add", "-f", "jsonl", "--data-dir", str(store), "-q"]
    procs = [subprocess.Popen([*cmd, str(s)], stderr=subprocess.PIPE, text=True) for s in sources]
    outcomes = [(p.wait(timeout=900), p.stderr.read() if p.stderr else "") for p in procs]
    for (code, err), source in zip(outcomes, sources):
        if code != 0:
            assert "locked by another writer" in err, err
            assert (
                memdock("add", str(source), "-f", "jsonl", "--data-dir", str(store), "-q", timeout=900).returncode == 0
            )
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        counts = dict(
            conn.execute(
                "SELECT thread_id LIKE 'thread:alpha%', count(*) FROM node_rows WHERE kind = 'entry' GROUP BY 1"
            )
        )
    finally:
        conn.close()
    assert counts == {1: 3000, 0: 3000}
    assert not (store / "data" / LOADING).exists()
