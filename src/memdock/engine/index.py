"""One index run: read and check the input once, diff it against the ledger while writing the journal segment
(the delta), send the delta to the adapter (one writer, or shards in parallel), then prune what vanished.

Every step runs under the store's write lock. The ledger commits records only as the adapter checkpoints them,
so a run killed at any point resumes: the next run sends again what the ledger holds as pending. A run that
failed before anything reached the backend discards its journal segment.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Container
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bundle import BundleReader
from ..contract import Capabilities, DeleteResult, IndexResult, ProgressCallback
from ..diskfull import disk_full_as_error
from ..errors import InvalidInputError, MemdockError, TransientError
from .delta import Delta, Feed, build_delta
from .journal import Journal, inflate
from .ledger import Ledger
from .lost import record_store_files, restore_if_lost
from .parallel import (
    Executor,
    Job,
    ShardSpec,
    check_parallel,
    executor_for,
    parallel_plan,
    prepare_in_shards,
    send_in_shards,
    serial_reason,
    writers_mode,
)
from .sources import Plan
from .stream import AdapterGone, CallThread, InputStream, drain
from .transport import Call, CheckpointCallback

if TYPE_CHECKING:
    from .backend import StoreBackend


@dataclass
class IndexOptions:
    """`StoreBackend.index`'s keyword arguments (see there)."""

    progress: ProgressCallback | None = None
    prune: bool = True
    origin: str | None = None
    timeout: float | None = None
    after_checkpoint: CheckpointCallback | None = None
    parallel: int = 1
    executor: str | Executor | None = None
    address: str | None = None
    files: Plan | None = None


@dataclass
class Writers:
    """How the delta goes: MODE (`shared`, `merge`, `serial`), SHARDS at once through POOL with JOB and SPEC
    (POOL None: one writer); WHY a run asked for several shards runs as one."""

    mode: str
    shards: int = 1
    pool: Executor | None = None
    job: Job | None = None
    spec: ShardSpec | None = None
    why: dict[str, Any] | None = None


class IndexRun:
    """One `index` call on BACKEND's store, in named steps."""

    def __init__(self, backend: StoreBackend, options: IndexOptions):
        self.backend, self.opts = backend, options
        self.store, self.transport = backend.store, backend.transport
        self.committed = False
        self.ledger: Ledger | None = None
        self.restored: dict[str, Any] | None = None
        self.implied = False

    def run(self, bundle: str | os.PathLike[str] | Feed) -> IndexResult:
        """Index BUNDLE, or the records a Feed makes in the same pass (`memdock add`, see `importers/onepass.py`)."""
        started = time.monotonic()
        reader = open_input(bundle) if isinstance(bundle, (str, os.PathLike)) else bundle
        caps = self.backend.get_capabilities()
        self.implied = implied_mode(caps)
        writers = self.plan_writers(caps)  # a bad executor fails before any work
        with (
            disk_full_as_error(self.store.root, "indexing"),
            self.store.write_lock(self.backend.lock_timeout, self.backend.name, self.transport.store_files),
        ):
            self.ledger = Ledger(self.store.ensure().ledger_path)
            try:
                result = self.in_journal(reader, caps, writers)
            finally:
                self.ledger.close()
        result.seconds = time.monotonic() - started
        return result

    def plan_writers(self, caps: Capabilities) -> Writers:
        """How many writers send the delta, and through what (see `engine/parallel.py`)."""
        requested = check_parallel(self.opts.parallel)
        mode = writers_mode(self.transport.parallel_writers, caps)
        shards = parallel_plan(mode, requested, caps)
        if shards <= 1:
            why = serial_reason(self.transport.name, mode, requested, caps) if requested > 1 else None
            return Writers(mode, why=why)
        shard_job = self.transport.shard_job(self.opts.timeout)
        if shard_job is None:
            said = f"{self.transport.name}: {type(self.transport).__name__} runs one writer"
            return Writers(mode, why={"mode": mode, "shards": 1, "requested": requested, "why": said})
        pool = executor_for(self.opts.executor, shards, self.opts.address)
        return Writers(mode, shards, pool, *shard_job)

    def in_journal(self, reader: BundleReader | Feed, caps: Capabilities, writers: Writers) -> IndexResult:
        """The run proper, its delta kept as the journal's next segment (see `engine/journal.py`); the segment is
        discarded when nothing of it reached the backend. An adapter that reads a stream gets the delta while the
        pass makes it (`engine/stream.py`), a Feed's or a bundle's alike: the pass and the adapter then run at once
        instead of one after the other."""
        journal = Journal(self.store.journal_path)
        delta_dir = journal.next_segment()
        try:
            if self.streams(caps, writers) and (streamable(reader) and getattr(self.transport, "writer", None) is None):
                delta, fresh, result = self.streamed(reader, delta_dir)
                sent = delta.adapter_input
                if writers.why is not None:
                    result.details["parallel"] = writers.why
            else:
                delta, fresh = self.diff(reader, delta_dir)
                sent = self.adapter_input(delta)
                shards = self.store.work_root / f"shards-{delta_dir.name}"
                result = self.send(sent, writers, shards) if delta.total_sent else IndexResult()
            if not delta.total_sent:
                journal.discard(delta_dir)
            result.skipped = delta.skipped
            self.finish(result, delta, sent, fresh, caps)
            return result
        except BaseException:
            if not self.committed:  # nothing of it reached the backend: the segment would only take space
                journal.discard(delta_dir)
            raise

    def before_delta(self) -> bool:
        """Finish a killed forget and restore a lost store; whether the store is empty (a first index: nothing
        can vanish)."""
        assert self.ledger is not None
        self.backend._finish_forgets(self.ledger, self.opts.timeout)
        self.restored = restore_if_lost(self.transport, self.store, self.ledger, self.resend)
        return self.ledger.empty()

    def diff(self, reader: BundleReader | Feed, delta_dir: Path) -> tuple[Delta, bool]:
        """The delta against the ledger, written as the journal's segment; whether the store was empty."""
        assert self.ledger is not None
        fresh = self.before_delta()
        delta = build_delta(reader, self.ledger, delta_dir, self.opts.origin, fresh=fresh, implied=self.implied)
        self.carry(delta)
        return delta, fresh

    def carry(self, delta: Delta) -> None:
        """A re-add's skipped files: their records count as seen, the threads of files that left are pruned."""
        assert self.ledger is not None
        files = self.opts.files
        if files is not None:
            self.ledger.carry(files.carried)
            delta.thread_ids = sorted({*delta.thread_ids, *files.left})

    def streams(self, caps: Capabilities, writers: Writers) -> bool:
        """Whether the adapter reads the delta while the pass makes it: one writer, a transport and an adapter
        that can, and MEMDOCK_INDEX_STREAM not 0."""
        return (
            writers.pool is None
            and getattr(self.transport, "streams", False)
            and caps.has("input_stream")
            and os.environ.get("MEMDOCK_INDEX_STREAM", "1") != "0"
        )

    def streamed(self, feed: BundleReader | Feed, delta_dir: Path) -> tuple[Delta, bool, IndexResult]:
        """The delta written and indexed at once (see `engine/stream.py`); the adapter's checkpoints reach the
        ledger once the segment is sealed. The adapter starts at the delta's first lines: an empty one starts none."""
        assert self.ledger is not None
        fresh = self.before_delta()
        stream = InputStream(spill_dir=self.store.ensure().work_root)
        request = Call("index", {"stream": True, "verified": True}, stream.on_progress, stream.on_checkpoint)
        request = replace(request, shared=False, timeout=self.opts.timeout, stream=stream)
        call = CallThread(lambda: self.transport.send(request), stream)
        stream.start = call.start
        try:
            args = (feed, self.ledger, delta_dir, self.opts.origin)
            delta = build_delta(*args, fresh=fresh, tee=stream.tee, implied=self.implied)
            self.carry(delta)
            if not call.started:
                return delta, fresh, IndexResult()
            stream.end()
        except AdapterGone:
            call.join()  # the adapter's own error says why it stopped reading
            raise
        except BaseException:
            stream.close()  # an input without its end line: the adapter commits nothing more
            call.wait()
            raise
        try:
            self.prewrite(stream, fresh)
            drain(stream, self.checkpoint, self.opts.progress)
        except BaseException as exc:
            stream.stop()
            call.wait()
            self.ledger.abandon_prewrite()
            err = stopped_mid_stream(exc, stream.sent)
            if err is exc:
                raise
            raise err from exc
        finally:
            stream.held.close()
        try:
            result = self.indexed(call.join())
        except BaseException as exc:
            self.ledger.abandon_prewrite()  # the checkpoints that came are all the adapter vouches for
            if not isinstance(exc, MemdockError) or not exc.retryable or getattr(self.transport, "retries", 0) < 1:
                raise
            return delta, fresh, self.sealed_retry(delta, exc)
        result.details["input_stream"] = stream.sent
        return delta, fresh, result

    def prewrite(self, stream: InputStream, fresh: bool) -> None:
        """A first index's ledger rows written while the adapter finishes its load (`Ledger.prewrite`), once the
        checkpoints that came while the pass ran are committed, as any run's are. Not for a caller that watches
        checkpoints: AFTER_CHECKPOINT is told of each once the ledger file holds it."""
        assert self.ledger is not None
        if not fresh or self.opts.after_checkpoint is not None:
            return
        for ids in stream.held.take():
            self.checkpoint(ids)
        self.ledger.prewrite()

    def sealed_retry(self, delta: Delta, exc: MemdockError) -> IndexResult:
        """A streamed call that failed once its input was whole, with an error worth a retry: the sealed segment
        goes instead, as a call that was never streamed would be retried. (A call that failed mid-pass stopped
        the pass: the next run resends what the ledger holds pending.)"""
        shards = self.store.work_root / f"shards-{delta.path.name}"
        retries = self.transport.retries  # type: ignore[attr-defined]  # checked by the caller
        self.transport.retries = retries - 1  # type: ignore[attr-defined]  # the streamed call was the first attempt
        try:
            result = self.send(self.adapter_input(delta), Writers("serial"), shards)
        finally:
            self.transport.retries = retries  # type: ignore[attr-defined]
        result.details["input_stream_retry"] = exc.message
        return result

    def resend(self, bundle: Path) -> dict[str, Any]:
        """Send BUNDLE whole (a store restored from its journal, see `engine/lost.py`)."""
        params = {"bundle": str(bundle), "verified": True}
        return self.backend.call("index", params, use_pool=False, timeout=self.opts.timeout)

    def adapter_input(self, delta: Delta) -> Path:
        """The bundle the adapter reads: the input itself when all of it goes, else the journal segment; an adapter
        not on memdock's Python SDK gets the segment inflated into a plain bundle (it may not read gzip parts)."""
        sent = delta.adapter_input
        if sent != delta.path or self.transport.reads_gzip or not delta.total_sent:
            return sent
        return inflate(delta.path, self.store.work_root / f"delta-{delta.path.name}")

    def checkpoint(self, ids: list[str]) -> None:
        assert self.ledger is not None
        self.ledger.commit(ids)
        self.committed = True
        if self.opts.after_checkpoint is not None:
            self.opts.after_checkpoint(ids)

    def send(self, sent: Path, writers: Writers, shards_dir: Path) -> IndexResult:
        """Send the delta at SENT: as shards indexed at once (a shared backend), else through one writer, its
        shards prepared ahead at once when the plan says so."""
        assert self.ledger is not None
        progress = self.opts.progress
        if writers.pool is not None and writers.mode == "shared":
            assert writers.job is not None and writers.spec is not None
            args = (sent, shards_dir, writers.shards, writers.spec, writers.pool)
            raw = send_in_shards(*args, self.checkpoint, writers.job, progress)
            self.ledger.commit_all_pending()
            return IndexResult.from_dict(raw)
        prepared = None
        if writers.pool is not None:
            assert writers.job is not None and writers.spec is not None
            args = (sent, shards_dir, writers.shards, writers.spec, writers.pool)
            prepared = prepare_in_shards(*args, writers.job, progress)
        raw = self.backend.call(
            "index",
            {"bundle": str(sent), "verified": True},
            on_progress=progress,
            on_checkpoint=self.checkpoint,
            use_pool=False,
            timeout=self.opts.timeout,
        )
        result = self.indexed(raw)
        if prepared is not None:
            result.details["parallel"] = prepared
        elif writers.why is not None:
            result.details["parallel"] = writers.why
        return result

    def indexed(self, raw: dict[str, Any]) -> IndexResult:
        """The adapter's answer to a whole delta: every record it was sent is committed."""
        assert self.ledger is not None
        self.ledger.commit_all_pending()
        self.committed = True
        return IndexResult.from_dict(raw)

    def finish(self, result: IndexResult, delta: Delta, sent: Path, fresh: bool, caps: Capabilities) -> None:
        """Close the run in the ledger, prune what vanished from the input's threads, keep the re-add's file
        state, and remove an inflated copy of the delta."""
        assert self.ledger is not None
        self.ledger.finish_run()
        if self.opts.prune:
            self.prune(result, delta.thread_ids, fresh, caps, delta.implied)
        result.details["sent"] = delta.sent
        if delta.implied_sent:
            result.details["implied_edges"] = delta.implied_sent
        record_store_files(self.transport, self.store, self.ledger, result.details, self.restored)
        if sent != delta.adapter_input:
            shutil.rmtree(sent, ignore_errors=True)
        if self.opts.files is not None:
            self.ledger.save_files(self.opts.files.files())

    def now_implied(self, gone: list[str], implied: Container[str], kept: set[str]) -> list[str]:
        """GONE less the edges this input's entries now imply: their ledger rows (records sent before, by an
        explicit run) are dropped without a delete, since the adapter holds those edges as implied now (KEPT:
        those of GONE another origin holds)."""
        assert self.ledger is not None
        derived = [i for i in gone if i in implied]
        if derived:
            self.ledger.forget([i for i in derived if i not in kept])
            self.ledger.release(derived)
        return [i for i in gone if i not in implied]

    def prune(
        self, result: IndexResult, thread_ids: list[str], fresh: bool, caps: Capabilities, delta_implied: Container[str]
    ) -> None:
        """Delete the records of THREAD_IDS this source wrote before and did not send again (only when the
        backend deletes); count what other sources keep in those threads."""
        assert self.ledger is not None
        gone = [] if fresh else self.ledger.vanished(thread_ids)
        deletes = caps.has("delete") and caps.supports("delete")
        kept = self.ledger.held_elsewhere(gone) if gone and (delta_implied or deletes) else set()
        if gone and delta_implied:
            gone = self.now_implied(gone, delta_implied, kept)
        if gone and deletes:
            doomed = [i for i in gone if i not in kept]
            if doomed:
                deleted = DeleteResult.from_dict(self.backend.call("delete", {"ids": doomed}, use_pool=False))
                self.ledger.forget(doomed + deleted.deleted)
            self.ledger.release(gone)
            result.deleted = len(doomed)
        result.details["kept_for_other_sources"] = 0 if fresh else self.ledger.kept_for_other_sources(thread_ids)


def implied_mode(caps: Capabilities) -> bool:
    """Whether entries go with `implied_edges` (payload 1.2.0): the adapter derives those edges, and
    MEMDOCK_IMPLIED_EDGES is not 0."""
    return caps.has("implied_edges") and os.environ.get("MEMDOCK_IMPLIED_EDGES", "1") != "0"


def streamable(reader: BundleReader | Feed) -> bool:
    """Whether READER's records can go as a stream: a Feed's always; a bundle's unless it carries embeddings (their
    matrix goes as a file, which the stream's lines do not carry). A bundle goes to a transport's write worker, when
    it keeps one, as before (a warm worker, where a stream would start a one-shot adapter)."""
    return not isinstance(reader, BundleReader) or not reader.count("embedding")


def stopped_mid_stream(exc: BaseException, sent: int) -> BaseException:
    """Why a streamed run stopped its adapter while handing over its checkpoints, as a sealed run says it: a
    callback's error (the ledger's, or an `after_checkpoint` that ends the run) as a TransientError, as
    `runner/oneshot.py` reports it, with the stream's lines counted in its details (`input_stream`)."""
    if not isinstance(exc, Exception):
        return exc
    err = exc if isinstance(exc, MemdockError) else TransientError(f"index: {exc}")
    err.details.setdefault("input_stream", sent)
    return err


def open_input(bundle: str | os.PathLike[str]) -> BundleReader:
    """The input, read once (a bundle the core sealed is trusted by its files' hashes)."""
    reader = BundleReader(bundle, trust_seal=True)
    if reader.kind not in ("chunks", "corpus"):
        raise InvalidInputError(f"{bundle}: cannot index a {reader.kind} bundle; give a corpus or chunks bundle")
    return reader
