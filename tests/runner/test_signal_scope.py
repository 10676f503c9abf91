"""Issue 33, broken 7: an adapter must not stop or kill memdock. Where Landlock has scoping (ABI 6), both
sandboxes keep an adapter's signals inside its own call; where it has not, doctor says so.

tests/adapters/hostile-signaller sends the signal named in its query to memdock (its shepherd's parent) or to
a pid, and answers with what happened.
"""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdock.registry import AdapterDescriptor
from memdock.runner import landlock
from memdock.runner.backend import SubprocessBackend

SIGNALLER = Path(__file__).resolve().parents[1] / "adapters" / "hostile-signaller"

needs_scoping = pytest.mark.skipif(
    not landlock.scopes_signals(), reason=f"Landlock ABI {landlock.abi_version()} has no signal scoping (needs 6)"
)


@needs_scoping
@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("sandbox", [True, "strict"])
def test_a_sandboxed_adapter_cannot_signal_memdock(tmp_path, sandbox, workers):
    """SIGCONT is harmless to this test process if it gets through; it must not."""
    with SubprocessBackend(
        AdapterDescriptor.load(SIGNALLER), tmp_path / "store", sandbox=sandbox, workers=workers
    ) as b:
        to_pid = b.query(f"{os.getpid()}:SIGCONT").reason
        to_parent = b.query("memdock:SIGCONT").reason if sandbox is True else to_pid
    assert to_pid.startswith("denied: PermissionError"), to_pid
    assert to_parent.startswith("denied: PermissionError"), to_parent


@needs_scoping
def test_nor_a_bystander_process(tmp_path):
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        with SubprocessBackend(AdapterDescriptor.load(SIGNALLER), tmp_path / "store", sandbox="strict") as b:
            reason = b.query(f"{bystander.pid}:SIGKILL").reason
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
    assert reason.startswith("denied: PermissionError"), reason


def test_unsandboxed_the_signal_goes_through_as_documented(tmp_path):
    with SubprocessBackend(AdapterDescriptor.load(SIGNALLER), tmp_path / "store", sandbox="off") as b:
        assert b.query(f"{os.getpid()}:SIGCONT").reason == f"sent SIGCONT to {os.getpid()}"


@needs_scoping
def test_memdock_query_is_not_frozen_by_sigstop(tmp_path):
    (tmp_path / "store").mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "memdock", "query", "memdock:SIGSTOP", "-b", str(SIGNALLER), "--data-dir",
         str(tmp_path / "store"), "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["reason"].startswith("denied: PermissionError")


@needs_scoping
def test_a_worker_cannot_kill_the_mcp_http_server(tmp_path):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
    from test_mcp import data
    from test_mcp_http import call, http_server

    async def attack(s):
        first = data(await s.call_tool("memory_recall", {"query": "memdock:SIGKILL"}))
        return first, data(await s.call_tool("memory_status", {}))

    with http_server("-b", str(SIGNALLER), "--data-dir", str(tmp_path / "store")) as url:
        recalled, status = asyncio.run(call(url, attack, token=None))
        after = asyncio.run(call(url, lambda s: s.call_tool("memory_status", {}), token=None))
    assert "denied: PermissionError" in json.dumps(recalled), recalled
    assert status and data(after)


def test_doctor_says_whether_signals_are_scoped():
    out = subprocess.run(
        [sys.executable, "-m", "memdock", "doctor", "--json"], capture_output=True, text=True, timeout=300
    )
    signals = json.loads(out.stdout)["signals"]
    assert signals.startswith("enforced" if landlock.scopes_signals() else "not enforced"), signals
