"""The write worker of a backend with workers: kill -9 of it mid-index loses nothing (the next run resumes
exactly where the ledger says), a write whose caller gave up mid-call retires it, and a backend without
workers (the CLI's) still writes one-shot."""

import json
import os
import signal
from pathlib import Path

import pytest
from test_one_pass import chunk

from memdock.bundle import BundleWriter
from memdock.errors import TransientError
from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend

FAULTY = Path(__file__).resolve().parents[1] / "adapters" / "faulty-none"
N = 1000  # the faulty adapter checkpoints every 100 records


def _bundle(path: Path, n: int = N) -> Path:
    with BundleWriter(path, "chunks") as w:
        for i in range(n):
            w.write("chunk", chunk(i))
    return path


def _backend(store: Path, **kw) -> SubprocessBackend:
    return SubprocessBackend(AdapterDescriptor.load(FAULTY), store, retries=0, **kw)


def _index_pids(b: SubprocessBackend) -> list[int | None]:
    return [c.pid for c in b.calls if c.operation == "index"]


def test_kill_9_of_the_write_worker_mid_index_then_a_rerun_resumes_exactly(tmp_path, scripted):
    first = _bundle(tmp_path / "first", 5)  # chunks 0-4, unchanged in BIG
    big = _bundle(tmp_path / "big")
    b = scripted("checkpoint_then_hang_once", workers=1, retries=0)
    (b.store.ensure().data_dir / "marker-hung").write_text("1")  # the first index runs through
    b.index(first)
    (b.store.data_dir / "marker-hung").unlink()  # the next one hangs after its first checkpoint
    (pid,) = _index_pids(b)
    committed: list[str] = []

    def kill(ids: list[str]) -> None:  # kill -9 of the adapter process, hung after its first checkpoint
        committed.extend(ids)
        os.kill(int((b.store.data_dir / "adapter.pid").read_text()), signal.SIGKILL)

    with pytest.raises(TransientError, match="worker"):
        b.index(big, after_checkpoint=kill)
    assert len(committed) == 100
    again = b.index(big)
    assert again.skipped == 5 + 100, "what was checkpointed is not sent again"
    assert sum(again.details["sent"].values()) == N - 5 - 100
    writes = [c for c in b.calls if c.operation == "index"]
    assert [c.mode for c in writes] == ["worker"] * 3
    assert writes[1].pid == pid != writes[2].pid, "a new write worker took over"
    assert b.index(big).details["sent"] == {}


def test_a_write_whose_caller_gave_up_retires_the_write_worker(tmp_path):
    big = _bundle(tmp_path / "big")

    def give_up(ids: list[str]) -> None:
        raise RuntimeError("the ledger could not commit")

    with _backend(tmp_path / "store", workers=1) as b:
        with pytest.raises(RuntimeError):
            b.index(big, after_checkpoint=give_up)
        assert b.transport.writer is not None and b.transport.writer._idle == []
        b.index(big)
        assert b.counts() == {"chunk": N}
        first, second = _index_pids(b)
        assert first != second


def test_without_workers_writes_stay_one_shot(tmp_path):
    with _backend(tmp_path / "store") as b:
        b.index(_bundle(tmp_path / "a", 5))
        b.index(_bundle(tmp_path / "b", 10))
        assert b.transport.writer is None
        assert [c.mode for c in b.calls if c.operation == "index"] == ["one-shot", "one-shot"]


def test_a_store_one_process_at_a_time_may_open_keeps_no_write_worker(tmp_path):
    """An adapter whose store one process at a time may open (`store_processes: one`, mem0's local Qdrant) writes
    one-shot even with workers: a write worker would hold the store open and lock the read worker out of it."""
    raw = AdapterDescriptor.load(FAULTY).raw
    serial = tmp_path / "serial-adapter"
    serial.mkdir()
    command = [str(FAULTY.parent / "faulty.py") if a == "../faulty.py" else a for a in raw["command"]]
    (serial / "adapter.json").write_text(json.dumps({**raw, "command": command, "store_processes": "one"}))
    with SubprocessBackend(AdapterDescriptor.load(serial), tmp_path / "store", retries=0, workers=1) as b:
        b.index(_bundle(tmp_path / "a", 5))
        assert b.transport.writer is None
        assert [c.mode for c in b.calls if c.operation == "index"] == ["one-shot"]
        assert b.counts() == {"chunk": 5}
