"""kill -9 of an index run of 100,000 records (hashed ids, as memdock makes them), mid-pass or after a checkpoint,
then a re-run: the ledger, the backend and the journal each hold every record exactly once."""

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_one_pass import chunk

from memdock.bundle import BundleWriter
from memdock.ids import digest
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

pytestmark = pytest.mark.slow
N = 100_000

RUN = """
import os, signal, sys
from pathlib import Path
from memdock.registry import Registry
from memdock.engine import ledger as L
from memdock.runner.backend import SubprocessBackend

bundle, store, point = sys.argv[1:4]

def die():
    os.killpg(0, signal.SIGKILL)

if point == "pass":  # in the one pass, after 20 batches were diffed and journaled, before the adapter starts
    add, batches = L.Ledger.add_pending, []
    def counted(self, items):
        add(self, items)
        batches.append(1)
        if len(batches) == 20:
            die()
    L.Ledger.add_pending = counted
checkpoints = []
def after(ids):
    checkpoints.append(ids)
    if point == "checkpoint" and len(checkpoints) == 3:
        die()
SubprocessBackend(Registry().get("sqlite"), Path(store)).index(bundle, after_checkpoint=after)
"""


def write_chunks(path: Path) -> Path:
    with BundleWriter(path, "chunks") as w:
        for i in range(N):
            text = f"note {i} on the {('apple', 'pear', 'plum', 'fig')[i % 4]} harvest, lot {i * 7919 % 10007}"
            w.write("chunk", chunk(i, text, key=digest("kill", str(i)), per_thread=50))
    return path


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return write_chunks(tmp_path_factory.mktemp("k100") / "chunks")


@pytest.mark.parametrize("point", ["pass", "checkpoint"])
def test_kill_9_then_a_rerun_holds_every_record_exactly_once(tmp_path, bundle, point):
    store = tmp_path / "store"
    killed = subprocess.run(
        [sys.executable, "-c", RUN, str(bundle), str(store), point], start_new_session=True, timeout=1200
    )
    assert killed.returncode == -signal.SIGKILL

    b = SubprocessBackend(Registry().get("sqlite"), store, timeouts={"index": 1200})
    again = b.index(bundle)
    assert again.skipped + sum(again.details["sent"].values()) == N
    if point == "checkpoint":
        assert again.skipped > 0, "what was checkpointed is not sent again"
    assert b.counts() == {"chunk": N}
    with sqlite3.connect(store / "data" / "memory.sqlite") as db:
        assert db.execute("SELECT count(*), count(DISTINCT id) FROM chunk_rows").fetchone() == (N, N)
    assert b.export(tmp_path / "out").counts == {"chunk": N}
    assert b.index(bundle).details["sent"] == {}
