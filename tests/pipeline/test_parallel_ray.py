"""`index(parallel=N, executor="ray")` on a local Ray cluster: the shard jobs run as Ray tasks (each running the
adapter through the runner in a Ray worker process) and leave what a serial run leaves; a dead shard job resumes
with nothing lost or doubled. Needs the `ray` extra; on with MEMDOCK_IT_RAY=1 (`.ci/run` sets it)."""

import os

import pytest
from support.parallel_helpers import bundle_ids, ledger_of, shared, stored

from memdock.errors import MemdockError

pytestmark = [
    pytest.mark.integration_ray,
    pytest.mark.skipif(not os.environ.get("MEMDOCK_IT_RAY"), reason="set MEMDOCK_IT_RAY=1 (pip install -e '.[ray]')"),
    pytest.mark.timeout(900),  # a local cluster starts in 5-30 s on a loaded 2-core box
]


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="pip install -e '.[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_shards_as_ray_tasks_leave_what_a_serial_run_leaves(ray_cluster, tmp_path, chunks):
    shared(tmp_path / "serial").index(chunks)
    result = shared(tmp_path / "ray").index(chunks, parallel=3, executor="ray")
    assert result.details["parallel"] == {"mode": "shared", "shards": 3, "failed": 0}
    records, sends = stored(tmp_path / "ray")
    assert records == stored(tmp_path / "serial")[0] == bundle_ids(chunks)
    assert len({pid for _, pid in sends}) == 3
    assert ledger_of(tmp_path / "ray") == ledger_of(tmp_path / "serial")


def test_a_dead_ray_shard_resumes_with_nothing_lost_or_doubled(ray_cluster, tmp_path, chunks):
    ids = bundle_ids(chunks)
    victim = next(i for i, t in ids.items() if t == "chunk")
    store = tmp_path / "store"
    with pytest.raises(MemdockError):
        shared(store, crash_on=victim).index(chunks, parallel=3, executor="ray")
    committed = sum(ledger_of(store).values())
    assert 0 < committed < len(ids)
    resumed = shared(store).index(chunks, parallel=3, executor="ray")
    records, sends = stored(store)
    assert records == ids and sum(ledger_of(store).values()) == len(ids)
    assert resumed.skipped == committed
    assert [i for i, _ in sends].count(victim) == 2


def test_sqlite_shards_prepared_as_ray_tasks_leave_what_a_serial_run_leaves(ray_cluster, tmp_path, chunks):
    from support.openai_loopback import OpenAILoopback
    from support.sqlite_helpers import sqlite_backend

    with OpenAILoopback() as server:
        config = {"embedding_provider": "openai", "embedding_model": "hash-64", "embedding_base_url": server.base_url}
        serial = sqlite_backend(tmp_path / "serial", config=config)
        serial.index(chunks)
        embedded_serially = len(server.requests)
        ray_run = sqlite_backend(tmp_path / "ray", config=config)
        result = ray_run.index(chunks, parallel=3, executor="ray")
        assert result.details["parallel"]["mode"] == "merge" and result.details["parallel"]["shards"] == 3
        assert result.details["vectors_added"] == result.details["parallel"]["prepared"]["vectors_prepared"] > 0
        assert len(server.requests) > embedded_serially
        assert ledger_of(tmp_path / "ray") == ledger_of(tmp_path / "serial")
        for q in ("cache", "release", "deploy"):
            assert [h.id for h in ray_run.query(q).hits] == [h.id for h in serial.query(q).hits]
