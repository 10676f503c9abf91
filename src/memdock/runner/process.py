"""Starting an adapter process in its own group with a clean environment, and stopping it for sure."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import ConfigError
from . import landlock

ENV_ALLOWLIST = (
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TOKENIZERS_PARALLELISM",
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
)
_PR_SET_PDEATHSIG = 1


def adapter_env(parent: Mapping[str, str], declared: Sequence[str], tmpdir: Path) -> dict[str, str]:
    """The allowlist, plus what the adapter declares, plus a private TMPDIR; nothing else crosses."""
    env = {k: parent[k] for k in ENV_ALLOWLIST if k in parent}
    env.update({k: parent[k] for k in declared if k in parent})
    env.update({"TMPDIR": str(tmpdir), "PYTHONUNBUFFERED": "1"})
    env.setdefault("PATH", os.defpath)
    return env


def _preexec(writable: Sequence[str] | None, readable: Sequence[str] | None, die_with_parent: bool):
    def setup() -> None:
        if die_with_parent:
            import ctypes

            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if writable is not None:
            landlock.restrict(writable, readable)

    return setup


def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    writable: Sequence[Path] | None,
    readable: Sequence[str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    die_with_parent: bool = True,
) -> subprocess.Popen[bytes]:
    """Start ARGV as the leader of a new process group. writable=None runs it without Landlock; READABLE
    (strict sandbox) confines its reads to those paths and the writable ones."""
    paths = [str(p) for p in writable] if writable is not None else None
    try:
        return subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd),
            env=dict(env),
            start_new_session=True,
            preexec_fn=_preexec(paths, readable, die_with_parent),
            close_fds=True,
        )
    except subprocess.SubprocessError as exc:  # the sandbox could not be set up in the child: never run without it
        raise ConfigError(f"could not start {argv[0]} inside its sandbox (Landlock): {exc}; it was not run",
                          details={"sandbox": "strict" if readable is not None else "writes"}) from None


def stop(proc: subprocess.Popen[bytes], *, grace: float = 3.0) -> None:
    """SIGTERM the whole group, wait GRACE seconds, then SIGKILL it; reap the leader."""
    pgid = proc.pid
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc.poll() is not None and not group_alive(pgid):
                break
            time.sleep(0.02)
        else:
            continue
        break
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait for PROC to exit without Popen.wait's polling sleeps (a pidfd where the kernel has one)."""
    if proc.poll() is not None:
        return
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        proc.wait(timeout=timeout)
        return
    try:
        import select

        if not select.select([fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        proc.wait()
    finally:
        os.close(fd)
