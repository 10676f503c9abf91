"""What an MCP client sees of the tools: memory_remember_many takes plain strings as the Python API does, its item
schema says what an object item holds, no capability is advertised that has nothing behind it, and a recalled hit
names the file it came from."""

import asyncio
import subprocess
import sys

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from test_mcp import data, session


def test_remember_many_takes_plain_strings_and_objects(tmp_path):
    async def script(s):
        stored = data(
            await s.call_tool(
                "memory_remember_many",
                {"items": ["the kettle is in the attic", {"content": "the ladder is in the shed", "thread": "house"}]},
            )
        )
        found = data(await s.call_tool("memory_recall", {"query": "kettle attic"}))
        tools = {t.name: t for t in (await s.list_tools()).tools}
        return stored, found, tools["memory_remember_many"].input_schema

    stored, found, schema = asyncio.run(session("--data-dir", str(tmp_path / "store"))(script))
    assert len(stored["remembered"]) == 2 and not any(r["degraded"] for r in stored["remembered"])
    assert found["hits"][0]["text"] == "the kettle is in the attic"
    item = schema["properties"]["items"]["items"]
    objects = [schema["$defs"][v["$ref"].rsplit("/", 1)[1]] for v in item["anyOf"] if "$ref" in v]
    assert {"type": "string"} in item["anyOf"] and objects[0]["required"] == ["content"]
    assert "content" in objects[0]["properties"]


def test_no_prompts_capability_is_advertised(tmp_path):
    async def script(s):
        return s.get_server_capabilities() if hasattr(s, "get_server_capabilities") else s.server_capabilities

    caps = asyncio.run(session("--backend", "null", "--data-dir", str(tmp_path / "s"))(script))
    assert caps.prompts is None and caps.tools is not None and caps.resources is not None


def test_metadata_where_and_update_over_mcp(tmp_path):
    async def script(s):
        first = data(await s.call_tool("memory_remember", {"content": "the map is in the car", "metadata": {"box": 1}}))
        await s.call_tool(
            "memory_remember_many", {"items": [{"content": "the map is in the desk", "metadata": {"box": 2}}]}
        )
        boxed = data(await s.call_tool("memory_recall", {"query": "map", "where": {"box": 1}}))
        moved = data(await s.call_tool("memory_update", {"id": first["id"], "metadata": {"box": 3}}))
        after = data(await s.call_tool("memory_recall", {"query": "map", "where": {"box": [3]}}))
        bad = await s.call_tool("memory_recall", {"query": "map", "where": {"box": {"$gt": 1}}})
        return boxed, moved, after, bad

    boxed, moved, after, bad = asyncio.run(session("--data-dir", str(tmp_path / "store"))(script))
    assert [h["text"] for h in boxed["hits"]] == ["the map is in the car"]
    assert not moved["degraded"] and [h["text"] for h in after["hits"]] == ["the map is in the car"]
    assert bad.is_error and "unsupported: where['box']: operator '$gt'" in bad.content[0].text


def test_a_recalled_hit_names_its_source_file(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "coffee.md").write_text("# Office coffee machine\n\nDescale it monthly.\n")
    store = ["--data-dir", str(tmp_path / "store")]
    subprocess.run([sys.executable, "-m", "memdock", "add", str(notes), *store], check=True, capture_output=True)

    async def script(s):
        return data(await s.call_tool("memory_recall", {"query": "coffee", "limit": 1}))

    found = asyncio.run(session(*store)(script))
    assert found["hits"][0]["provenance"]["source"] == "coffee.md"
