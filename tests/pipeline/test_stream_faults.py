"""A streamed index run's faults (`engine/stream.py`): a slow pass does not stop a healthy adapter waiting on it;
an empty delta starts no adapter; Ctrl-C while the adapter starts stops it at once; a call killed once its
input was whole is retried with the sealed segment."""

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from test_input_stream import gone

from memdock.chunking import ChunkOptions
from memdock.engine import stream as S
from memdock.errors import TransientError
from memdock.importers.onepass import ImportFeed
from memdock.registry import Registry
from memdock.runner import oneshot
from memdock.runner.backend import SubprocessBackend

IDLE = 5.0


def notes(path: Path, n: int) -> Path:
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"n{i:05d}", "thread": f"t{i // 25}", "text": f"note {i} on Paris"}) + "\n")
    return path


def test_a_pass_slower_than_the_idle_timeout_does_not_stop_the_streamed_adapter(tmp_path):
    """The adapter, started at the pass's start, says nothing while it waits for its input: its idle clock runs
    only while the run waits on it (or has written it all), so a pass that works longer than the idle timeout
    before its first record (here, a source read slowly) does not stop it."""
    slow: list[int] = []

    def read_slowly(done: int, total: int) -> None:
        if not slow:
            slow.append(done)
            time.sleep(IDLE * 3)  # the pass's own work, not a wait on anything

    feed = ImportFeed([notes(tmp_path / "notes.jsonl", 200)], "jsonl", ChunkOptions(), on_bytes=read_slowly)
    with SubprocessBackend(Registry().get("sqlite"), tmp_path / "store", timeouts={"idle": IDLE}) as b:
        result = b.index(feed)
    assert slow and result.details["input_stream"] > 0 and result.indexed["entry"] == 200


def test_a_streamed_run_with_nothing_to_send_starts_no_adapter(tmp_path, monkeypatch):
    source = notes(tmp_path / "notes.jsonl", 50)
    spawned: list[str] = []
    spawn = oneshot._spawn

    def counted(launch, request_path, work, params, log, stream):
        spawned.append(request_path.parent.name)
        return spawn(launch, request_path, work, params, log, stream)

    monkeypatch.setattr(oneshot, "_spawn", counted)
    with SubprocessBackend(Registry().get("sqlite"), tmp_path / "store") as b:
        first = b.index(ImportFeed([source], "jsonl", ChunkOptions()))
        calls = len(spawned)
        again = b.index(ImportFeed([source], "jsonl", ChunkOptions()))
    assert first.details["input_stream"] > 0 and calls >= 1
    assert spawned[calls:] == [] and again.skipped == sum(first.details["sent"].values())
    assert again.details["sent"] == {}


@pytest.mark.timeout(240)  # before the fix the run waited out the adapter's idle timeout (600 s here)
def test_ctrl_c_while_the_adapter_starts_ends_its_input_at_once(tmp_path, monkeypatch):
    """Ctrl-C lands while the run waits for the adapter's stdin, which comes only after the run gave up: the
    adapter's input ends as it comes (it refuses it and exits), no process is left, and the store is as before."""
    source, store = notes(tmp_path / "notes.jsonl", 50), tmp_path / "store"
    given_up, pids = threading.Event(), []
    opened, close = S.InputStream.opened, S.InputStream.close

    def late(self, pipe, stop, pid):
        given_up.wait()
        pids.append(pid)
        opened(self, pipe, stop, pid)

    def closing(self):
        close(self)
        given_up.set()

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(S.InputStream, "opened", late)
    monkeypatch.setattr(S.InputStream, "close", closing)
    monkeypatch.setattr(S.InputStream, "wait_open", interrupted)
    backend = SubprocessBackend(Registry().get("sqlite"), store, timeouts={"idle": 600})
    with backend as b, pytest.raises(KeyboardInterrupt):
        b.index(ImportFeed([source], "jsonl", ChunkOptions()))
    gone(pids[0])
    assert not (store / "data" / "memory.sqlite").exists()
    monkeypatch.undo()
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        assert b.index(ImportFeed([source], "jsonl", ChunkOptions())).indexed["entry"] == 50


@pytest.mark.parametrize("retries", [1, 0])
def test_a_streamed_adapter_killed_after_its_input_ended_is_retried_with_the_sealed_segment(
    tmp_path, monkeypatch, retries
):
    """The sealed call's retry, for a streamed call that failed (killed: a retryable error) once its input was
    whole: the sealed segment goes instead, and the store holds every record; with retries 0, the error."""
    source, store = notes(tmp_path / "notes.jsonl", 2000), tmp_path / "store"
    end = S.InputStream.end

    def end_then_kill(self):
        end(self)
        os.killpg(self.pid, signal.SIGKILL)

    monkeypatch.setattr(S.InputStream, "end", end_then_kill)
    with SubprocessBackend(Registry().get("sqlite"), store, retries=retries) as b:
        if not retries:
            with pytest.raises(TransientError):
                b.index(ImportFeed([source], "jsonl", ChunkOptions()))
            return
        result = b.index(ImportFeed([source], "jsonl", ChunkOptions()))
        assert "input_stream_retry" in result.details and "input_stream" not in result.details
        assert result.indexed["entry"] == 2000
        monkeypatch.undo()
        assert b.index(ImportFeed([source], "jsonl", ChunkOptions())).skipped == sum(result.details["sent"].values())
