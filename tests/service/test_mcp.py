"""A real MCP client (the official SDK) starts `memdock mcp` over stdio and calls every tool."""

import asyncio
import json
import os
import shutil
import sys
import time

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from support.service_helpers import SCRIPTED
from test_reindex_origins import LINES, deleted, import_, index, thread_of, write_jsonl

import memdock

TOOLS = {
    "memory_recall",
    "memory_search_nodes",
    "memory_search_facts",
    "memory_search_episodes",
    "memory_get_node",
    "memory_get_edge",
    "memory_remember",
    "memory_remember_many",
    "memory_update",
    "memory_forget",
    "memory_status",
    "memory_list",
    "memory_count",
}


def session(*args: str, env: dict | None = None):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memdock", "mcp", *args], env={**os.environ, **(env or {})}
    )

    async def run(script):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return await script(s)

    return run


def data(result) -> dict:
    assert not _is_error(result), _text(result)
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    return structured if structured is not None else json.loads(_text(result))


def _is_error(result) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def _text(result) -> str:
    return result.content[0].text if result.content else ""


def test_every_tool_against_sqlite(sqlite_store, tmp_path):
    async def script(s):
        listed = await s.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert set(tools) == TOOLS
        for t in tools.values():
            assert t.description and len(t.description) > 30
        schema = (
            tools["memory_recall"].input_schema
            if hasattr(tools["memory_recall"], "input_schema")
            else tools["memory_recall"].inputSchema
        )
        assert schema["required"] == ["query"] and "limit" in schema["properties"]

        out = {"query": data(await s.call_tool("memory_recall", {"query": "thundering herd", "limit": 3}))}
        out["filtered"] = data(await s.call_tool("memory_recall", {"query": "the", "role": "critic", "limit": 10}))
        out["nodes"] = data(await s.call_tool("memory_search_nodes", {"query": "onboarding"}))
        out["facts"] = data(await s.call_tool("memory_search_facts", {"query": "migrate_v2"}))
        out["episodes"] = data(await s.call_tool("memory_search_episodes", {"query": "staging approval"}))
        entry = out["episodes"]["hits"][0]["id"]
        out["node"] = data(await s.call_tool("memory_get_node", {"id": entry}))
        out["edge"] = data(await s.call_tool("memory_get_edge", {"id": out["facts"]["hits"][0]["id"]}))
        out["remember"] = data(
            await s.call_tool(
                "memory_remember",
                {
                    "content": "The on-call rotation moves to a weekly schedule in June.",
                    "thread": "ops",
                    "author": "devon",
                },
            )
        )
        out["recall"] = data(await s.call_tool("memory_recall", {"query": "on-call rotation weekly"}))
        by_name = {"query": "on-call rotation weekly", "thread": "ops"}
        out["by_name"] = data(await s.call_tool("memory_recall", by_name))
        out["by_id"] = data(await s.call_tool("memory_recall", {**by_name, "thread": out["remember"]["thread_id"]}))
        out["other_thread"] = data(await s.call_tool("memory_recall", {**by_name, "thread": "not-ops"}))
        out["episodes_by_name"] = data(
            await s.call_tool("memory_search_episodes", {"query": "on-call rotation", "thread": ["ops"]})
        )
        out["many"] = data(
            await s.call_tool(
                "memory_remember_many",
                {
                    "items": [
                        {"content": "The pager moves to Opsgenie.", "thread": "ops"},
                        {"content": "Lunch at noon."},
                    ]
                },
            )
        )
        out["annotations"] = {t.name: t.annotations for t in tools.values()}
        out["forget"] = data(await s.call_tool("memory_forget", {"ids": [out["remember"]["id"]]}))
        out["after"] = data(await s.call_tool("memory_recall", {"query": "on-call rotation weekly"}))
        out["status"] = data(await s.call_tool("memory_status", {}))
        out["bad"] = await s.call_tool("memory_recall", {"query": " "})
        twice = {"content": "A note remembered twice.", "thread": "repeat"}
        out["twice"] = [data(await s.call_tool("memory_remember", twice))["id"] for _ in range(2)]
        return out

    store = tmp_path / "store"
    shutil.copytree(sqlite_store, store)
    out = asyncio.run(session("--data-dir", str(store))(script))
    assert out["remember"]["thread_id"].startswith("thread:ops:")
    for key in ("by_name", "by_id"):
        assert [h["provenance"]["entry_id"] for h in out[key]["hits"]] == [out["remember"]["id"]], key
    assert out["other_thread"]["hits"] == []
    assert [h["id"] for h in out["episodes_by_name"]["hits"]] == [out["remember"]["id"]]
    many = out["many"]["remembered"]
    assert [r["thread_id"] for r in many] == [out["remember"]["thread_id"], "thread:memory:19ca383b"]
    assert all(r["id"].startswith("entry:") and not r["degraded"] for r in many)
    notes = out["annotations"]
    assert notes["memory_forget"].destructive_hint is True and notes["memory_forget"].read_only_hint is False
    for name in ("memory_recall", "memory_search_facts", "memory_get_node", "memory_status"):
        assert notes[name].read_only_hint is True, name
    assert notes["memory_remember"].read_only_hint is False and notes["memory_remember"].destructive_hint is False
    read_only = ["memory_recall", "memory_search_nodes", "memory_search_facts", "memory_search_episodes"]
    for name in [*read_only, "memory_get_node", "memory_get_edge", "memory_status"]:
        assert (notes[name].read_only_hint, notes[name].idempotent_hint) == (True, True), name
    assert notes["memory_forget"].idempotent_hint is True  # forgetting an id again only reports it not found
    # an update overwrites the entry's text: a client that runs non-destructive tools unasked must ask first
    assert (notes["memory_update"].destructive_hint, notes["memory_update"].read_only_hint) == (True, False)
    assert len(set(out["twice"])) == 2  # so remembering is not idempotent, and says so
    for name in ("memory_remember", "memory_remember_many"):
        assert notes[name].idempotent_hint is False and notes[name].destructive_hint is False, name
    assert "Cache stampede" in out["query"]["hits"][0]["text"] and not out["query"]["degraded"]
    assert {h["extra"]["role"] for h in out["filtered"]["hits"]} == {"critic"}
    assert any(h["kind"] == "thread" for h in out["nodes"]["hits"])
    assert "mentions" in out["facts"]["hits"][0]["text"]
    assert out["episodes"]["hits"][0]["kind"] == "episode"
    assert out["node"]["item"]["id"] == out["episodes"]["hits"][0]["id"] and out["node"]["item"]["extra"]["edges"]
    assert out["edge"]["item"]["kind"] == "fact"
    assert out["remember"]["id"].startswith("entry:") and out["remember"]["indexed"]["chunk"] == 1
    assert out["recall"]["hits"][0]["provenance"]["entry_id"] == out["remember"]["id"]
    assert out["remember"]["id"] in out["forget"]["deleted"]
    assert all(h["provenance"]["entry_id"] != out["remember"]["id"] for h in out["after"]["hits"])
    assert out["status"]["backend"] == "sqlite" and out["status"]["health"]["ok"]
    assert _is_error(out["bad"]) and "invalid_input: query is empty" in _text(out["bad"])


def test_every_tool_against_null_answers_degraded_not_errors(tmp_path):
    calls = [
        ("memory_recall", {"query": "x"}),
        ("memory_search_nodes", {"query": "x"}),
        ("memory_search_facts", {"query": "x"}),
        ("memory_search_episodes", {"query": "x"}),
        ("memory_get_node", {"id": "n"}),
        ("memory_get_edge", {"id": "e"}),
        ("memory_remember", {"content": "a note"}),
    ]

    async def script(s):
        return [(name, await s.call_tool(name, args)) for name, args in calls]

    for name, result in asyncio.run(session("--backend", "null", "--data-dir", str(tmp_path / "s"))(script)):
        body = data(result)
        assert body["degraded"] is True and "stores nothing" in body["reason"], name
        assert body.get("hits", []) == [] and body.get("item") is None, name


def test_a_hanging_backend_answers_within_the_deadline(tmp_path):
    async def script(s):
        started = time.monotonic()
        result = await s.call_tool("memory_recall", {"query": "anything"})
        return result, time.monotonic() - started

    run = session(
        "--backend",
        str(SCRIPTED),
        "--data-dir",
        str(tmp_path / "s"),
        "--deadline",
        "2",
        "-c",
        "behavior=silent",
        "-c",
        "seconds=300",
    )
    result, elapsed = asyncio.run(run(script))
    body = data(result)
    assert body["degraded"] and body["hits"] == [] and "deadline" in body["reason"]
    assert elapsed < 2 + 10, f"answered after {elapsed:.1f}s"


def test_a_transient_failure_is_retried_and_succeeds(tmp_path):
    async def script(s):
        return await s.call_tool("memory_recall", {"query": "anything"})

    run = session("--backend", str(SCRIPTED), "--data-dir", str(tmp_path / "s"), "-c", "behavior=transient_once")
    body = data(asyncio.run(run(script)))
    assert body["degraded"] is False and body["hits"] == []
    assert (tmp_path / "s" / "data" / "marker-transient_once").exists()


def test_a_note_remembered_over_mcp_survives_a_reindex(tmp_path, capfd):
    """Re-indexing the bundle that holds the note's thread keeps the note (see test_reindex_origins.py).
    capfd, not capsys: the MCP client hands the server process sys.stderr, which needs a file descriptor."""
    store = tmp_path / "store"
    src = write_jsonl(tmp_path / "src", LINES)
    corpus = import_(src, tmp_path / "corpus")
    index(corpus, store, capfd)
    note = {"content": "the quokka census moves to thursday", "thread": thread_of(corpus), "author": "cy"}

    async def remember(s):
        return data(await s.call_tool("memory_remember", note))

    async def recall(s):
        return data(await s.call_tool("memory_recall", {"query": "quokka census"}))

    remembered = asyncio.run(session("--data-dir", str(store))(remember))
    assert not remembered["degraded"]
    again = index(corpus, store, capfd)
    assert deleted(again) == 0, again
    hits = asyncio.run(session("--data-dir", str(store))(recall))["hits"]
    assert [h["provenance"]["entry_id"] for h in hits] == [remembered["id"]]


MCP_BAD = [
    (
        "memory_remember",
        {"content": "a note", "time": "0001-01-01T00:00:00+14:00"},
        "invalid_input: time 0001-01-01T00:00:00+14:00 is outside the years 1-9999",
    ),
    (
        "memory_remember",
        {"content": "a note", "thread": "thread:has spaces"},
        "invalid_input: thread 'thread:has spaces'",
    ),
    (
        "memory_remember",
        {"content": "a note", "time": "soon"},
        "invalid_input: time 'soon' is not an ISO 8601 date-time",
    ),
    ("memory_remember", {"content": "a note", "thread": 123}, "thread"),
    ("memory_remember", {"content": "a note", "time": 12345}, "time"),
    ("memory_recall", {"query": "zebra", "since": "5"}, "invalid_input: since '5' is not an ISO 8601 date-time"),
    (
        "memory_recall",
        {"query": "zebra", "until": "9999-12-31T23:00:00-14:00"},
        "invalid_input: until 9999-12-31T23:00:00-14:00 is outside",
    ),
    ("memory_recall", {"query": "zebra", "limit": 1.5}, "limit"),
    ("memory_recall", {"query": "zebra", "thread": ["thread:x", ""]}, "invalid_input: thread is empty"),
    ("memory_recall", {"query": "zebra", "thread_ids": ["thread:x"]}, "thread_ids"),
    ("memory_recall", {"query": "zebra", "roles": ["critic"]}, "roles"),
    ("memory_search_facts", {"query": "zebra", "group_ids": ["x"]}, "group_ids"),
    ("memory_remember_many", {"items": [{"content": "ok"}, {"text": "no content"}]}, "items.1.RememberItem.text"),
    ("memory_remember_many", {"items": [{"content": "ok"}, 5]}, "items.1"),
    ("memory_remember_many", {"items": [{"content": "ok"}, {"content": " "}]}, "items[1] content is empty"),
    ("memory_forget", {"ids": ["e" * 257]}, "invalid_input: ids is 257 characters"),
]


def test_bad_tool_arguments_are_tool_errors_naming_the_argument(sqlite_store):
    async def script(s):
        answers = [await s.call_tool(name, args) for name, args, _ in MCP_BAD]
        return answers, await s.call_tool("memory_recall", {"query": "thundering herd", "limit": 1})

    answers, after = asyncio.run(session("--data-dir", str(sqlite_store))(script))
    for (name, args, words), result in zip(MCP_BAD, answers):
        assert _is_error(result), (name, args, _text(result))
        assert words in _text(result), (name, args, _text(result))
    assert data(after)["hits"], "the server kept serving"


def test_the_server_reports_the_package_version(tmp_path):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memdock", "mcp", "--backend", "null", "--data-dir", str(tmp_path / "s")]
    )

    async def script():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            return await s.initialize()

    info = asyncio.run(script())
    server = getattr(info, "server_info", None) or info.serverInfo
    assert (server.name, server.version) == ("memdock", memdock.__version__)


def test_resources_list_threads_and_a_threads_entries(tmp_path):
    async def script(s):
        notes = (("first ops note", "ops", "01"), ("second ops note", "ops", "02"), ("a design note", "design", "03"))
        for note, thread, day in notes:
            data(await s.call_tool("memory_remember", {"content": note, "thread": thread, "time": f"2026-03-{day}"}))
        listed = [str(r.uri) for r in (await s.list_resources()).resources]
        templates = [t.uri_template for t in (await s.list_resource_templates()).resource_templates]
        threads = json.loads((await s.read_resource("memdock://threads")).contents[0].text)
        by_name = json.loads((await s.read_resource("memdock://threads/ops")).contents[0].text)
        ops_id = next(t["thread_id"] for t in threads if t["thread_id"].startswith("thread:ops:"))
        by_id = json.loads((await s.read_resource(f"memdock://threads/{ops_id}")).contents[0].text)
        unknown = json.loads((await s.read_resource("memdock://threads/no-such-thread")).contents[0].text)
        try:
            await s.read_resource("memdock://threads/%20")
            blank = "answered"
        except Exception as exc:
            blank = str(exc)
        return listed, templates, threads, by_name, by_id, unknown, blank

    listed, templates, threads, by_name, by_id, unknown, blank = asyncio.run(
        session("--data-dir", str(tmp_path / "s"))(script)
    )
    assert "memdock://threads" in listed and "memdock://threads/{thread}" in templates
    assert sorted(t["entries"] for t in threads) == [1, 2]
    assert [e["text"] for e in by_name] == ["first ops note", "second ops note"] and by_name == by_id
    assert unknown == []
    assert blank.startswith("invalid_input: thread") and "empty" in blank, blank  # the reason, not a generic error
