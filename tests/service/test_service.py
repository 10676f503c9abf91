"""MemoryService and its core: arguments checked first, capability gaps and failures answered as degraded
empties, a deadline on every call, one retry for a transient failure."""

import asyncio
import time

import pytest
from support.service_helpers import SCRIPTED, core, service

from memdock.errors import InvalidInputError


def run(coro):
    return asyncio.run(coro)


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.query(""),
        lambda s: s.query("   \n"),
        lambda s: s.query("x" * 10_001),
        lambda s: s.query("x", limit="many"),
        lambda s: s.query("x", filters={"colour": ["red"]}),
        lambda s: s.search_facts(""),
        lambda s: s.get_node(""),
        lambda s: s.get_edge("e" * 257),
        lambda s: s.forget([]),
        lambda s: s.forget(["ok", ""]),
        lambda s: s.remember("  "),
        lambda s: s.remember("note", time="last tuesday"),
    ],
)
def test_bad_arguments_fail_before_any_backend_call(tmp_path, call):
    c = core("sqlite", tmp_path / "store")
    with pytest.raises(InvalidInputError):
        call(c)
    assert c.backend.calls == [] and c.backend.pool._count == 0, "no adapter process was started"
    c.close()


def test_limits_out_of_range_are_refused(sqlite_store):
    c = core("sqlite", sqlite_store)
    for bad in (0, 1001):
        with pytest.raises(InvalidInputError, match="from 1 to 1,000"):
            c.query("the", limit=bad)
    assert len(c.query("cache", limit=1).hits) == 1
    c.close()


def test_the_null_backend_answers_degraded_empties(tmp_path):
    async def scenario():
        async with service("null", tmp_path / "store") as s:
            results = [
                await s.query("anything"),
                await s.search_nodes("x"),
                await s.search_facts("x"),
                await s.search_episodes("x"),
                await s.get_node("n"),
                await s.get_edge("e"),
            ]
            remembered = await s.remember("a note")
            forgotten = await s.forget(["entry:x"])
            status = await s.status()
            return results, remembered, forgotten, status

    results, remembered, forgotten, status = run(scenario())
    for r in results:
        assert r.degraded and "stores nothing" in r.reason
        assert getattr(r, "hits", None) == [] or getattr(r, "item", "absent") is None
    assert remembered.degraded and remembered.id.startswith("entry:")
    assert not forgotten.degraded and forgotten.not_found == ["entry:x"]
    assert status.backend == "null" and status.health is not None and status.health.ok


def test_an_operation_the_backend_lacks_is_degraded(tmp_path):
    c = core(str(SCRIPTED), tmp_path / "store")
    result = c.search_facts("who replied")
    assert result.degraded and result.reason == "backend scripted does not support search_facts" and result.hits == []
    assert [(call.operation, call.mode) for call in c.backend.calls] == [("capabilities", "worker")], (
        "gated on capabilities, which came from the worker"
    )
    c.close()


def test_a_hanging_backend_answers_degraded_within_the_deadline(tmp_path):
    async def scenario():
        async with service(
            str(SCRIPTED), tmp_path / "store", config={"behavior": "silent", "seconds": 120}, deadline=2.0
        ) as s:
            started = time.monotonic()
            result = await s.query("anything")
            return result, time.monotonic() - started

    result, elapsed = run(scenario())
    assert result.degraded and result.hits == []
    assert "within the 2s deadline" in result.reason and "exceeded" in result.reason
    assert elapsed < 2.0 + 10, f"took {elapsed:.1f}s; the deadline is 2s (10s of slack for a loaded machine)"


def test_a_transient_failure_is_retried_once_and_succeeds(tmp_path):
    async def scenario():
        async with service(str(SCRIPTED), tmp_path / "store", config={"behavior": "transient_once"}) as s:
            return await s.query("anything")

    result = run(scenario())
    assert not result.degraded and result.hits == []
    assert (tmp_path / "store" / "data" / "marker-transient_once").exists(), "the first attempt failed"


def test_a_persistent_transient_failure_degrades_with_the_error(tmp_path):
    c = core(str(SCRIPTED), tmp_path / "store", config={"behavior": "echo_secret"})
    result = c.query("x")
    assert result.degraded and "auth failed" in result.reason
    c.close()


def test_each_operation_is_logged_with_its_timing(sqlite_store, caplog):
    caplog.set_level("INFO", logger="memdock.service")
    c = core("sqlite", sqlite_store)
    c.query("cache")
    c.close()
    assert any(r.message.startswith("sqlite query ok in ") and " ms " in r.message for r in caplog.records)


def test_status_reports_backend_capabilities_counts_and_health(sqlite_store):
    c = core("sqlite", sqlite_store)
    status = c.status()
    c.close()
    assert status.backend == "sqlite" and not status.degraded and status.store == str(sqlite_store)
    assert status.counts == {"chunk": 8, "edge": 35, "entity": 12, "entry": 8, "thread": 3}
    assert status.health is not None and status.health.ok
    assert status.capabilities is not None and "query" in status.capabilities.operations
    assert status.to_dict()["counts"] == status.counts
