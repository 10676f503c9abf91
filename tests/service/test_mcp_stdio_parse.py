"""Issue 33, ugly: an MCP stdio request that is not valid JSON (a lone surrogate escape) gets a JSON-RPC parse
error, and the server goes on answering; before, it was dropped and the client waited for ever."""

import json
import os
import select
import subprocess
import sys

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from test_mcp_http_guard import INIT

SURROGATE = (
    r'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"a\ud800b"}}}'
)


def test_a_lone_surrogate_request_gets_a_parse_error(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdock", "mcp", "--backend", "null", "--data-dir", str(tmp_path / "s")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, "MEMDOCK_HOME": str(tmp_path / "home")},
    )  # fmt: skip

    def send(line: str) -> None:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()

    def answer() -> dict:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        assert ready, "no answer within 120 s"
        return json.loads(proc.stdout.readline())

    try:
        send(json.dumps(INIT))
        assert answer()["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(SURROGATE)
        error = answer()
        send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        pong = answer()
    finally:
        proc.kill()
        proc.wait()
    assert error["id"] is None and error["error"]["code"] == -32700, error
    assert pong == {"jsonrpc": "2.0", "id": 3, "result": {}}
