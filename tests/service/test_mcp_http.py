"""`memdock mcp --http`: real MCP clients (the official SDK) over real HTTP, several sessions at once sharing one
memory; a bearer token is required off loopback and, once set, on every request."""

import asyncio
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from test_mcp import data

from memdock.errors import ConfigError
from memdock.mcp.http import parse_address, required_token

TOKEN = "t0ken-for-the-tests-0123456789"


@contextmanager
def http_server(*args: str, env: dict | None = None, address: str = "127.0.0.1:0"):
    """`memdock mcp --http ADDRESS ARGS`; yields its URL, read from the line it prints once listening."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdock", "mcp", "--http", address, *args],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        for line in proc.stderr:
            if "memdock MCP server on " in line:
                yield line.split(" on ", 1)[1].strip()
                break
        else:
            raise AssertionError(f"the server exited ({proc.wait()}) before listening")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


async def call(url: str, script, token: str | None = TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await script(session)


def test_concurrent_sessions_share_one_memory(tmp_path):
    async def agent(url: str, n: int):
        async def script(s):
            note = f"agent {n} parked the zeppelin number {n} in hangar {n}"
            remembered = data(await s.call_tool("memory_remember", {"content": note, "thread": "hangar"}))
            return remembered["id"]

        return await call(url, script)

    async def reader(url: str):
        async def script(s):
            return data(
                await s.call_tool("memory_recall", {"query": "zeppelin hangar", "thread": "hangar", "limit": 10})
            )

        return await call(url, script)

    async def scenario(url: str):
        ids = await asyncio.gather(*(agent(url, n) for n in range(4)))
        return ids, await reader(url)

    with http_server("--data-dir", str(tmp_path / "store"), env={"MEMDOCK_MCP_TOKEN": TOKEN}) as url:
        ids, recalled = asyncio.run(scenario(url))
    assert len(set(ids)) == 4
    assert {h["provenance"]["entry_id"] for h in recalled["hits"]} == set(ids)


def test_a_request_without_the_token_is_refused(tmp_path):
    with http_server("--backend", "null", "--data-dir", str(tmp_path / "s"), env={"MEMDOCK_MCP_TOKEN": TOKEN}) as url:
        plain = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=60)
        wrong = httpx2.post(url, json={}, headers={"Authorization": "Bearer nope"}, timeout=60)
        status = asyncio.run(call(url, lambda s: s.call_tool("memory_status", {})))
    assert plain.status_code == wrong.status_code == 401
    assert plain.headers["www-authenticate"].startswith("Bearer")
    assert data(status)["backend"] == "null"


def test_off_loopback_needs_a_token(tmp_path):
    refused = subprocess.run(
        [sys.executable, "-m", "memdock", "mcp", "--http", "0.0.0.0:0", "--backend", "null"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "MEMDOCK_MCP_TOKEN"},
        timeout=120,
    )
    assert refused.returncode == 3 and "not loopback, without a bearer token" in refused.stderr
    with pytest.raises(ConfigError, match="not loopback"):
        required_token("10.0.0.5", {})
    with pytest.raises(ConfigError, match="at least 16"):
        required_token("127.0.0.1", {"MEMDOCK_MCP_TOKEN": "short"})
    assert required_token("127.0.0.1", {}) is None and required_token("::1", {}) is None
    assert required_token("0.0.0.0", {"MEMDOCK_MCP_TOKEN": TOKEN}) == TOKEN


@pytest.mark.parametrize(
    "text,expected",
    [("127.0.0.1:8765", ("127.0.0.1", 8765)), (":9000", ("127.0.0.1", 9000)), ("9000", ("127.0.0.1", 9000)),
     ("[::1]:9000", ("::1", 9000)), ("0.0.0.0:0", ("0.0.0.0", 0))],
)  # fmt: skip
def test_addresses(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["host:port", "127.0.0.1:70000", "", "localhost:"])
def test_bad_addresses_name_the_option(text):
    with pytest.raises(Exception, match="--http"):
        parse_address(text)
