"""A streamed `memdock add` into tantivy commits nothing before its input is whole (documents go to the writers as
they come), then every batch_size records while it writes the edges and the entries it held; a kill -9 of the whole
add while the adapter writes, or just after a commit, then a re-run, ends with the counts of a clean run, in the
ledger and in both indexes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.parallel_helpers import ledger_of
from tantivy_support import backend, gate
from test_tantivy_resume import counts
from test_tantivy_stream import notes

from memdock.chunking import ChunkOptions
from memdock.importers.onepass import ImportFeed

pytestmark = [*gate, pytest.mark.timeout(900)]


def _segments(index: Path) -> int:
    return len(json.loads((index / "meta.json").read_text())["segments"])


def _streamed_add(tmp_path: Path, n: int, batch_size: int) -> tuple[Any, dict[str, int]]:
    """N notes added streamed into a store at tmp_path/s with BATCH_SIZE: the result and the store's counts."""
    b = backend(tmp_path / "s", {"batch_size": batch_size})
    try:
        result = b.index(ImportFeed([notes(tmp_path / "notes.jsonl", n)], "jsonl", ChunkOptions()))
        return result, counts(b)
    finally:
        b.close()


def test_a_streamed_add_commits_once_its_input_is_whole_then_every_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "1")
    result, got = _streamed_add(tmp_path, 12000, 2000)  # past sdk/stream.GROUP: entries and chunks interleave
    assert "input_stream" in result.details
    # every chunk came before the end line: one commit holds them all (one segment; a commit every 2,000
    # records while they came would have made one per commit). The entries held for the text once and the
    # edges derived from them come after it, 2,000 records a commit.
    assert _segments(tmp_path / "s" / "data" / "chunks") == 1
    assert result.checkpoints >= (12000 + 2 * 12000) // 2000
    assert got["entry"] == 12000 and got["chunk"] >= 12000


def test_a_streamed_add_with_a_batch_smaller_than_its_held_entries_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries held for the text once go to the pending documents at the first edge; with fewer than
    TYPE_FLUSH of them but more than batch_size, the next slice's room came out negative and the run failed
    (islice refused it)."""
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "1")
    result, got = _streamed_add(tmp_path, 500, 100)
    assert "input_stream" in result.details
    assert got["entry"] == 500 and got["chunk"] >= 500


def _cli(store: Path, source: Path) -> list[str]:
    return [sys.executable, "-m", "memdock", "add", str(source), "-f", "jsonl", "-b", "tantivy"] + [
        "--data-dir",
        str(store),
        "-q",
    ]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def _kill_when(store: Path, source: Path, ready) -> None:
    """Start the add, kill -9 its process group once READY() holds."""
    proc = subprocess.Popen(_cli(store, source), stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    while not ready():
        assert proc.poll() is None, f"the add ended before it could be killed: {proc.stderr.read()!r}"  # type: ignore[union-attr]
        assert time.monotonic() < deadline
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize("when", ["writing", "committed"])
def test_kill_9_mid_streamed_add_then_a_rerun_has_exact_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "1")
    source = notes(tmp_path / "notes.jsonl", 12000)
    seed = notes(tmp_path / "seed.jsonl", 3)
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    for store in (clean, killed):
        subprocess.run(_cli(store, seed), check=True, capture_output=True)  # the big add writes into a store
    subprocess.run(_cli(clean, source), check=True, capture_output=True)
    meta = killed / "data" / "chunks" / "meta.json"
    before = _stamp(meta)
    if when == "writing":  # the adapter builds chunk documents: it trains its dictionary on the first ones
        zdict = killed / "data" / "chunks.zdict"
        assert not zdict.exists()  # the seed's chunks are too few to train on
        _kill_when(killed, source, zdict.exists)
    else:  # the stream's commit landed: the core may not have recorded its checkpoints yet
        _kill_when(killed, source, lambda: _stamp(meta) != before)
    subprocess.run(_cli(killed, source), check=True, capture_output=True)
    assert ledger_of(killed) == ledger_of(clean)
    stores = [backend(s) for s in (clean, killed)]
    try:
        assert counts(stores[1]) == counts(stores[0])
    finally:
        for b in stores:
            b.close()
