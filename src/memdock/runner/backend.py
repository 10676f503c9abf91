"""SubprocessBackend: the MemoryBackend the core ships, driving any adapter through the protocol."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..bundle import BundleReader
from ..config import check_no_secrets_in, resolve
from ..contract import (
    Capabilities,
    DeleteResult,
    GetResult,
    HealthStatus,
    IndexResult,
    PrepareResult,
    ProgressCallback,
    SearchResult,
)
from ..diskfull import disk_full, disk_full_as_error, reraise_disk_full, said_disk_full
from ..errors import InvalidInputError, MemdockError, VersionError
from ..protocol import SUPPORTED_PROTOCOLS, negotiate, payload_compatible
from ..registry import AdapterDescriptor, Registry
from .delta import Delta, build_delta
from .journal import Exported, Journal, inflate
from .launch import CallRecord, Launch
from .ledger import Ledger
from .lost import lost_for_reading, record_store_files, restore_if_lost, said_if_lost
from .oneshot import run_once
from .parallel import (
    Executor,
    ShardSpec,
    check_parallel,
    executor_for,
    parallel_plan,
    prepare_in_shards,
    send_in_shards,
    serial_reason,
    writers_mode,
)
from .sources import FileState, Plan
from .store import Store, refuse_output_in_store
from .worker import WorkerPool

MAX_CALL_RECORDS = 1024


class SubprocessBackend:
    """Runs ADAPTER's operations as subprocesses (one-shot), or through a worker pool when `workers` > 0.

    Writing operations hold the store's lock; retryable errors are retried
    `retries` times with exponential backoff; `index` goes through the ledger
    so runs resume and only changes are sent.
    """

    def __init__(
        self,
        descriptor: AdapterDescriptor,
        store: Store | str | os.PathLike[str],
        *,
        config: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        workers: int = 0,
        retries: int = 1,
        backoff: float = 0.5,
        timeouts: Mapping[str, float] | None = None,
        sandbox: bool | str = True,
        lock_timeout: float = 10.0,
    ):
        self.descriptor = descriptor
        self.store = store if isinstance(store, Store) else Store(store)
        cfg = dict(config or {})
        check_no_secrets_in(
            cfg, descriptor.config_schema, descriptor.env_for_secret_fields(), f"config of {descriptor.name}"
        )
        self.launch = Launch(
            descriptor, self.store, cfg, dict(env if env is not None else os.environ), sandbox, dict(timeouts or {})
        )
        self.retries, self.backoff, self.lock_timeout = retries, backoff, lock_timeout
        self.pool = WorkerPool(self.launch, workers) if workers and descriptor.supports_worker else None
        self._caps: Capabilities | None = None
        self.last_call: CallRecord | None = None
        self.calls: list[CallRecord] = []  # the most recent calls, one-shot and worker, newest last

    @property
    def name(self) -> str:
        return self.descriptor.name

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def __enter__(self) -> SubprocessBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calling -------------------------------------------------------------------------------

    def call(
        self,
        operation: str,
        params: dict[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        on_checkpoint: Callable[[list[str]], None] | None = None,
        offered: tuple[str, ...] | None = None,
        use_pool: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """One protocol operation, with retries for retryable errors. Returns the raw result object.

        TIMEOUT bounds the whole call, retries included (each attempt gets what is left of it, and never more
        than the operation's configured limit); without it, each attempt gets that configured limit.
        """
        params = params or {}
        attempt = 0
        end = None if timeout is None else time.monotonic() + timeout
        limit = timeout
        while True:
            attempt += 1
            if end is not None:
                limit = min(max(end - time.monotonic(), 0.001), self.launch.timeout(operation))
            try:
                if self.pool is not None and use_pool and offered is None:
                    return self.pool.call(
                        operation,
                        params,
                        on_progress=on_progress,
                        on_checkpoint=on_checkpoint,
                        timeout=limit,
                        on_record=self._note,
                    )
                result, record = run_once(
                    self.launch,
                    operation,
                    params,
                    on_progress=on_progress,
                    timeout=limit,
                    on_checkpoint=on_checkpoint,
                    offered=offered,
                )
                self._note(record)
                return result
            except MemdockError as exc:
                rec = getattr(exc, "call_record", None)
                if rec is not None:
                    self._note(rec)
                if said_disk_full(exc) and exc.details.get("reason") != "disk_full":
                    full = disk_full(self.store.data_dir, f"running {operation}")
                    full.details.update(adapter_error=exc.message, stderr_tail=exc.details.get("stderr_tail", ""))
                    raise full from exc
                exc.details["attempts"] = attempt
                pause = self.backoff * 2 ** (attempt - 1)
                if not exc.retryable or attempt > self.retries or (end is not None and time.monotonic() + pause >= end):
                    raise
                time.sleep(pause)
            except OSError as exc:  # the request, work dir or lock file could not be written
                reraise_disk_full(exc, self.store.root, f"running {operation}")
                raise

    def _note(self, record: CallRecord) -> None:
        self.last_call = record
        self.calls.append(record)
        if len(self.calls) > MAX_CALL_RECORDS:  # a long-lived worker backend must not grow without bound
            del self.calls[: MAX_CALL_RECORDS // 2]

    def _write(self, operation: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
        with disk_full_as_error(self.store.root, f"running {operation}"), self.store.write_lock(self.lock_timeout):
            return self.call(operation, params, **kw)

    # -- MemoryBackend ---------------------------------------------------------------------------

    def get_capabilities(self, *, refresh: bool = False) -> Capabilities:
        if self._caps is None or refresh:
            raw = self.call("capabilities", {"offered_protocols": list(SUPPORTED_PROTOCOLS)})
            negotiate(raw)
            if not payload_compatible(raw):
                raise VersionError(
                    f"adapter {self.name} reads payload versions {raw.get('payload_versions')}; memdock writes 1.x"
                )
            self._caps = Capabilities.from_dict(raw)
        return self._caps

    @property
    def location(self) -> str:
        return str(self.store.root)

    def healthcheck(self, *, timeout: float | None = None) -> HealthStatus:
        return HealthStatus.from_dict(self.call("healthcheck", timeout=timeout))

    def prepare(self) -> PrepareResult:
        return PrepareResult.from_dict(self._write("prepare", {}))

    def index(
        self,
        bundle: str | os.PathLike[str],
        *,
        progress: ProgressCallback | None = None,
        prune: bool = True,
        origin: str | None = None,
        timeout: float | None = None,
        after_checkpoint: Callable[[list[str]], None] | None = None,
        parallel: int = 1,
        executor: str | Executor | None = None,
        address: str | None = None,
        files: Plan | None = None,
    ) -> IndexResult:
        """Index a chunks (or corpus) bundle: send what the ledger lacks, resume after a kill, delete what vanished.

        PARALLEL > 1 sends the delta as that many shards at once through EXECUTOR ("local" threads, "ray" at
        ADDRESS, or an `Executor`) when the adapter takes parallel writers (see `runner/parallel.py`); otherwise
        one writer sends it, and `details["parallel"]` says why.

        Only records this bundle's source wrote are pruned (see `memdock.bundle.source`); what `remember` or
        another bundle added to the same threads stays. ORIGIN overrides the bundle's source: the service
        passes `remember` for its notes, an origin no manifest may claim.

        AFTER_CHECKPOINT is called with each checkpoint's ids once the ledger has them; an exception it
        raises stops the adapter (the conformance kit uses this to kill a run midway).

        FILES (a re-add, see `runner/sources.py`): the records of the source files it skipped count as seen, the
        threads of files that left the source are pruned too, and the ledger keeps the files' state for next time.
        """
        started = time.monotonic()
        reader = BundleReader(bundle, trust_seal=True)
        if reader.kind not in ("chunks", "corpus"):
            raise InvalidInputError(f"{bundle}: cannot index a {reader.kind} bundle; give a corpus or chunks bundle")
        caps = self.get_capabilities()
        mode = writers_mode(self.descriptor, caps)
        shards = parallel_plan(mode, check_parallel(parallel), caps)
        pool = executor_for(executor, shards, address) if shards > 1 else None  # a bad executor fails before any work
        with disk_full_as_error(self.store.root, "indexing"), self.store.write_lock(self.lock_timeout):
            ledger = Ledger(self.store.ensure().ledger_path)
            journal = Journal(self.store.journal_path)
            try:
                delta_dir = journal.next_segment()  # the delta is kept: it is the journal (see runner/journal.py)
                committed = False
                try:
                    self._finish_forgets(ledger, timeout)
                    restored = restore_if_lost(self.descriptor, self.store, ledger, self._resend(timeout))
                    fresh = ledger.empty()  # a first index into an empty store: nothing can vanish
                    delta = build_delta(reader, ledger, delta_dir, origin)
                    if files is not None:
                        ledger.carry(files.carried)
                        delta.thread_ids = sorted({*delta.thread_ids, *files.left})
                    result = IndexResult(skipped=delta.skipped)
                    sent = self._adapter_input(delta)

                    def checkpoint(ids: list[str]) -> None:
                        nonlocal committed
                        ledger.commit(ids)
                        committed = True
                        if after_checkpoint is not None:
                            after_checkpoint(ids)

                    spec = ShardSpec(
                        adapter_folder=os.fspath(self.descriptor.path),
                        store=os.fspath(self.store.root),
                        config=dict(self.launch.config),
                        env=dict(self.launch.env),
                        sandbox=self.launch.sandbox,
                        timeouts=dict(self.launch.timeouts),
                        timeout=timeout,
                    )
                    shards_dir = self.store.work_root / f"shards-{delta_dir.name}"
                    if not delta.total_sent:
                        journal.discard(delta_dir)
                    elif pool is not None and mode == "shared":
                        raw = send_in_shards(sent, shards_dir, shards, spec, pool, checkpoint, progress)
                        ledger.commit_all_pending()
                        result = IndexResult.from_dict(raw)
                        result.skipped = delta.skipped
                    else:
                        prepared = (
                            prepare_in_shards(sent, shards_dir, shards, spec, pool, progress)
                            if pool is not None
                            else None
                        )
                        raw = self.call(
                            "index",
                            {"bundle": str(sent), "verified": True},
                            on_progress=progress,
                            on_checkpoint=checkpoint,
                            use_pool=False,
                            timeout=timeout,
                        )
                        ledger.commit_all_pending()
                        committed = True
                        result = IndexResult.from_dict(raw)
                        result.skipped = delta.skipped
                        if prepared is not None:
                            result.details["parallel"] = prepared
                        elif parallel > 1:
                            result.details["parallel"] = serial_reason(self.descriptor.name, mode, parallel, caps)
                    ledger.finish_run()
                    gone = ledger.vanished(delta.thread_ids) if prune and not fresh else []
                    if gone and caps.has("delete") and caps.supports("delete"):
                        kept = ledger.held_elsewhere(gone)
                        doomed = [i for i in gone if i not in kept]
                        if doomed:
                            deleted = DeleteResult.from_dict(self.call("delete", {"ids": doomed}, use_pool=False))
                            ledger.forget(doomed + deleted.deleted)
                        ledger.release(gone)
                        result.deleted = len(doomed)
                    if prune:
                        others = 0 if fresh else ledger.kept_for_other_sources(delta.thread_ids)
                        result.details["kept_for_other_sources"] = others
                    result.details["sent"] = delta.sent
                    record_store_files(self.descriptor, self.store, ledger, result.details, restored)
                    if sent != delta.adapter_input:
                        shutil.rmtree(sent, ignore_errors=True)
                    if files is not None:
                        ledger.save_files(files.files())
                    result.seconds = time.monotonic() - started
                    return result
                except BaseException:
                    if not committed:  # nothing of it reached the backend: the segment would only take space
                        journal.discard(delta_dir)
                    raise
            finally:
                ledger.close()

    def _resend(self, timeout: float | None) -> Callable[[Path], Any]:
        return lambda bundle: self.call(
            "index", {"bundle": str(bundle), "verified": True}, use_pool=False, timeout=timeout
        )

    def _adapter_input(self, delta: Delta) -> Path:
        """The bundle the adapter reads: the input itself when all of it goes, else the journal segment; an adapter
        not on memdock's Python SDK gets the segment inflated into a plain bundle (it may not read gzip parts)."""
        sent = delta.adapter_input
        if sent != delta.path or self.descriptor.runtime.get("kind") == "python" or not delta.total_sent:
            return sent
        return inflate(delta.path, self.store.work_root / f"delta-{delta.path.name}")

    def query(
        self,
        text: str,
        *,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
        mode: str | None = None,
        timeout: float | None = None,
        min_score: float | None = None,
        where: dict[str, Any] | None = None,
    ) -> SearchResult:
        params: dict[str, Any] = {"text": text, "limit": limit}
        if filters:
            params["filters"] = filters
        if where:
            params["where"] = where
        if mode:
            params["mode"] = mode
        if min_score:
            params["min_score"] = min_score
        return said_if_lost(
            self.descriptor, self.store, SearchResult.from_dict(self.call("query", params, timeout=timeout))
        )

    def _search(
        self, op: str, text: str, limit: int, group_ids: Sequence[str] | None, timeout: float | None
    ) -> SearchResult:
        params: dict[str, Any] = {"text": text, "limit": limit}
        if group_ids:
            params["group_ids"] = list(group_ids)
        return SearchResult.from_dict(self.call(op, params, timeout=timeout))

    def search_nodes(
        self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None, timeout: float | None = None
    ) -> SearchResult:
        return self._search("search_nodes", text, limit, group_ids, timeout)

    def search_facts(
        self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None, timeout: float | None = None
    ) -> SearchResult:
        return self._search("search_facts", text, limit, group_ids, timeout)

    def search_episodes(
        self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None, timeout: float | None = None
    ) -> SearchResult:
        return self._search("search_episodes", text, limit, group_ids, timeout)

    def get_node(self, node_id: str, *, timeout: float | None = None) -> GetResult:
        return GetResult.from_dict(self.call("get_node", {"id": node_id}, timeout=timeout))

    def get_edge(self, edge_id: str, *, timeout: float | None = None) -> GetResult:
        return GetResult.from_dict(self.call("get_edge", {"id": edge_id}, timeout=timeout))

    def counts(self) -> dict[str, int]:
        return self._from_ledger(Ledger.counts_by_type)

    def threads(self) -> dict[str, int]:
        return self._from_ledger(Ledger.threads)

    def source_files(self, origin: str) -> dict[str, FileState]:
        """The state of ORIGIN's source files when last indexed (nothing for a source never indexed here, or a
        store that lost what the ledger claims: every file is read again, see `runner/lost.py`)."""
        if lost_for_reading(self.descriptor, self.store):
            return {}
        return self._from_ledger(lambda ledger: ledger.files(origin))

    def _from_ledger(self, read: Callable[[Ledger], dict[str, Any]]) -> dict[str, Any]:
        """What the ledger says (nothing for a store never indexed, or a ledger that cannot be read)."""
        path = self.store.ledger_path
        if not path.exists():
            return {}
        try:
            ledger = Ledger.reader(path)
        except sqlite3.Error:
            return {}
        try:
            return read(ledger)
        except (MemdockError, sqlite3.Error):
            return {}
        finally:
            ledger.close()

    def delete(self, ids: Sequence[str], *, timeout: float | None = None) -> DeleteResult:
        """Delete IDS (and what depends on them) from the backend, the ledger and the journal's text. The ids are
        noted in the ledger first, so a forget killed midway is finished by the next one, or the next index."""
        with disk_full_as_error(self.store.root, "deleting"), self.store.write_lock(self.lock_timeout):
            ledger = Ledger(self.store.ensure().ledger_path)
            try:
                self._finish_forgets(ledger, timeout)
                return self._forget(ledger, list(ids), timeout)
            finally:
                ledger.close()

    def _forget(self, ledger: Ledger, ids: list[str], timeout: float | None) -> DeleteResult:
        ledger.mark_forgetting(ids)
        result = DeleteResult.from_dict(self.call("delete", {"ids": ids}, use_pool=False, timeout=timeout))
        ledger.mark_forgetting(result.deleted)
        ledger.forget(ids + result.deleted)
        Journal(self.store.journal_path).forget(ids + result.deleted)
        ledger.forgotten()
        return result

    def _finish_forgets(self, ledger: Ledger, timeout: float | None = None) -> None:
        """Finish a forget an earlier run was killed in (its ids are still noted in the ledger)."""
        left = ledger.forgetting()
        if left:
            self._forget(ledger, left, timeout)

    def export(
        self, out: str | os.PathLike[str], *, threads: Sequence[str] | None = None, force: bool = False
    ) -> Exported:
        """The store's memory, from its journal, as one bundle at OUT (only THREADS' records when given). OUT may
        not lie inside a store: with --force it could replace a journal segment, the memory itself."""
        refuse_output_in_store(out)
        with disk_full_as_error(self.store.root, "exporting"), self.store.write_lock(self.lock_timeout):
            ledger = Ledger(self.store.ensure().ledger_path)
            try:
                return Journal(self.store.journal_path).export(ledger, Path(out), threads, force=force)
            finally:
                ledger.close()

    def find_entry(self, entry_id: str) -> dict[str, Any] | None:
        """The live entry record ENTRY_ID from the journal (None when the store holds no such entry)."""
        if not self.store.ledger_path.exists():
            return None
        ledger = Ledger.reader(self.store.ledger_path)
        try:
            for rtype, rec, _ in Journal(self.store.journal_path).live(ledger, None):
                if rtype == "entry" and rec["id"] == entry_id:
                    return rec
        finally:
            ledger.close()
        return None

    def list_entries(self, thread_ids: Sequence[str], *, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """THREAD_IDS' live entries from the journal, oldest first (event time, then position)."""
        if not self.store.ledger_path.exists():
            return []
        ledger = Ledger.reader(self.store.ledger_path)
        try:
            entries = [
                rec for rtype, rec, _ in Journal(self.store.journal_path).live(ledger, thread_ids) if rtype == "entry"
            ]
        finally:
            ledger.close()
        entries.sort(key=lambda e: (e.get("event_time") or "", e.get("position", 0), e["id"]))
        return entries[offset : offset + limit]


def open_backend(
    backend: str | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
    registry: Registry | None = None,
    **kwargs: Any,
) -> SubprocessBackend:
    """Resolve the backend (flag, MEMDOCK_BACKEND, memdock.toml, default) and open it. The sandbox is the
    `sandbox` argument (True/"writes", "strict", False/"off") when given, else memdock.toml's `sandbox`."""
    settings = resolve(backend=backend, data_dir=data_dir)
    descriptor = (registry or Registry.default()).get(settings.backend)
    merged = {**settings.adapter_config, **(config or {})}
    if kwargs.get("sandbox") is None:
        kwargs["sandbox"] = settings.sandbox if settings.sandbox is not None else True
    return SubprocessBackend(descriptor, Path(settings.store), config=merged, **kwargs)
