"""StoreBackend: the MemoryBackend of the store engine, over any transport.

Writing operations hold the store's lock; `index` goes through the ledger (see `engine/index.py`) so runs resume
and only changes are sent; `delete` notes its ids in the ledger first so a killed forget is finished later;
export and entry lookups read the journal. How the adapter is reached is the transport's business.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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
from ..diskfull import disk_full_as_error
from ..errors import MemdockError, VersionError
from ..protocol import SUPPORTED_PROTOCOLS, negotiate, payload_compatible
from ..tempdirs import sweep
from .delta import Feed
from .index import IndexOptions, IndexRun
from .journal import Exported, Journal
from .ledger import Ledger
from .lost import lost_for_reading, said_if_lost
from .parallel import Executor
from .sources import FileState, Plan
from .store import Store, refuse_output_in_store
from .transport import CheckpointCallback, Transport


class StoreBackend:
    """The store in STORE (a `Store` or its folder), its adapter reached through TRANSPORT."""

    def __init__(self, transport: Transport, store: Store | str | os.PathLike[str], *, lock_timeout: float = 10.0):
        self.transport = transport
        self.store = store if isinstance(store, Store) else Store(store)
        self.lock_timeout = lock_timeout
        self._caps: Capabilities | None = None

    @property
    def name(self) -> str:
        return self.transport.name

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> StoreBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self,
        operation: str,
        params: dict[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        on_checkpoint: CheckpointCallback | None = None,
        offered: tuple[str, ...] | None = None,
        use_pool: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """One protocol operation through the transport; the raw result object. USE_POOL False asks for an
        adapter of the call's own (see `Transport.call`'s `shared`)."""
        return self.transport.call(
            operation,
            params or {},
            on_progress=on_progress,
            on_checkpoint=on_checkpoint,
            offered=offered,
            shared=use_pool,
            timeout=timeout,
        )

    def _write_lock(self) -> contextlib.AbstractContextManager[None]:
        return self.store.write_lock(self.lock_timeout, self.name, self.transport.store_files)

    def _write(self, operation: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
        with (
            disk_full_as_error(self.store.root, f"running {operation}"),
            self._write_lock(),
        ):
            return self.call(operation, params, **kw)

    # -- MemoryBackend ---------------------------------------------------------------------------

    def get_capabilities(self, *, refresh: bool = False) -> Capabilities:
        if self._caps is None or refresh:
            raw = self.transport.handshake({"offered_protocols": list(SUPPORTED_PROTOCOLS)}, refresh=refresh)
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
        bundle: str | os.PathLike[str] | Feed,
        *,
        progress: ProgressCallback | None = None,
        prune: bool = True,
        origin: str | None = None,
        timeout: float | None = None,
        after_checkpoint: CheckpointCallback | None = None,
        parallel: int = 1,
        executor: str | Executor | None = None,
        address: str | None = None,
        files: Plan | None = None,
    ) -> IndexResult:
        """Index a chunks (or corpus) bundle: send what the ledger lacks, resume after a kill, delete what vanished.
        BUNDLE may be a `delta.Feed` instead, whose records are made in the same pass (`memdock add`).

        PARALLEL > 1 sends the delta as that many shards at once through EXECUTOR ("local" threads, "ray" at
        ADDRESS, or an `Executor`) when the adapter takes parallel writers (see `engine/parallel.py`); otherwise
        one writer sends it, and `details["parallel"]` says why.

        Only records this bundle's source wrote are pruned (see `memdock.bundle.source`); what `remember` or
        another bundle added to the same threads stays. ORIGIN overrides the bundle's source: the service
        passes `remember` for its notes, an origin no manifest may claim.

        AFTER_CHECKPOINT is called with each checkpoint's ids once the ledger has them; an exception it
        raises stops the adapter (the conformance kit uses this to kill a run midway).

        FILES (a re-add, see `engine/sources.py`): the records of the source files it skipped count as seen, the
        threads of files that left the source are pruned too, and the ledger keeps the files' state for next time.
        """
        options = IndexOptions(progress, prune, origin, timeout, after_checkpoint, parallel, executor, address, files)
        return IndexRun(self, options).run(bundle)

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
        result = SearchResult.from_dict(self.call("query", params, timeout=timeout))
        return said_if_lost(self.transport, self.store, result)

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

    # -- the ledger and the journal ----------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return self._from_ledger(Ledger.counts_by_type)

    def threads(self) -> dict[str, int]:
        return self._from_ledger(Ledger.threads)

    def source_files(self, origin: str) -> dict[str, FileState]:
        """The state of ORIGIN's source files when last indexed (nothing for a source never indexed here, or a
        store that lost what the ledger claims: every file is read again, see `engine/lost.py`)."""
        if lost_for_reading(self.transport, self.store):
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
        noted in the ledger first, so a forget killed midway is finished by the next one, or the next index. The
        temp folders killed memdock processes left (a `remember`'s notes, a `migrate`'s export) go too."""
        sweep()
        with disk_full_as_error(self.store.root, "deleting"), self._write_lock():
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
