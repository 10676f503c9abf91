"""`index(parallel=N)`: a delta sent as N shards at once to an adapter that takes parallel writers gives the store
and ledger a serial run gives; a run whose shard job dies resumes with nothing lost or doubled; an adapter that
takes one writer is indexed serially and the result says why."""

import subprocess
import sys
from pathlib import Path

import pytest
from support.parallel_helpers import (
    SHARED,
    bundle_ids,
    ledger_of,
    shared,
    stored,
)

from memdock.errors import MemdockError
from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend


def test_four_shards_leave_the_store_and_ledger_a_serial_run_leaves(tmp_path, chunks):
    serial = shared(tmp_path / "serial").index(chunks)
    parallel = shared(tmp_path / "parallel").index(chunks, parallel=4)
    assert parallel.details["parallel"] == {"mode": "shared", "shards": 4, "failed": 0}
    entities = parallel.indexed.pop("entity")
    assert entities >= serial.indexed.pop("entity"), "an entity goes to every shard whose edges touch it"
    assert parallel.indexed == serial.indexed
    records, sends = stored(tmp_path / "parallel")
    assert records == stored(tmp_path / "serial")[0] == bundle_ids(chunks)
    assert len({pid for _, pid in sends}) == 4, "each shard is its own adapter process"
    assert ledger_of(tmp_path / "parallel") == ledger_of(tmp_path / "serial")
    assert not list((tmp_path / "parallel" / "work").glob("shards-*")), "the shards are removed after the run"
    again = shared(tmp_path / "parallel").index(chunks, parallel=4)
    assert again.skipped == len(bundle_ids(chunks)) and "parallel" not in again.details


def test_the_runner_says_it_verified_the_delta_and_each_shard_and_nothing_else(tmp_path, chunks):
    """The delta and its shards are the runner's own, written from records it validated: the adapter is told so
    (`params.verified`) and need not check them against the schema again. A bundle handed to `index` as it is
    carries no such word."""

    def said(store: Path) -> list[str]:
        return sorted(p.read_text() for p in (store / "data").glob("verified-*"))

    shared(tmp_path / "serial").index(chunks)
    assert said(tmp_path / "serial") == ["True"]
    shared(tmp_path / "parallel").index(chunks, parallel=4)
    assert said(tmp_path / "parallel") == ["True"] * 4
    shared(tmp_path / "direct").call("index", {"bundle": str(chunks)}, use_pool=False)
    assert said(tmp_path / "direct") == ["False"]


def test_a_shard_job_that_dies_resumes_with_nothing_lost_or_doubled(tmp_path, chunks):
    ids = bundle_ids(chunks)
    victim = next(i for i, t in ids.items() if t == "chunk")
    store = tmp_path / "store"
    with pytest.raises(MemdockError) as failed:
        shared(store, crash_on=victim).index(chunks, parallel=3)
    assert failed.value.details["failed_shards"] == 1
    committed_after_crash = sum(ledger_of(store).values())
    assert 0 < committed_after_crash < len(ids), "the other shards' records are committed"
    records_after_crash, _ = stored(store)

    resumed = shared(store).index(chunks, parallel=3)
    records, sends = stored(store)
    assert records == ids, "nothing lost"
    assert sum(ledger_of(store).values()) == len(ids)
    assert resumed.skipped == committed_after_crash, "committed shards are not sent again"
    resent = [i for i, _ in sends].count(victim)
    assert resent == 2 and len(records) == len(ids), "the dead shard is sent again; upserts store each record once"
    assert set(records_after_crash) <= set(records)


def test_an_adapter_taking_one_writer_is_indexed_serially_and_says_why(tmp_path, chunks):
    """faulty-none declares no parallel_writers: serial, the default."""
    faulty = AdapterDescriptor.load(Path(__file__).resolve().parents[1] / "adapters" / "faulty-none")
    result = SubprocessBackend(faulty, tmp_path / "store").index(chunks, parallel=4)
    why = result.details["parallel"]
    assert why == {
        "mode": "serial",
        "shards": 1,
        "requested": 4,
        "why": "faulty-none: takes one writer at a time (with this config)",
    }


def test_capabilities_may_deny_concurrent_index_for_a_config(tmp_path, chunks):
    """adapter.json says shared; the adapter's capabilities for this config deny concurrent_index, and win."""
    result = shared(tmp_path / "store", one_writer=True).index(chunks, parallel=4)
    assert result.details["parallel"]["mode"] == "serial" and result.details["parallel"]["shards"] == 1
    assert "shared-store: takes one writer at a time (with this config)" in result.details["parallel"]["why"]
    assert len({pid for _, pid in stored(tmp_path / "store")[1]}) == 1


@pytest.mark.parametrize("bad", [0, -1, 257, 2.5, True, "4"])
def test_parallel_must_be_an_integer_from_1_to_256(tmp_path, chunks, bad):
    with pytest.raises(MemdockError, match="parallel must be an integer from 1 to 256"):
        shared(tmp_path / "store").index(chunks, parallel=bad)
    assert not (tmp_path / "store" / "ledger.sqlite").exists()


def test_an_unknown_executor_is_refused_before_any_work(tmp_path, chunks):
    with pytest.raises(MemdockError, match="unknown executor 'dask'; choose one of local, ray"):
        shared(tmp_path / "store").index(chunks, parallel=2, executor="dask")
    assert not (tmp_path / "store" / "ledger.sqlite").exists()


def test_the_cli_indexes_in_parallel(tmp_path, chunks):
    out = subprocess.run(
        [sys.executable, "-m", "memdock", "index", str(chunks), "-b", str(SHARED), "--data-dir", str(tmp_path / "s")]
        + ["--parallel", "3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "3 shards" in out.stdout + out.stderr
    assert stored(tmp_path / "s")[0] == bundle_ids(chunks)


def test_progress_is_reported_per_finished_shard_not_per_record(tmp_path, chunks):
    events: list[dict] = []
    shared(tmp_path / "store").index(chunks, parallel=4, progress=events.append)
    assert sorted(e["message"] for e in events) == [f"shard {i} done" for i in range(1, 5)]
    done = [e["done"] for e in events]
    assert done == sorted(done) and done[-1] == events[-1]["total"]
    assert events[-1]["total"] >= len(bundle_ids(chunks)), "entities go to each shard whose edges touch them"
