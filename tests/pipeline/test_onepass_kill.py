"""kill -9 of `memdock add` while its one pass is still importing (the journal segment half written, the ledger
holding pending rows, nothing sent to the adapter), or after the adapter's first checkpoint, then `memdock add`
again: every record is in the ledger, the backend and the export exactly once. The killed run leaves nothing in the
system's temp dir."""

import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest
from support.cli import memdock

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

N = 3000
BATCHES_BEFORE_KILL = 4  # DeltaSink flushes 2,000 records of a type at a time (sqlite derives edges: none of them)

RUN = """
import os, signal, sys
from memdock.cli.main import main
from memdock.engine import ledger as L

point, argv = sys.argv[1], sys.argv[2:]

def die():
    os.killpg(0, signal.SIGKILL)

if point == "import":
    add, batches = L.Ledger.add_pending, []
    def counted(self, items):
        add(self, items)
        batches.append(1)
        if len(batches) == int(os.environ["BATCHES"]):
            die()
    L.Ledger.add_pending = counted
else:
    commit = L.Ledger.commit
    def first(self, ids):
        commit(self, ids)
        die()
    L.Ledger.commit = first
main(argv)
"""


def notes(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"n{i:05d}", "thread": f"t{i // 25}", "text": f"note {i} on Paris and Rome"}))
            f.write("\n")
    return path


@pytest.mark.parametrize("point", ["import", "checkpoint"])
def test_kill_9_during_add_then_add_again_holds_every_record_once(tmp_path, point):
    source, store = notes(tmp_path / "notes.jsonl", N), tmp_path / "store"
    args = ["add", str(source), "-f", "jsonl", "--data-dir", str(store), "-q"]
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "BATCHES": str(BATCHES_BEFORE_KILL), "TMPDIR": str(temp)}
    killed = subprocess.run([sys.executable, "-c", RUN, point, *args], start_new_session=True, env=env, timeout=600)
    assert killed.returncode == -signal.SIGKILL
    assert not list(temp.iterdir()), "a killed add leaves nothing in the temp dir"

    again = memdock(*args[:-1], "--json", home=tmp_path)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        counts = b.counts()
        assert counts["entry"] == N and counts["chunk"] == N, counts
        assert result["skipped"] + sum(result["details"]["sent"].values()) == sum(counts.values())
        if point == "checkpoint":
            assert result["skipped"] > 0, "what was checkpointed is not sent again"
        out = b.export(tmp_path / "out")  # its edges implied by entries are no ledger rows
        held = {t: n - (out.derived if t == "edge" else 0) for t, n in out.counts.items()}
        assert {t: n for t, n in held.items() if n} == counts
    with sqlite3.connect(store / "data" / "memory.sqlite") as db:
        assert db.execute("SELECT count(*), count(DISTINCT id) FROM chunk_rows").fetchone() == (N, N)
    rerun = memdock(*args[:-1], home=tmp_path)
    assert "unchanged since the last add" in rerun.stdout, rerun.stdout + rerun.stderr
