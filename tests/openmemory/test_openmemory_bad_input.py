"""Bad input and broken surroundings: an unreachable or stalling server, a server that refuses (no such user,
a mem0 failure answered as {"error"}), and an entry too long to send; clear errors, nothing half-written."""

import os
from pathlib import Path

import pytest
from openmemory_support import backend, gate
from support.entry_bundles import closed_port, write_bundle

from memdock.errors import BackendError, InvalidInputError, TransientError

pytestmark = gate

KEY = "om-test-key-7f3a9b21c4"
ONE = ["Lena repaired the Rotterdam pump station."]


def attempts(b, operation):
    return sum(1 for c in b.calls if c.operation == operation)


@pytest.mark.parametrize("failure", ["refused", "timeout", "http-503"])
def test_unreachable_stalling_or_failing_server(tmp_path, monkeypatch, server, failure):
    monkeypatch.setenv("MEMDOCK_OPENMEMORY_API_KEY", KEY)
    url = f"http://127.0.0.1:{closed_port()}" if failure == "refused" else server.url
    bundle = write_bundle(tmp_path / "b", ONE)
    if failure == "timeout":
        server.stall_s = 2.0
    if failure == "http-503":
        server.fail_with = 503
    b = backend(tmp_path / "store", {"server_url": url, "timeout_s": 0.5})
    with pytest.raises(TransientError) as err:
        b.index(bundle)
    server.settle()
    server.stall_s, server.fail_with = 0, None
    message = err.value.message
    assert url in message and "entry:gh-0" in message
    assert ("within 0.5s" in message) == (failure == "timeout") and ("HTTP 503" in message) == (failure == "http-503")
    assert attempts(b, "index") == 2, "a transient error is retried once, by the runner"
    status = b.healthcheck()
    assert not status.ok or failure != "refused"
    if failure != "refused":
        assert server.requests[0]["auth"] == f"Bearer {KEY}"
    assert KEY not in message and all(c.redactions == 0 for c in b.calls)
    for dirpath, _, files in os.walk(tmp_path / "store"):
        for f in files:
            assert KEY.encode() not in Path(dirpath, f).read_bytes(), f"key found in {f}"
    # a create the client gave up on may still complete on the server: the entry stays pending, and the next run
    # deletes whatever the server holds for it (found by its metadata) before creating it again
    result = b.index(bundle) if failure != "refused" else None
    if result is not None:
        assert [m["content"] for m in server.active()] == [f"ops: {t}" for t in ONE], "nothing doubled after the resume"
        assert result.details["entries_replaced"] == (1 if failure == "timeout" else 0)


def test_unknown_user_and_server_side_failure(tmp_path, server):
    b = backend(tmp_path / "store", {"server_url": server.url, "user_id": "nobody"})
    status = b.healthcheck()
    assert not status.ok and "User not found" in status.message and "must exist on the server" in status.message
    with pytest.raises(BackendError) as err:
        b.index(write_bundle(tmp_path / "b", ONE))
    assert "HTTP 404" in err.value.message and "User not found" in err.value.message and attempts(b, "index") == 1

    server.create_error = "Memory client is not available"
    ok_user = backend(tmp_path / "store2", {"server_url": server.url})
    bundle = write_bundle(tmp_path / "b2", ONE)
    with pytest.raises(BackendError) as err:
        ok_user.index(bundle)
    assert "could not store the memory: Memory client is not available" in err.value.message
    assert "entries_committed" not in ok_user.healthcheck().checks
    server.create_error = None
    assert ok_user.index(bundle).details["memories_added"] == 1


def test_oversized_entry_is_refused_before_anything_is_sent(tmp_path, server):
    b = backend(tmp_path / "store", {"server_url": server.url})
    with pytest.raises(InvalidInputError) as err:
        b.index(write_bundle(tmp_path / "b", ONE + ["Sediment core notes. " * 2_000]))
    message = err.value.message
    assert (
        "entry-00001.jsonl:1" in message
        and "body" in message
        and "entry:gh-1" in message
        and "max_entry_chars" in message
    )
    assert [r for r in server.requests if r["method"] != "GET"] == [], "nothing was sent"
    assert server.active() == [] and "entries_committed" not in b.healthcheck().checks
