"""Reliability of the runner against a misbehaving adapter: deadlines, exits, results, locks, logs, secrets."""

import os
import threading
import time
from pathlib import Path

import pytest

from memdock.errors import BackendError, InvalidInputError, TransientError, VersionError
from memdock.runner import landlock


def dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in state


def test_killed_adapter_leaves_no_process_of_its_group(scripted):
    b = scripted("spawn_and_hang", timeouts={"query": 2, "idle": 30}, retries=0)
    with pytest.raises(TransientError, match="did not finish within 2s"):
        b.query("x")
    data = b.store.data_dir
    adapter_pid, child_pid = int((data / "adapter.pid").read_text()), int((data / "grandchild.pid").read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not (dead(adapter_pid) and dead(child_pid)):
        time.sleep(0.05)
    assert dead(adapter_pid) and dead(child_pid)


def test_silent_past_idle_timeout_is_stopped(scripted):
    b = scripted("silent", config={"seconds": 30}, timeouts={"idle": 1, "query": 60}, retries=0)
    with pytest.raises(TransientError, match=r"went silent \(no progress\) for 1s"):
        b.query("x")


def test_slow_but_reporting_progress_is_not_stopped(scripted):
    b = scripted("slow_progress", config={"seconds": 2.5}, timeouts={"idle": 1})
    seen = []
    assert b.call("query", {"text": "x"}, on_progress=seen.append)["hits"] == []
    assert len(seen) >= 5


def test_exit_zero_without_result(scripted):
    with pytest.raises(BackendError, match="exited 0 without writing a result"):
        scripted("exit0_no_result", retries=0).query("x")


def test_result_breaking_its_schema(scripted):
    with pytest.raises(BackendError, match="breaks response.schema.json"):
        scripted("bad_schema").query("x")


def test_exit_code_without_envelope_maps_to_category(scripted):
    with pytest.raises(InvalidInputError, match="exited with code 4"):
        scripted("exit_4").query("x")


def test_two_writers_on_one_store_second_fails_with_lock_message(scripted, tmp_path):
    first = scripted("slow_progress", config={"seconds": 2}, store=tmp_path / "s")
    second = scripted("ok", store=tmp_path / "s", lock_timeout=0.3, retries=0)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", first.delete(["a"])))
    t.start()
    time.sleep(0.7)
    with pytest.raises(TransientError, match=r"is locked by another writer \(pid \d+\)"):
        second.delete(["b"])
    t.join()
    assert out["r"].deleted == []
    assert second.delete(["b"]).deleted == []


def test_megabytes_of_stderr_stay_bounded(scripted):
    b = scripted("stderr_flood", config={"seconds": 200}, retries=0)  # ~13 MB
    with pytest.raises(BackendError) as ei:
        b.query("x")
    log = Path(ei.value.details["work_dir"]) / "stderr.log"
    assert log.stat().st_size < 8 * 1024 * 1024 + 200
    assert "dropped past the" in log.read_text()[-200:]
    assert len(ei.value.details["stderr_tail"]) <= 4096


def test_secret_from_environment_never_appears_in_core_files_or_errors(scripted):
    secret = "sk-test-7d1e0c9a4b"
    b = scripted("echo_secret", env={**os.environ, "SCRIPTED_TOKEN": secret}, retries=0)
    with pytest.raises(TransientError) as ei:
        b.query("x")
    assert secret not in str(ei.value) and "***" in str(ei.value)
    assert secret not in repr(ei.value.details)
    for p in b.store.root.rglob("*"):
        if p.is_file():
            assert secret.encode() not in p.read_bytes(), p
    assert b.last_call.redactions >= 2


def test_environment_is_an_allowlist(scripted, monkeypatch):
    env = {**os.environ, "SCRIPTED_TOKEN": "abc123", "UNRELATED_SECRET": "zzz"}
    b = scripted("report_env", env=env)
    names = set(b.query("x").reason.split(","))
    assert "SCRIPTED_TOKEN" in names and "UNRELATED_SECRET" not in names
    assert "TMPDIR" in names


def test_stray_stdout_is_quarantined_not_parsed(scripted):
    b = scripted("stray")
    assert b.query("x").hits == []
    assert b.last_call.quarantined == 1
    assert b.last_call.quarantine_samples == ["hello from a library"]


def test_retryable_error_retried_once(scripted, tmp_path):
    assert scripted("transient_once", store=tmp_path / "a", backoff=0.01).query("x").hits == []
    with pytest.raises(TransientError, match="flaky"):
        scripted("transient_once", store=tmp_path / "b", retries=0).query("x")


def test_adapter_speaking_no_common_protocol(scripted):
    b = scripted("ok", config={"protocols": ["2.0"]})
    with pytest.raises(VersionError, match=r"speaks protocol 2\.0; memdock speaks 1\.0"):
        b.get_capabilities()


@pytest.mark.skipif(not landlock.abi_version(), reason="this kernel has no Landlock")
def test_landlock_blocks_writes_outside(scripted, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    with pytest.raises(BackendError, match="PermissionError"):
        scripted("write_outside", env=env).query("x")
    assert not (home / "scripted-outside.txt").exists()
    scripted("write_outside", env=env, sandbox=False, store=tmp_path / "s2").query("x")
    assert (home / "scripted-outside.txt").exists()
