"""Starting an adapter process in its own group with a clean environment, and stopping it for sure."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..errors import ConfigError
from . import landlock

ENV_ALLOWLIST = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TERM",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "TOKENIZERS_PARALLELISM",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def adapter_env(parent: Mapping[str, str], declared: Sequence[str], tmpdir: Path) -> dict[str, str]:
    """The allowlist, plus what the adapter declares, plus a private TMPDIR; nothing else crosses."""
    env = {k: parent[k] for k in ENV_ALLOWLIST if k in parent}
    env.update({k: parent[k] for k in declared if k in parent})
    env.update({"TMPDIR": str(tmpdir), "PYTHONUNBUFFERED": "1"})
    env.setdefault("PATH", os.defpath)
    return env


def _preexec(
    writable: Sequence[str] | None, readable: Sequence[str] | None, die_with_parent: bool
) -> Callable[[], None]:
    def setup() -> None:
        import ctypes

        prctl = ctypes.CDLL(None).prctl
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # for the shepherd: it survives exec; refused, the doctor says so
        if die_with_parent:
            prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the shepherd then stops the whole tree
        if writable is not None:
            landlock.restrict(writable, readable)

    return setup


SHEPHERD = Path(__file__).with_name("shepherd.py")
SHEPHERD_PROGRAM = (
    "-c",
    f"import sys;sys.path.insert(0,{str(SHEPHERD.parent)!r});import shepherd;del sys.path[0];"
    "shepherd.main(sys.argv[1:])",
)
"""How an interpreter runs the shepherd: imported, so its bytecode is cached (a script given by path is compiled
again at every start, a millisecond of each call), and under `-c`, so nothing of runner/ stays on the path."""
SHEPHERD_TERM_GRACE = 1.0


class AdapterProcess(subprocess.Popen[bytes]):
    """An adapter under its shepherd (runner/shepherd.py): pid is the shepherd's, which leads the process group,
    passes the adapter's exit status through, and leaves no descendant alive when it exits."""

    report_fd: int = -1
    _report: bytes = b""

    def read_report(self) -> bool | None:
        """Read what the shepherd reported so far. True once the adapter has exited; False when the report
        ended without saying so (the shepherd is gone); None while there is nothing more to know."""
        if self.report_fd < 0:
            return self.adapter_exited
        try:
            while chunk := os.read(self.report_fd, 4096):
                self._report += chunk
        except BlockingIOError:
            return True if self.adapter_exited else None
        return self.adapter_exited

    @property
    def adapter_exited(self) -> bool:
        return self._report.startswith(b"exited\n")

    def survivors(self) -> int | None:
        """How many processes the shepherd killed after the adapter exited (None before it reported)."""
        if self.report_fd < 0 or self.poll() is None:
            return None
        self.read_report()
        self.close_report()
        try:
            return int(json.loads(self._report.splitlines()[-1])["survivors"])
        except (ValueError, KeyError, TypeError, IndexError):
            return None

    def close_report(self) -> None:
        if self.report_fd >= 0:
            os.close(self.report_fd)
            self.report_fd = -1


_PLAIN_PYTHON_FLAGS = frozenset({"-I", "-S", "-E", "-s", "-u", "-B", "-O", "-OO", "-P", "-b", "-bb", "-q"})


def shepherd_argv(
    argv: Sequence[str], python: bool, *shepherd_args: str, module_path: Sequence[str | os.PathLike[str]] = ()
) -> list[str]:
    """The command that runs ARGV under the shepherd: inline in the adapter's own interpreter when ARGV is a
    Python script or `-m PACKAGE` (found in MODULE_PATH) run with flags that take no value, else exec'd by
    memdock's interpreter."""
    if python:
        i = 1
        while i < len(argv) and argv[i] in _PLAIN_PYTHON_FLAGS:
            i += 1
        if i + 1 < len(argv) and argv[i] == "-m":
            paths = os.pathsep.join(str(p) for p in module_path)
            return [*argv[:i], *SHEPHERD_PROGRAM, *shepherd_args, "module", paths, "--", *argv[i + 1 :]]
        if i < len(argv) and not argv[i].startswith("-") and os.path.isfile(argv[i]):
            return [*argv[:i], *SHEPHERD_PROGRAM, *shepherd_args, "inline", "--", *argv[i:]]
    return [sys.executable, "-I", "-S", *SHEPHERD_PROGRAM, *shepherd_args, "exec", "--", *argv]


def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    writable: Sequence[Path] | None,
    readable: Sequence[str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    die_with_parent: bool = True,
    exit_grace: float = 2.0,
    python: bool = False,
    module_path: Sequence[str | os.PathLike[str]] = (),
) -> AdapterProcess:
    """Start ARGV under a shepherd, as the leader of a new process group. writable=None runs it without Landlock;
    READABLE (strict sandbox) confines its reads to those paths and the writable ones.

    The shepherd leaves no descendant of ARGV alive: EXIT_GRACE seconds after ARGV exits, whatever it left
    is killed. PYTHON says ARGV is `INTERPRETER [FLAGS] SCRIPT ...` (or `-m PACKAGE`, found in MODULE_PATH),
    which the shepherd can run in its child without a second interpreter start."""
    paths = [str(p) for p in writable] if writable is not None else None
    report_r, report_w = os.pipe2(os.O_CLOEXEC)
    wrapped = shepherd_argv(
        argv, python, f"{exit_grace:g}", f"{SHEPHERD_TERM_GRACE:g}", str(report_w), module_path=module_path
    )
    try:
        proc = AdapterProcess(
            wrapped,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd),
            env=dict(env),
            start_new_session=True,
            preexec_fn=_preexec(paths, readable, die_with_parent),
            close_fds=True,
            pass_fds=(report_w,),
        )
    except subprocess.SubprocessError as exc:  # the sandbox could not be set up in the child: never run without it
        os.close(report_r)
        raise ConfigError(
            f"could not start {argv[0]} inside its sandbox (Landlock): {exc}; it was not run",
            details={"sandbox": "strict" if readable is not None else "writes"},
        ) from None
    except BaseException:
        os.close(report_r)
        raise
    finally:
        os.close(report_w)
    os.set_blocking(report_r, False)
    proc.report_fd = report_r
    return proc


@functools.cache
def descendant_control() -> str:
    """How this machine ends an adapter's descendants, for `memdock doctor`: found by having the shepherd run
    a shell that leaves a detached daemon, and seeing whether the shepherd caught and killed it."""
    detach = "(setsid sleep 60 </dev/null >/dev/null 2>&1 &) ; exit 0"
    proc = spawn(["sh", "-c", detach], env={"PATH": os.defpath}, cwd=Path("/"), writable=None, exit_grace=0)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        stop(proc)
    survivors = proc.survivors()
    if survivors is None:
        return f"unknown: the shepherd did not report (exit code {proc.returncode})"
    if survivors:
        return (
            "enforced: each call runs under a shepherd process that is a child subreaper (PR_SET_CHILD_SUBREAPER); "
            "whatever the adapter leaves running is killed when it exits (cgroups are not used)"
        )
    return (
        "partial: this kernel refuses PR_SET_CHILD_SUBREAPER; the adapter's process group is killed at the end of "
        "each call, but a daemon that called setsid can outlive it"
    )


def stop(proc: subprocess.Popen[bytes], *, grace: float = 3.0) -> None:
    """SIGTERM the whole group, wait GRACE seconds (at least as long as the shepherd gives the adapter's
    descendants outside the group), then SIGKILL it; reap the leader."""
    pgid = proc.pid
    for sig, wait in ((signal.SIGTERM, max(grace, SHEPHERD_TERM_GRACE + 1.0)), (signal.SIGKILL, 5.0)):
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
