"""The runner against a hostile adapter (tests/adapters/hostile.py): no write through a planted link, no hang on
a FIFO, no unbounded read, no process outliving the call, no result lost to a child holding stdout, and a
flood of stdout garbage read in linear time with what was dropped counted."""

import json
import os
import signal
from pathlib import Path

import pytest

from memdock.errors import BackendError
from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend

ADAPTERS = Path(__file__).resolve().parents[1] / "adapters"


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return state[state.rindex(")") + 2] == "Z"


@pytest.fixture
def hostile(tmp_path):
    opened, pid_files = [], []

    def make(attack, *, config=None, store=None, **kw):
        b = SubprocessBackend(
            AdapterDescriptor.load(ADAPTERS / f"hostile-{attack}"),
            store or tmp_path / f"store-{attack}",
            config=config or {},
            retries=0,
            **kw,
        )
        opened.append(b)
        pid_files.extend([b.store.data_dir / "daemon.pid", b.store.data_dir / "holder.pid"])
        return b

    yield make
    for b in opened:
        b.close()
    for f in pid_files:  # a failing run must not leave its daemon on the machine
        if f.exists() and not gone(pid := int(f.read_text())):
            os.kill(pid, signal.SIGKILL)


def test_planted_temp_links_do_not_redirect_the_redacted_result(hostile, tmp_path):
    victim = tmp_path / "thesis.docx"
    victim.write_bytes(b"the user's only copy\n")
    b = hostile("tmp-symlink", config={"victim": str(victim)}, env={**os.environ, "HOSTILE_TOKEN": "tok-5e1f9a77c2"})
    assert b.query("x").reason == "***"
    assert victim.read_bytes() == b"the user's only copy\n"


@pytest.mark.parametrize("target", ["victim", "/dev/zero"])
def test_result_that_is_a_symlink_is_refused_unread(hostile, tmp_path, target):
    victim = tmp_path / "victim.json"
    victim.write_bytes(b'{"not": "a response"}')
    path = str(victim) if target == "victim" else target
    with pytest.raises(BackendError, match="is a symbolic link; memdock never follows one"):
        hostile("result-symlink", config={"target": path}).query("x")
    assert victim.read_bytes() == b'{"not": "a response"}'


@pytest.mark.timeout(120)
def test_fifo_result_is_a_protocol_error_not_a_hang(hostile):
    with pytest.raises(BackendError, match="result file .* is a FIFO, not a regular file"):
        hostile("result-fifo").query("x")


def test_result_over_the_default_cap_is_refused_before_it_is_read(hostile):
    size = 300 * 1024 * 1024  # sparse: no disk, and never read
    with pytest.raises(BackendError, match=rf"is {size} bytes, over the cap of {256 * 1024 * 1024} bytes") as ei:
        hostile("result-sparse", config={"size": size}).query("x")
    assert ei.value.details["size"] == size


def test_result_over_the_adapters_own_cap(hostile):
    with pytest.raises(BackendError, match=r"over the cap of 4096 bytes \(limits.max_result_bytes in adapter.json\)"):
        hostile("result-big", config={"size": 8192}).query("x")
    assert hostile("result-big", config={"size": 1000}, store=None).query("x").reason == "x" * 1000


def test_worker_result_line_over_the_cap_stops_the_worker(hostile):
    b = hostile("worker-big-line", config={"size": 200_000}, workers=1)
    with pytest.raises(BackendError, match="a response line passed the cap of 65536 bytes"):
        b.query("x")
    small = hostile("worker-big-line", config={"size": 1000}, workers=1)
    assert small.query("x").reason == "x" * 1000


def test_a_workers_planted_log_link_is_not_followed_by_the_next_worker(hostile, tmp_path):
    victim = tmp_path / "notes.txt"
    victim.write_bytes(b"mine\n")
    for _ in range(2):
        b = hostile("plant-log", config={"victim": str(victim)}, workers=1)
        assert b.query("x").hits == []
        b.close()
    assert victim.read_bytes() == b"mine\n"


def test_daemon_does_not_outlive_the_call(hostile):
    b = hostile("daemon")
    assert b.query("x").hits == []
    pid = int((b.store.data_dir / "daemon.pid").read_text())
    assert gone(pid)
    assert b.last_call.survivors == 1


def test_daemon_of_a_worker_lives_with_the_worker_and_dies_with_it(hostile):
    b = hostile("daemon", workers=1)
    assert b.query("x").hits == []
    pid = int((b.store.data_dir / "daemon.pid").read_text())
    assert not gone(pid)
    b.close()
    assert gone(pid)


def test_child_holding_stdout_does_not_cost_a_valid_result(hostile):
    b = hostile("stdout-holder", timeouts={"idle": 30, "query": 120})
    assert b.query("x").hits == []
    assert gone(int((b.store.data_dir / "holder.pid").read_text()))
    assert b.last_call.survivors == 1


def test_idle_clock_stops_when_the_adapter_exits_its_grace_bounds_the_rest(hostile):
    b = hostile("stdout-holder", timeouts={"idle": 3, "exit_grace": 6, "query": 120})
    assert b.query("x").hits == []
    assert b.last_call.survivors == 1


def test_stdout_flood_is_dropped_counted_and_the_result_kept(hostile):
    garbage_mb, long_bytes = 50, 17 * 1024 * 1024  # the line cap is 16 MiB
    b = hostile("stdout-flood", config={"garbage_mb": garbage_mb, "long_bytes": long_bytes})
    assert b.query("x").hits == []
    rec = b.last_call
    lines = garbage_mb * 80_000
    assert rec.quarantined == lines + 1
    assert rec.overlong == 1
    assert rec.dropped_bytes == lines * len("garbage line") + long_bytes
    assert rec.quarantine_samples[0] == "garbage line"


def test_a_failed_calls_error_reports_what_stdout_lost(hostile):
    b = hostile("stdout-flood", config={"garbage_mb": 1, "long_bytes": 17 * 1024 * 1024, "fail": True})
    with pytest.raises(BackendError, match="exited with code 7") as ei:
        b.query("x")
    assert ei.value.details["stdout_dropped"] == {
        "lines": 80_001,
        "overlong_lines": 1,
        "bytes": 80_000 * len("garbage line") + 17 * 1024 * 1024,
    }


def test_doctor_says_how_descendants_are_ended(capsys):
    from memdock.cli.main import main

    assert main(["doctor", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["descendants"].startswith(
        "enforced: each call runs under a shepherd process that is a child subreaper"
    )
