"""The real OpenMemory API server (mem0's openmemory/api, run from its own code) on loopback, for the gated tests.

Set MEMDOCK_OPENMEMORY_API_DIR to a checkout of openmemory/api (read at mem0 commit
540d23d610fcdc9a1f8795875c013af67d35ae93) and MEMDOCK_OPENMEMORY_PYTHON to an interpreter with its
requirements.txt plus `faiss-cpu` and `mcp[cli]<2` (mcp 2 renamed the FastMCP the server imports). The server
runs offline: SQLite in a temporary folder, mem0's FAISS store there too, its LLM, embedder and the categorizer's
OpenAI client all pointed at an OpenAI-compatible stand-in on loopback (1536-d embeddings, FAISS's fixed size).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "mem0"), str(HERE.parent / "graphiti")]

from fake_llm import respond  # noqa: E402  (fills any structured-output schema: the categorizer's)
from fake_mem0_llm import EXTRACTOR_MARK, MemoryExtractor  # noqa: E402

API_DIR = os.environ.get("MEMDOCK_OPENMEMORY_API_DIR")
PYTHON = os.environ.get("MEMDOCK_OPENMEMORY_PYTHON")
USER = "memdock-it"


def stand_in() -> Any:
    extractor = MemoryExtractor()

    def chat(body: dict[str, Any]) -> Any:
        system = str((body.get("messages") or [{}])[0].get("content", ""))
        return extractor(body) if EXTRACTOR_MARK in system else respond(body)

    return chat


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RealOpenMemory:
    def __init__(self, folder: Path, llm_url: str):
        shutil.copytree(API_DIR, folder / "api")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(folder),
            "USER": USER,
            "DATABASE_URL": f"sqlite:///{folder}/openmemory.db",
            "FAISS_PATH": str(folder / "faiss"),
            "LLM_PROVIDER": "openai",
            "LLM_MODEL": "loopback",
            "LLM_API_KEY": "unused",
            "LLM_BASE_URL": llm_url,
            "EMBEDDER_PROVIDER": "openai",
            "EMBEDDER_MODEL": "hash-1536",
            "EMBEDDER_API_KEY": "unused",
            "EMBEDDER_BASE_URL": llm_url,
            "OPENAI_API_KEY": "unused",
            "OPENAI_BASE_URL": llm_url,
            "MEM0_TELEMETRY": "false",
            "MEM0_DIR": str(folder / "mem0"),
        }
        self.log = open(folder / "server.log", "wb")  # noqa: SIM115  (the server writes it until stop())
        self.proc = subprocess.Popen(
            [PYTHON or sys.executable, "-m", "uvicorn", "main:app", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=folder / "api",
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"OpenMemory exited with {self.proc.returncode}; see {folder / 'server.log'}")
            try:
                urllib.request.urlopen(self.url + "/api/v1/apps/", timeout=2).read()
                return
            except OSError:
                time.sleep(0.5)
        self.close()
        raise RuntimeError(f"OpenMemory did not answer within 180 s; see {folder / 'server.log'}")

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()
