"""Indexing one delta as several shards at once, on a local thread pool or on Ray.

The coordinator (the engine's index run, holding the store's write lock) builds the delta against the ledger
as always, splits it by thread (`memdock.shard`), and hands each shard to an executor. A shard job is the
transport's (`Transport.shard_job`): the subprocess transport runs the adapter through the normal runner
(sandbox, timeouts, retries) wherever the executor places it and answers with the adapter's result.

How the shards are used depends on how the backend takes writers (`parallel_writers` in `adapter.json`):

- `shared` (a server several writers may share: graphiti's groups are per thread, so shards never contend):
  each job *indexes* its shard, and the coordinator marks that shard's records committed in the ledger as its
  job finishes. A job that fails leaves its records pending, so the next run sends them again (adapters upsert
  by id): a killed parallel run resumes shard by shard with nothing lost or doubled, on any executor.
- `merge` (an embedded store, one writer at a time): each job *prepares* its shard (`prepare` with
  `params.bundle`: the adapter computes ahead, in its data dir, what indexing will need, such as embeddings),
  then one writer indexes the whole delta and finds that work done. Nothing is committed before the writer
  runs, so a failed preparation leaves the store as it was. With nothing to prepare for the config (no
  embeddings configured), the delta is indexed by one writer.
- `serial` (the default): one writer, and the result says why.

An executor is one method, `run(job, specs)`, yielding `(index, outcome or exception)` as jobs finish. A Dask
executor is `client.submit(job, spec)` per spec and `distributed.as_completed` over the futures, in the same
dozen lines as `RayExecutor`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..bundle import BundleReader
from ..errors import ConfigError, InvalidInputError, MemdockError

if TYPE_CHECKING:
    from ..contract import Capabilities

PARALLEL_MODES = ("shared", "merge", "serial")
EXECUTORS = ("local", "ray")


@dataclass
class ShardSpec:
    """One shard job's request (picklable): REACH is the transport's own description of how to reach the adapter
    from another thread, process or machine; SHARD the shard's bundle; OPERATION `index` or `prepare`."""

    reach: Any = None
    shard: str = ""
    timeout: float | None = None
    operation: str = "index"


Job = Callable[[ShardSpec], dict[str, Any]]
Finished = tuple[int, "dict[str, Any] | BaseException"]


class Executor(Protocol):
    def run(self, job: Job, specs: Sequence[ShardSpec]) -> Iterator[Finished]: ...


class LocalExecutor:
    """Shard jobs on threads of this process; each job's adapter is its own subprocess, so N jobs use N cores."""

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, job: Job, specs: Sequence[ShardSpec]) -> Iterator[Finished]:
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="memdock-shard") as pool:
            futures = {pool.submit(job, spec): i for i, spec in enumerate(specs)}
            for future in as_completed(futures):
                exc = future.exception()
                yield futures[future], exc if exc is not None else future.result()


class RayExecutor:
    """Shard jobs as Ray tasks: `ray.init(address)` joins a cluster (None starts a local one). Every node needs
    memdock and the adapter installed at the same paths, and the store's data dir reachable there (a shared
    backend keeps its data on its server). Each job asks Ray for CPUS_PER_JOB (MEMDOCK_RAY_CPUS_PER_JOB,
    default 0.25)."""

    def __init__(self, workers: int, address: str | None = None, cpus_per_job: float | None = None):
        try:
            import ray
        except ImportError:
            raise ConfigError("--executor ray needs the ray package: pip install 'memdock[ray]'") from None
        self.ray, self.workers = ray, workers
        # a job mostly waits on its adapter process and the backend: Ray's default of a whole CPU per task would
        # run only as many shards at once as the node has cores
        self.cpus = cpus_per_job or float(os.environ.get("MEMDOCK_RAY_CPUS_PER_JOB", "0.25"))
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)

    def run(self, job: Job, specs: Sequence[ShardSpec]) -> Iterator[Finished]:
        remote = self.ray.remote(num_cpus=self.cpus, max_retries=2)(job)
        queued = list(enumerate(specs))
        running: dict[Any, int] = {}
        while queued or running:
            while queued and len(running) < self.workers:
                i, spec = queued.pop(0)
                running[remote.remote(spec)] = i
            done, _ = self.ray.wait(list(running), num_returns=1)
            i = running.pop(done[0])
            try:
                yield i, self.ray.get(done[0])
            except Exception as exc:  # a task's exception, re-raised by ray.get, wrapped in RayTaskError
                cause = getattr(exc, "cause", None)
                yield i, cause if isinstance(cause, BaseException) else exc


def executor_for(name: str | Executor | None, workers: int, address: str | None = None) -> Executor:
    if name is None or name == "local":
        return LocalExecutor(workers)
    if name == "ray":
        return RayExecutor(workers, address)
    if isinstance(name, str):
        raise InvalidInputError(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
    return name


def parallel_plan(mode: str, requested: int, caps: Capabilities) -> int:
    """How many shards to send: REQUESTED for an adapter that takes parallel writers, or that has work to
    prepare in parallel for one writer (embeddings); else 1."""
    if mode == "shared" or (mode == "merge" and caps.has("embeddings")):
        return requested
    return 1


def writers_mode(parallel_writers: str, caps: Capabilities) -> str:
    """How the backend takes parallel writers: adapter.json's `parallel_writers`, unless the capabilities for
    the config in use deny `concurrent_index` (a backend that can share a named server but not a local one)."""
    mode = str(parallel_writers)
    return "serial" if mode == "shared" and not caps.has("concurrent_index") else mode


def serial_reason(name: str, mode: str, requested: int, caps: Capabilities) -> dict[str, Any]:
    """Why a run asked for REQUESTED shards ran as one: the adapter's own words (capabilities
    `extra.single_writer`) where it gives them."""
    if mode == "merge":
        why = (
            "keeps an embedded store that takes one writer, and with this config (no embeddings) has nothing to "
            "prepare in parallel"
        )
    else:
        why = caps.extra.get("single_writer") or "takes one writer at a time (with this config)"
    return {"mode": mode, "shards": 1, "requested": requested, "why": f"{name}: {why}"}


def check_parallel(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 256:
        raise InvalidInputError(f"parallel must be an integer from 1 to 256, got {n!r}")
    return n


def send_in_shards(
    delta_dir: Path,
    shards_dir: Path,
    n: int,
    template: ShardSpec,
    executor: Executor,
    commit: Callable[[list[str]], None],
    job: Job,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Index DELTA_DIR as N shards through EXECUTOR, each job TEMPLATE with its shard; COMMIT gets each finished
    shard's record ids. Returns the adapter results summed; raises the first failure once every job has ended
    (the others' work is kept)."""
    merged: dict[str, Any] = {"indexed": {}, "checkpoints": 0, "details": {}}

    def finished(shard: Path, outcome: dict[str, Any]) -> int:
        ids = _ids(shard)
        commit(ids)
        for rtype, count in dict(outcome.get("indexed", {})).items():
            merged["indexed"][rtype] = merged["indexed"].get(rtype, 0) + int(count)
        merged["checkpoints"] += int(outcome.get("checkpoints", 0))
        return len(ids)

    spec = replace(template, operation="index")
    ran = _run_shards(delta_dir, shards_dir, n, spec, executor, finished, progress, job)
    merged["details"]["parallel"] = {"mode": "shared", **ran}
    return merged


def prepare_in_shards(
    delta_dir: Path,
    shards_dir: Path,
    n: int,
    template: ShardSpec,
    executor: Executor,
    job: Job,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Have the adapter prepare DELTA_DIR as N shards through EXECUTOR (nothing is committed: one writer
    indexes the delta next). Returns the `parallel` details, the adapters' prepare details summed; raises the
    first failure once every job has ended."""
    prepared: dict[str, float] = {}

    def finished(shard: Path, outcome: dict[str, Any]) -> int:
        for key, value in dict(outcome.get("details", {})).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                prepared[key] = prepared.get(key, 0) + value
        reader = BundleReader(shard, validate=False)
        return sum(reader.count(rtype) for rtype in reader.record_types())

    spec = replace(template, operation="prepare")
    ran = _run_shards(delta_dir, shards_dir, n, spec, executor, finished, progress, job)
    return {"mode": "merge", **ran, "prepared": prepared}


def _run_shards(
    delta_dir: Path,
    shards_dir: Path,
    n: int,
    template: ShardSpec,
    executor: Executor,
    finished: Callable[[Path, dict[str, Any]], int],
    progress: Callable[[dict[str, Any]], None] | None,
    job: Job,
) -> dict[str, int]:
    """Split DELTA_DIR into N shards under SHARDS_DIR and run JOB on each through EXECUTOR; FINISHED takes each
    successful shard and answers how many records it held. The first failure is raised once every job has
    ended; the shards are removed either way."""
    from ..shard import shard_bundle  # a parallel run's alone: one writer's runs do not import it

    shutil.rmtree(shards_dir, ignore_errors=True)
    try:
        sharded = shard_bundle(delta_dir, n, shards_dir)
        paths = [p for p, counts in zip(sharded.paths, sharded.counts) if counts]
        total = sum(sum(c.values()) for c in sharded.counts)
        failures: list[tuple[Path, BaseException]] = []
        done = 0
        for i, outcome in executor.run(job, [replace(template, shard=os.fspath(p)) for p in paths]):
            if isinstance(outcome, BaseException):
                failures.append((paths[i], outcome))
                continue
            done += finished(paths[i], outcome)
            if progress is not None:
                what = f"shard {i + 1} {'prepared' if template.operation == 'prepare' else 'done'}"
                progress({"event": "progress", "done": done, "total": total, "message": what})
        if failures:
            where, first = failures[0]
            if isinstance(first, MemdockError):
                first.details.setdefault("shard", str(where))
                first.details["failed_shards"] = len(failures)
            raise first
        return {"shards": len(paths), "failed": len(failures)}
    finally:
        shutil.rmtree(shards_dir, ignore_errors=True)


def _ids(shard: Path) -> list[str]:
    reader = BundleReader(shard, validate=False)
    return [rec["id"] for rtype in reader.record_types() if rtype != "embedding" for rec in reader.records(rtype)]
