"""Bad input and broken surroundings: an unreachable FalkorDB, a model endpoint that refuses or stalls,
thread ids full-text syntax chokes on, a 1 MB body, a leap second, and an adapter that dies holding its FalkorDB."""

import os
import signal
import time
from pathlib import Path

import pytest
from fake_llm import respond
from graphiti_support import backend, closed_port, gate, model_config, servers_under
from support.openai_loopback import OpenAILoopback

from memdock.bundle import BundleWriter
from memdock.errors import InvalidInputError, TransientError
from memdock.ids import content_hash

pytestmark = gate

KEY = "sk-test-graphiti-4b1d9e77c0ffee"
T0 = "2025-04-01T08:00:00Z"


def bundle(path, entries):
    """ENTRIES: (thread id, entry id, body)."""
    with BundleWriter(path, "chunks") as w:
        for thread in dict.fromkeys(t for t, _, _ in entries):
            w.write("thread", {"id": thread, "title": thread, "ingestion_time": T0})
        for i, (thread, eid, body) in enumerate(entries):
            w.write(
                "entry",
                {
                    "id": eid,
                    "thread_id": thread,
                    "position": i,
                    "body": body,
                    "author": "kit",
                    "ingestion_time": T0,
                    "event_time": T0,
                },
            )
            text = body[:2000]
            w.write(
                "chunk",
                {
                    "id": f"chunk:{eid}",
                    "entry_id": eid,
                    "thread_id": thread,
                    "position": 0,
                    "text": text,
                    "start": 0,
                    "end": len(text),
                    "token_count": len(text.split()),
                    "content_hash": content_hash(text),
                },
            )
    return path


ONE = [("thread:t", "entry:one", "Lena repaired the Rotterdam pump station.")]


def attempts(b, operation):
    return sum(1 for c in b.calls if c.operation == operation)


def test_unreachable_falkordb(tmp_path, llm):
    port = closed_port()
    config = {
        **model_config(llm.base_url),
        "falkordb_host": "127.0.0.1",
        "falkordb_port": port,
        "falkordb_connect_timeout_s": 0.5,
    }
    b = backend(tmp_path / "store", config)
    status = b.healthcheck()
    assert not status.ok and f"127.0.0.1:{port}" in status.message and "unreachable" in status.message
    with pytest.raises(TransientError) as err:
        b.index(bundle(tmp_path / "b", ONE))
    assert f"127.0.0.1:{port}" in err.value.message
    assert attempts(b, "index") == 2, "a transient error is retried once"


@pytest.mark.parametrize("failure", ["refused", "timeout"])
def test_model_endpoint_refusing_or_stalling(tmp_path, monkeypatch, failure):
    monkeypatch.setenv("MEMDOCK_GRAPHITI_LLM_API_KEY", KEY)
    with OpenAILoopback(chat=respond) as stalling:
        stalling.stall_s = 3.0
        url = f"http://127.0.0.1:{closed_port()}/v1" if failure == "refused" else stalling.base_url
        b = backend(
            tmp_path / "store", {"llm_base_url": url, "llm_model": "m", "embedding_model": "e", "llm_timeout_s": 0.5}
        )
        with pytest.raises(TransientError) as err:
            b.index(bundle(tmp_path / "b", ONE))
    message = err.value.message
    assert url.rsplit("/v1", 1)[0] in message
    assert ("timed out" in message) == (failure == "timeout")
    assert attempts(b, "index") == 2
    assert KEY not in message and KEY not in str(err.value.details)
    assert all(c.redactions == 0 for c in b.calls), (
        "the adapter never printed the key (the runner had nothing to redact)"
    )
    for dirpath, _, files in os.walk(tmp_path / "store"):
        for f in files:
            assert KEY.encode() not in Path(dirpath, f).read_bytes(), f"key found in {f}"
    if failure == "timeout":
        assert stalling.requests and stalling.requests[0]["auth"] == f"Bearer {KEY}", (
            "the key travels only to the endpoint"
        )


def test_thread_ids_full_text_syntax_would_reject(tmp_path, llm):
    # every character memdock ids allow that RediSearch treats as syntax: - @ : ~ + = / .
    odd = ["thread:ops/a-b@x+y=z~w", "thread:ops-a-b", "thread:ops.a.b", "thread:-neg~fuzzy", "t:" + "x" * 250]
    entries = [
        (t, f"entry:odd-{i}", f"Marisol checked the Halvorsen turbine number {i} at dawn.") for i, t in enumerate(odd)
    ]
    b = backend(tmp_path / "store", model_config(llm.base_url))
    result = b.index(bundle(tmp_path / "b", entries))
    assert result.details["episodes_added"] == len(odd)
    groups = set()
    for i, thread in enumerate(odd):
        hits = b.query("Halvorsen turbine dawn", limit=10, filters={"thread_ids": [thread]}).hits
        episodes = [h for h in hits if h.kind == "episode"]
        assert [h.provenance["entry_id"] for h in episodes] == [f"entry:odd-{i}"], thread
        groups.add(episodes[0].extra["group_id"])
    assert len(groups) == len(odd), "distinct threads keep distinct graphs"
    assert all(g.replace("_", "").isalnum() and g.isascii() for g in groups)
    facts = b.call("search_facts", {"text": "Marisol Halvorsen", "limit": 10, "group_ids": odd[:2]})["hits"]
    assert facts and {f["provenance"]["thread_id"] for f in facts} <= set(odd[:2])


def test_one_megabyte_body_is_refused_naming_its_place_and_writes_nothing(tmp_path, llm):
    big = "Sediment core notes. " * 50_000
    entries = ONE + [("thread:t", "entry:huge", big)]
    b = backend(tmp_path / "store", model_config(llm.base_url))
    with pytest.raises(InvalidInputError) as err:
        b.index(bundle(tmp_path / "b", entries))
    message = err.value.message
    assert "entry-00001.jsonl:2" in message and "body" in message and "entry:huge" in message
    assert "max_episode_chars" in message
    status = b.healthcheck()
    assert status.checks["graphs"] == 0 and "episodes_committed" not in status.checks, "nothing reached the graph"
    assert b.query("Rotterdam pump", limit=5).hits == []


def test_a_leap_second_is_refused_in_staging_before_the_graph_is_touched(tmp_path, llm):
    """Sent straight to the adapter (past the core's reader), a time graphiti's datetime cannot hold fails the
    staging pass naming file, line, id and field; earlier entries do not reach the graph."""
    path = tmp_path / "b"
    with BundleWriter(path, "chunks", validate=False) as w:
        w.write("thread", {"id": "thread:t", "title": "t", "ingestion_time": T0})
        w.write(
            "entry",
            {
                "id": "entry:one",
                "thread_id": "thread:t",
                "position": 0,
                "body": ONE[0][2],
                "ingestion_time": T0,
                "event_time": T0,
            },
        )
        w.write(
            "entry",
            {
                "id": "entry:leap",
                "thread_id": "thread:t",
                "position": 1,
                "body": "a leap second",
                "ingestion_time": T0,
                "event_time": "2016-12-31T23:59:60Z",
            },
        )
    b = backend(tmp_path / "store", model_config(llm.base_url))
    with pytest.raises(InvalidInputError) as err:
        b.call("index", {"bundle": str(path)}, use_pool=False)
    details = err.value.details
    assert details["file"].endswith("entry-00001.jsonl") and details["line"] == 2
    assert details["id"] == "entry:leap" and details["path"] == "$.event_time"
    assert "leap second" in err.value.message
    status = b.healthcheck()
    assert status.checks["graphs"] == 0 and "episodes_committed" not in status.checks, "nothing reached the graph"


def test_a_killed_worker_leaves_no_falkordb_behind(tmp_path, llm):
    store = tmp_path / "store"
    b = backend(store, model_config(llm.base_url), workers=1)
    b.prepare()
    b.get_capabilities()
    (worker,) = b.pool._idle  # type: ignore[union-attr]
    assert len(servers_under(store)) == 1
    os.kill(worker.proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while servers_under(store) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert servers_under(store) == []
    b.close()


def test_one_shot_calls_stop_their_server(tmp_path, llm):
    store = tmp_path / "store"
    b = backend(store, model_config(llm.base_url))
    b.index(bundle(tmp_path / "b", ONE))
    assert servers_under(store) == []
    assert b.query("Rotterdam pump", limit=3).hits
    assert servers_under(store) == []
