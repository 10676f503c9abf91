"""A service given a writer (as `memdock mcp --http` is) writes remembers in a process of its own: the front end's
backend makes no index call, what the child wrote is seen by the next recall, listing and forget here, a child
that dies answers its batch degraded and is replaced, and a child that cannot open the backend says why."""

import asyncio
import functools
import os
from pathlib import Path

import pytest

from memdock.connect import open_backend
from memdock.errors import ConfigError
from memdock.service import MemoryService


def _service(store, writer=None) -> MemoryService:
    opener = writer or functools.partial(open_backend, "sqlite", data_dir=str(store))
    return MemoryService(open_backend("sqlite", data_dir=store, workers=1), writer=opener)


def test_remembers_are_written_by_the_write_process_and_seen_at_once(tmp_path):
    async def scenario():
        service = _service(tmp_path / "store")
        try:
            first = await service.remember("the plum harvest starts in the north orchard", thread="orchard")
            child = service.write_process.pid
            rest = await asyncio.gather(*(service.remember(f"fig note {i}", thread="orchard") for i in range(8)))
            hits = await service.query("plum harvest north orchard", limit=5)
            count = await service.count()
            forgot = await service.forget(first.id)
            after = await service.query("plum harvest north orchard", limit=5)
            return first, rest, child, hits, count, forgot, after, service
        finally:
            await service.aclose()

    first, rest, child, hits, count, forgot, after, service = asyncio.run(scenario())
    assert child is not None and child != os.getpid()
    assert not first.degraded and not any(r.degraded for r in rest)
    assert first.id in {h.provenance.get("entry_id") for h in hits.hits}
    assert count == 9
    assert forgot.deleted and first.id not in {h.provenance.get("entry_id") for h in after.hits}
    front_end_ops = {c.operation for c in service.core.backend.calls}
    assert "index" not in front_end_ops, "the front end indexed nothing itself"
    assert service.write_process.pid is None, "closing the service stopped the write process"


def test_a_write_process_that_dies_answers_degraded_and_the_next_write_gets_a_new_one(tmp_path):
    async def scenario():
        service = _service(tmp_path / "store")
        try:
            kept = await service.remember("a note before the crash", thread="t")
            old = service.write_process
            proc = old._proc
            proc.kill()
            proc.wait()
            again = await service.remember("a note after the crash", thread="t")
            return kept, again, proc.pid, old.pid, await service.count()
        finally:
            await service.aclose()

    kept, again, dead, now, count = asyncio.run(scenario())
    assert not kept.degraded and not again.degraded
    assert now is None or now != dead
    assert count == 2


def test_a_write_process_exiting_mid_write_answers_every_note_degraded(tmp_path):
    async def scenario():
        service = _service(tmp_path / "store", writer=functools.partial(os._exit, 3))
        try:
            return await service.remember_many(["one note", "another note"])
        finally:
            await service.aclose()

    results = asyncio.run(scenario())
    assert [r.degraded for r in results] == [True, True]
    assert all("write process exited" in r.reason and "exit code 3" in r.reason for r in results)


def test_a_write_process_that_cannot_open_the_backend_raises_its_error(tmp_path):
    async def scenario():
        service = _service(tmp_path / "store", writer=functools.partial(open_backend, "no-such-adapter"))
        try:
            return await service.remember("a note")
        finally:
            await service.aclose()

    with pytest.raises(ConfigError, match="no-such-adapter"):
        asyncio.run(scenario())


def test_a_server_starts_its_workers_and_write_process_before_its_first_request(tmp_path):
    service = _service(tmp_path / "store")
    try:
        service.warm_up()
        started = service.write_process.pid
        assert started is not None and started != os.getpid()
        pool = service.core.backend.pool
        assert len(pool._idle) == pool.size == 1 and pool._idle[0].alive, "the query worker is up and idle"
        (writer,) = _children(started)
        remembered = asyncio.run(service.remember("a note once the write process runs"))
        assert not remembered.degraded and service.write_process.pid == started
        assert _children(started) == [writer], "its write worker, started up front, wrote; no query worker there"
    finally:
        service.close()


def _children(pid: int) -> list[int]:
    return sorted(int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())


def test_the_write_process_is_asked_for_over_http_only():
    from memdock.mcp.server import write_opener

    assert write_opener("sqlite", None, True) is None  # stdio: one client, nothing to take off its GIL
    assert write_opener("sqlite", "127.0.0.1:0", False) is None  # the default over HTTP
    opener = write_opener("sqlite", "127.0.0.1:0", True, data_dir="d", config=None, sandbox=None)
    assert opener is not None and opener.keywords == {"data_dir": "d", "config": None, "sandbox": None}
