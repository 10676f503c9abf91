"""`memdock mcp --http` answers each POST with one JSON body, not an SSE stream (memdock.mcp.http.http_app): a
client that accepts both gets `application/json` with the JSON-RPC result in it, for initialize and a tool call."""

import json

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import httpx2
from test_mcp_disconnect import HEADERS as ACCEPT
from test_mcp_disconnect import INIT
from test_mcp_http import http_server


def _json(response: httpx2.Response) -> dict:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers["content-type"]
    return json.loads(response.text)


def test_a_tool_call_is_answered_with_one_json_body(tmp_path):
    with http_server("--data-dir", str(tmp_path / "store")) as url, httpx2.Client(timeout=120) as client:
        opened = client.post(url, json=INIT, headers=ACCEPT)
        assert _json(opened)["result"]["serverInfo"]["name"] == "memdock"
        session = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        ask = {"name": "memory_recall", "arguments": {"query": "zeppelin"}}
        answer = _json(
            client.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ask}, headers=session)
        )
    assert answer["id"] == 2
    assert answer["result"]["isError"] is False
    assert answer["result"]["structuredContent"]["hits"] == []
