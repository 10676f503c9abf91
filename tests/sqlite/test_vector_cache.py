"""The vector cache shard jobs share: created by several prepare jobs at the same instant, none is refused.

Before creation was serialised, six processes released together failed in about one round of three with
"database is locked": SQLite answers a read-then-write deadlock at once, whatever the busy timeout.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import vector_cache

JOBS, ROUNDS = 6, 20


def _create(data_dir: str, start, results) -> None:
    start.wait()
    try:
        cache = vector_cache.VectorCache.create(Path(data_dir))
        cache.put("model", [(b"k" * 16, b"vector")])
        cache.close()
        results.put(None)
    except Exception as exc:
        results.put(repr(exc))


@pytest.mark.timeout(300)
def test_jobs_creating_the_cache_at_once_all_succeed(tmp_path):
    ctx = mp.get_context("fork")
    failures = []
    for n in range(ROUNDS):
        data_dir = tmp_path / f"round-{n}"
        start, results = ctx.Barrier(JOBS), ctx.Queue()
        jobs = [ctx.Process(target=_create, args=(str(data_dir), start, results)) for _ in range(JOBS)]
        for job in jobs:
            job.start()
        failures += [r for r in (results.get(timeout=60) for _ in jobs) if r]
        for job in jobs:
            job.join(timeout=60)
        cache = vector_cache.VectorCache.existing(data_dir)
        assert cache is not None and cache.get("model", [b"k" * 16]) == {b"k" * 16: b"vector"}
        cache.close()
        vector_cache.remove(data_dir)
        assert not list(data_dir.iterdir()), "remove leaves nothing of the cache behind"
    assert failures == []
