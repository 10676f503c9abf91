"""A first `memdock add` writes its ledger rows while the adapter finishes its load, in a transaction it commits
once the checkpoints cover them (`Ledger.prewrite`). kill -9 of the run with that transaction open (just written,
or after the first of the bulk load's checkpoints) leaves the ledger as it was, and `memdock add` again holds every
record exactly once; an adapter that dies after the stream ended, its checkpoints cut short, leaves in the ledger
exactly the rows it checkpointed, and one whose output breaks off is retried with the sealed segment."""

import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest
from support.cli import memdock
from test_onepass_kill import notes

from memdock.chunking import ChunkOptions
from memdock.engine import ledger as L
from memdock.engine import stream as S
from memdock.errors import MemdockError
from memdock.importers.onepass import ImportFeed
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

N = 12_000
ROWS = 2 * N + N // 25  # entries, chunks, threads: more than one of the sqlite bulk load's checkpoints (20,000 ids)
# Three checkpoints: the second, of 20,000 ids, is more than the adapter's stdout pipe (64 KiB) and the runner's read
# (64 KiB) hold, so the adapter is still writing it, alive, when the core hands on the first.
N_LONG = 20_000
ROWS_LONG = 2 * N_LONG + N_LONG // 25

RUN = """
import json, os, signal, sys
from memdock.cli.main import main
from memdock.engine import ledger as L

point, mark, argv = sys.argv[1], sys.argv[2], sys.argv[3:]

def die(ledger):
    rows = ledger.db.execute("SELECT count(*) FROM committed").fetchone()[0]
    with open(mark, "w") as f:
        json.dump({"in_transaction": ledger.db.in_transaction, "rows": rows}, f)
    os.kill(os.getpid(), signal.SIGKILL)

prewrite, commit = L.Ledger.prewrite, L.Ledger.commit
def prewritten(self):
    done = prewrite(self)
    if done and point == "prewritten":
        die(self)
    return done
def committed(self, ids):
    n = commit(self, ids)
    if point == "checkpoint" and self.db.in_transaction:
        die(self)
    return n
L.Ledger.prewrite, L.Ledger.commit = prewritten, committed
main(argv)
"""


def ledger_rows(store) -> int:
    with sqlite3.connect(store / "ledger.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM committed").fetchone()[0])


@pytest.mark.parametrize("point", ["prewritten", "checkpoint"])
def test_kill_9_with_the_prewrite_open_leaves_the_ledger_as_it_was_and_add_again_holds_each_record_once(
    tmp_path, point
):
    source, store, mark = notes(tmp_path / "notes.jsonl", N), tmp_path / "store", tmp_path / "killed.json"
    args = ["add", str(source), "-f", "jsonl", "--data-dir", str(store), "-q"]
    killed = subprocess.run([sys.executable, "-c", RUN, point, str(mark), *args], timeout=600)
    assert killed.returncode == -signal.SIGKILL
    seen = json.loads(mark.read_text())
    assert seen["in_transaction"] and seen["rows"] == ROWS, seen  # killed with every row pre-written, uncommitted
    assert ledger_rows(store) == 0, "the ledger is as it was before the run"

    again = memdock(*args[:-1], "--json", home=tmp_path)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["skipped"] == 0 and sum(result["details"]["sent"].values()) == ROWS
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        counts = b.counts()
        assert counts["entry"] == N and counts["chunk"] == N, counts
    assert ledger_rows(store) == ROWS
    with sqlite3.connect(store / "data" / "memory.sqlite") as db:
        assert db.execute("SELECT count(*), count(DISTINCT id) FROM chunk_rows").fetchone() == (N, N)
    rerun = memdock(*args[:-1], home=tmp_path)
    assert "unchanged since the last add" in rerun.stdout, rerun.stdout + rerun.stderr


@pytest.mark.parametrize("how", ["killed", "cut short, then retried"])
def test_an_adapter_stopping_after_the_stream_ended_leaves_exactly_its_checkpoints_in_the_ledger(
    tmp_path, monkeypatch, how
):
    """The adapter is killed at its first checkpoint (its load in place; whatever it wrote after is not handed on):
    the pre-write is rolled back and the ledger holds exactly that checkpoint's rows, and the error is its exit by
    signal, not a transient one. Cut short by a failure reading its second checkpoint, a retryable error, the run
    retries with the sealed segment (the pre-write abandoned, its rows pending again) and the ledger ends with every
    row."""
    source, store = notes(tmp_path / "notes.jsonl", N_LONG), tmp_path / "store"
    on_checkpoint, prewrite = S.InputStream.on_checkpoint, L.Ledger.prewrite
    first: list[str] = []
    prewrites: list[bool] = []

    def first_only(self, ids):
        if first and how == "killed":
            return  # the adapter is dead: what it wrote before is not handed on
        if first:
            raise OSError("the adapter's output broke off")  # its call fails, as a transient error
        first.extend(ids)
        on_checkpoint(self, ids)
        if how == "killed":
            os.killpg(self.pid, signal.SIGKILL)

    def counted(self):
        prewrites.append(prewrite(self))
        return prewrites[-1]

    monkeypatch.setattr(S.InputStream, "on_checkpoint", first_only)
    monkeypatch.setattr(L.Ledger, "prewrite", counted)
    with SubprocessBackend(Registry().get("sqlite"), store, retries=0 if how == "killed" else 1) as b:
        if how == "killed":
            with pytest.raises(MemdockError, match="exited with code -9"):
                b.index(ImportFeed([source], "jsonl", ChunkOptions()))
        else:
            result = b.index(ImportFeed([source], "jsonl", ChunkOptions()))
            assert "broke off" in result.details["input_stream_retry"]
    assert prewrites == [True] and 0 < len(first) < ROWS_LONG
    ledger = L.Ledger(store / "ledger.sqlite")
    try:
        held = {rid for rid, *_ in ledger.records()}
    finally:
        ledger.close()
    if how == "killed":
        assert held == set(first)
    else:
        assert len(held) == ROWS_LONG and set(first) <= held
