"""Issue 33, broken 2 and the HTTP server's ugly cases: `memdock mcp --http` on any loopback address answers
only requests addressed to it (DNS rebinding), and slow or half-open connections cannot hold it.

Real servers on 127.0.0.2 (and 127.0.0.1), real HTTP requests, real sockets.
"""

import asyncio
import socket
from urllib.parse import urlsplit

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import httpx2
from test_mcp import data
from test_mcp_http import call, http_server

from memdock.mcp.guard import MAX_PENDING_HEADERS, allowed_hosts

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def server_on(address: str, tmp_path):
    return http_server("--backend", "null", "--data-dir", str(tmp_path / "store"), address=address)


def post(url: str, **headers: str) -> httpx2.Response:
    return httpx2.post(url, json=INIT, headers={**ACCEPT, **headers}, timeout=60)


@pytest.mark.parametrize("address", ["127.0.0.2:0", "127.0.0.1:0"])
def test_foreign_host_and_origin_are_refused_on_every_loopback_bind(tmp_path, address):
    with server_on(address, tmp_path) as url:
        netloc = urlsplit(url).netloc
        port = urlsplit(url).port
        foreign_host = post(url, Host=f"rebound.example:{port}")
        foreign_origin = post(url, Origin="http://rebound.example")
        both = post(url, Host=f"rebound.example:{port}", Origin=f"http://rebound.example:{port}")
        null = post(url, Origin="null")
        other_port = post(url, Origin=f"http://{urlsplit(url).hostname}:{port + 1}")
        own = post(url, Origin=f"http://{netloc}")
        plain = post(url)
        status = asyncio.run(call(url, lambda s: s.call_tool("memory_status", {}), token=None))
    assert foreign_host.status_code == 421
    assert both.status_code == 421
    assert foreign_origin.status_code == null.status_code == other_port.status_code == 403
    assert "mcp-session-id" not in foreign_origin.headers and "mcp-session-id" not in null.headers
    assert own.status_code == plain.status_code == 200, (own.text, plain.text)
    assert data(status)["backend"] == "null"


def test_the_allowed_hosts_follow_the_bound_address():
    assert allowed_hosts(("127.0.0.2", 9000)) == {"127.0.0.2:9000", "localhost:9000"}
    assert allowed_hosts(("::1", 9000)) == {"[::1]:9000", "localhost:9000"}
    assert allowed_hosts(("10.0.0.5", 9000)) is None


def _open(host: str, port: int, partial: bytes) -> socket.socket:
    s = socket.create_connection((host, port), timeout=120)
    s.sendall(partial)
    return s


def _closed(s: socket.socket) -> bool:
    """True when the server has closed S (reads EOF or a reset); waits up to S's timeout."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_stalled_header_is_closed(tmp_path):
    with server_on("127.0.0.2:0", tmp_path) as url:
        parts = urlsplit(url)
        s = _open(parts.hostname, parts.port, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.2\r\n")
        try:
            assert _closed(s)
        finally:
            s.close()


def test_half_open_connections_do_not_lock_a_real_client_out(tmp_path):
    flood = MAX_PENDING_HEADERS + 72
    with server_on("127.0.0.2:0", tmp_path) as url:
        parts = urlsplit(url)
        held = [_open(parts.hostname, parts.port, b"GET /mcp HTTP/1.1\r\nX: ") for _ in range(flood)]
        try:
            status = asyncio.run(call(url, lambda s: s.call_tool("memory_status", {}), token=None))
            for s in held[: flood - MAX_PENDING_HEADERS]:
                s.settimeout(60)
            oldest_closed = sum(_closed(s) for s in held[: flood - MAX_PENDING_HEADERS])
        finally:
            for s in held:
                s.close()
    assert data(status)["backend"] == "null"
    assert oldest_closed == flood - MAX_PENDING_HEADERS
