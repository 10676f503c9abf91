import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdock.errors import TransientError
from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend

ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


def alive(pid):
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def test_worker_serves_many_requests_from_one_process(scripted):
    b = scripted("ok", workers=1)
    for _ in range(20):
        assert b.query("x").hits == []
    (w,) = b.pool._idle
    assert w.calls == 20


def test_a_pool_started_up_front_holds_its_workers_idle_and_serves_from_them(scripted):
    b = scripted("ok", workers=2)
    b.pool.start()
    b.pool.start()  # once the pool is full, starting again adds none
    started = {w.proc.pid for w in b.pool._idle}
    assert len(started) == 2 and all(w.alive for w in b.pool._idle)
    assert b.query("x").hits == []
    assert {c.pid for c in b.calls if c.operation == "query"} <= started


def test_crashed_worker_restarted_and_idempotent_request_retried(scripted):
    b = scripted("crash_once", workers=1, retries=0)  # the pool's own retry, as the service's backends have it
    assert b.pool.call("query", {"text": "x"})["hits"] == []


def test_a_backend_that_asks_to_see_crashes_is_not_retried(scripted):
    b = scripted("crash_once", workers=1, retries=0, retry_crashed=False)  # the conformance kit's
    with pytest.raises(TransientError, match=r"exited during query \(exit code \d+"):
        b.pool.call("query", {"text": "x"})
    assert b.query("x").hits == []  # the crashed worker was replaced


def test_crashed_worker_not_retried_for_writes(scripted):
    b = scripted("crash_once", workers=1)
    with pytest.raises(TransientError, match="exited during delete"):
        b.pool.call("delete", {"ids": ["a"]})


def test_worker_exits_when_stdin_closes(scripted):
    b = scripted("ok", workers=1)
    b.query("x")
    (w,) = b.pool._idle
    pid = w.proc.pid
    w.proc.stdin.close()
    w.proc.wait(timeout=5)
    assert not alive(pid)


def test_worker_exits_when_its_parent_dies(tmp_path):
    script = f"""
import sys
sys.path.insert(0, {str(ADAPTERS.parent)!r})
from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend
from pathlib import Path
scripted = AdapterDescriptor.load(Path({str(ADAPTERS / "scripted")!r}))
b = SubprocessBackend(scripted, {str(tmp_path / "store")!r}, workers=1)
b.query("x")
print(b.pool._idle[0].proc.pid, flush=True)
import time; time.sleep(60)
"""
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker_pid = int(parent.stdout.readline())
    assert alive(worker_pid)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and alive(worker_pid):
        time.sleep(0.05)
    assert not alive(worker_pid)


def test_worker_and_oneshot_agree(tmp_path):
    d = AdapterDescriptor.load(ADAPTERS / "scripted")
    one = SubprocessBackend(d, tmp_path / "s")
    pooled = SubprocessBackend(d, tmp_path / "s", workers=2)
    try:
        assert one.get_capabilities() == pooled.get_capabilities()
        assert one.healthcheck() == pooled.healthcheck()
    finally:
        pooled.close()
