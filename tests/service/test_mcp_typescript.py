"""The official TypeScript MCP SDK (what most agent hosts embed) against `memdock mcp --http`: tools listed, notes
remembered with metadata and as plain strings, recalled with a where filter, updated, refused with a typed error,
listed and counted, a thread forgotten by its name; and 50 recalls during a burst of 50 remembers, each answered
with its hits.

Needs node and @modelcontextprotocol/sdk: MEMDOCK_NODE_MODULES names the node_modules folder holding it
(.ci/run installs it with npm); without either the test is skipped, saying which is missing."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from test_mcp_http import http_server

CLIENT = Path(__file__).parent / "node" / "ts_client.mjs"
LOAD = Path(__file__).parent / "node" / "ts_load.mjs"


def node_modules() -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    folder = os.environ.get("MEMDOCK_NODE_MODULES")
    if not folder or not (Path(folder) / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("set MEMDOCK_NODE_MODULES to a node_modules holding @modelcontextprotocol/sdk (npm install it)")
    return Path(folder)


def test_the_typescript_sdk_uses_every_new_tool(tmp_path):
    modules = node_modules()
    with http_server("--data-dir", str(tmp_path / "store")) as url:
        ran = subprocess.run(
            ["node", str(CLIENT), str(modules), url], capture_output=True, text=True, timeout=300, check=False
        )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert "memory_update" in out["tools"] and "prompts" not in out["capabilities"]
    assert len(out["many"]["remembered"]) == 2
    assert [h["text"] for h in out["recall"]["hits"]] == ["The office coffee machine is on floor 3"]
    assert out["updated"]["id"] == out["remembered"]["id"] and out["after"]["hits"]
    assert not out["big"]["degraded"] and len(out["big"]["hits"]) == 3
    assert "unsupported" in out["bad"]["error"]
    assert out["counted"]["count"] == len(out["listed"]["entries"]) == 4
    assert out["forgot"]["deleted"] and out["left"]["count"] == 3, "the thread was forgotten by its name"


@pytest.mark.slow
def test_typescript_recalls_during_a_burst_of_remembers_are_answered(tmp_path):
    modules = node_modules()
    with http_server("--data-dir", str(tmp_path / "store")) as url:
        ran = subprocess.run(
            ["node", str(LOAD), str(modules), url, "50", "50"], capture_output=True, text=True, timeout=600, check=False
        )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["inFlight"] > 0, "the recalls were meant to run during the burst"
    degraded = [r.get("reason") or r.get("error") for r in out["recalls"] if r.get("degraded") or "error" in r]
    assert not degraded, f"{len(degraded)} of 50 recalls degraded or failed: {degraded[:3]}"
    assert all("coffee machine" in r["hits"][0]["text"] for r in out["recalls"])
    assert len(out["remembered"]) == 50 and not [r for r in out["remembered"] if r.get("degraded") or "error" in r]
