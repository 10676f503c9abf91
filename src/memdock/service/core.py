"""The backend-agnostic service, synchronous: argument checks, capability gating, deadlines, one retry,
and degraded answers instead of exceptions where a caller can carry on without the result.

What raises: bad arguments (InvalidInputError), and setup faults the caller must see (config, version).
What degrades to an empty result with a reason: an operation or retrieval the backend lacks, a transient
failure that persists after one retry, a backend error, a deadline passed.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..bundle import source
from ..contract import Capabilities, DeleteResult, GetResult, SearchResult
from ..errors import BackendError, MemdockError, TransientError, UnsupportedOperationError
from ..runner.backend import SubprocessBackend, open_backend
from ..runner.ledger import Ledger
from . import arguments, remember

log = logging.getLogger("memdock.service")

DEFAULT_DEADLINE = 10.0
INDEX_DEADLINE = 600.0
MIN_ATTEMPT = 0.05
RETRIEVAL_OPS = frozenset({"query", "search_nodes", "search_facts", "search_episodes", "get_node", "get_edge"})

R = TypeVar("R")


@dataclass
class Remembered:
    id: str
    indexed: dict[str, int]
    degraded: bool = False
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "indexed": self.indexed, "degraded": self.degraded}
        if self.reason:
            out["reason"] = self.reason
        return out


class ServiceCore:
    """One backend, resolved once, called through worker mode."""

    def __init__(
        self,
        backend: str | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: dict[str, Any] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        workers: int = 1,
        backend_impl: SubprocessBackend | None = None,
        sandbox: bool | str | None = None,
    ):
        self.backend = backend_impl or open_backend(
            backend, data_dir=data_dir, config=config, workers=workers, retries=0, sandbox=sandbox
        )
        self.name = self.backend.name
        self.deadline = deadline
        self._caps: Capabilities | None = None
        self._caps_error: str | None = None

    def close(self) -> None:
        self.backend.close()

    # -- policy --------------------------------------------------------------------------------

    def capabilities(self) -> Capabilities | None:
        if self._caps is None:
            try:
                self._caps = self.backend.get_capabilities()
                self._caps_error = None
            except (TransientError, BackendError) as exc:
                self._caps_error = f"backend {self.name} did not answer capabilities: {exc.message}"
        return self._caps

    def _lacks(self, op: str) -> str | None:
        caps = self.capabilities()
        if caps is None:
            return self._caps_error
        if not caps.supports(op):
            return f"backend {self.name} does not support {op}"
        if op in RETRIEVAL_OPS and caps.features.get("retrieval") is False:
            return f"backend {self.name} stores nothing to retrieve (features.retrieval=false)"
        return None

    def _run(
        self, op: str, call: Callable[[float], R], degraded: Callable[[str], R], deadline: float | None = None
    ) -> R:
        """CALL with the time left; a transient failure is retried once within the same deadline."""
        started = time.monotonic()
        budget = deadline or self.deadline
        end = started + budget
        attempts, reason = 0, ""
        while attempts < 2:
            remaining = end - time.monotonic()
            if remaining < MIN_ATTEMPT:
                reason = reason or f"the {budget:g}s deadline passed"
                break
            attempts += 1
            try:
                result = call(remaining)
                log.info(
                    "%s %s ok in %.1f ms (attempt %d)", self.name, op, (time.monotonic() - started) * 1000, attempts
                )
                return result
            except TransientError as exc:
                reason = f"{op} failed after {attempts} attempt(s) within the {budget:g}s deadline: {exc.message}"
            except (UnsupportedOperationError, BackendError) as exc:
                reason = f"{op} failed: {exc.message}"
                break
        log.warning("%s %s degraded in %.1f ms: %s", self.name, op, (time.monotonic() - started) * 1000, reason)
        return degraded(reason)

    # -- searches ------------------------------------------------------------------------------

    def _search(self, op: str, params: dict[str, Any]) -> SearchResult:
        params["text"] = arguments.text(params.get("text"))
        params["limit"] = arguments.limit(params.get("limit", 10))
        lacking = self._lacks(op)
        if lacking:
            return SearchResult(degraded=True, reason=lacking, backend=self.name)
        started = time.monotonic()

        def call(timeout: float) -> SearchResult:
            result = SearchResult.from_dict(self.backend.call(op, params, timeout=timeout))
            result.took_ms = (time.monotonic() - started) * 1000
            result.backend = result.backend or self.name
            return result

        return self._run(op, call, lambda why: SearchResult(degraded=True, reason=why, backend=self.name))

    def query(
        self, text: str, *, limit: int = 10, filters: dict[str, Any] | None = None, mode: str | None = None
    ) -> SearchResult:
        params: dict[str, Any] = {"text": text, "limit": limit}
        checked = arguments.filters(filters)
        if checked:
            params["filters"] = checked
        mode = arguments.mode(mode)
        if mode:
            params["mode"] = mode
        return self._search("query", params)

    def search_nodes(self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None) -> SearchResult:
        return self._search("search_nodes", _grouped(text, limit, group_ids))

    def search_facts(self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None) -> SearchResult:
        return self._search("search_facts", _grouped(text, limit, group_ids))

    def search_episodes(self, text: str, *, limit: int = 10, group_ids: Sequence[str] | None = None) -> SearchResult:
        return self._search("search_episodes", _grouped(text, limit, group_ids))

    def _get(self, op: str, item_id: str) -> GetResult:
        item_id = arguments.identifier(item_id)
        lacking = self._lacks(op)
        if lacking:
            return GetResult(degraded=True, reason=lacking)
        return self._run(
            op,
            lambda t: GetResult.from_dict(self.backend.call(op, {"id": item_id}, timeout=t)),
            lambda why: GetResult(degraded=True, reason=why),
        )

    def get_node(self, node_id: str) -> GetResult:
        return self._get("get_node", node_id)

    def get_edge(self, edge_id: str) -> GetResult:
        return self._get("get_edge", edge_id)

    # -- writes --------------------------------------------------------------------------------

    def forget(self, ids: Sequence[str] | str) -> DeleteResult:
        wanted = arguments.identifiers(ids)
        lacking = self._lacks("delete")
        if lacking:
            return DeleteResult(not_found=wanted, degraded=True, reason=lacking)
        return self._run(
            "delete",
            lambda t: self.backend.delete(wanted, timeout=t),
            lambda why: DeleteResult(not_found=wanted, degraded=True, reason=why),
        )

    def remember(
        self,
        content: str,
        *,
        thread: str | None = None,
        author: str | None = None,
        role: str | None = None,
        type: str | None = None,
        title: str | None = None,
        time: Any = None,
    ) -> Remembered:
        """Import, chunk and index one entry. Nothing else in its thread is touched (no pruning)."""
        work = Path(tempfile.mkdtemp(prefix="memdock-remember-"))
        try:
            bundle, entry_id = remember.build(
                work, content, thread=thread, author=author, role=role, type=type, title=title, time=time
            )
            lacking = self._lacks("index")
            if lacking:
                return Remembered(entry_id, {}, degraded=True, reason=lacking)

            def call(timeout: float) -> Remembered:
                result = self.backend.index(bundle, prune=False, origin=source.REMEMBER)
                caps = self.capabilities()
                stored = caps is None or caps.features.get("retrieval") is not False
                return Remembered(
                    entry_id,
                    result.indexed,
                    degraded=not stored,
                    reason=None if stored else f"backend {self.name} stores nothing (features.retrieval=false)",
                )

            return self._run(
                "remember",
                call,
                lambda why: Remembered(entry_id, {}, degraded=True, reason=why),
                deadline=max(self.deadline, INDEX_DEADLINE),
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # -- status --------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        caps = self.capabilities()
        out: dict[str, Any] = {
            "backend": self.name,
            "store": str(self.backend.store.root),
            "capabilities": caps.to_dict() if caps else None,
            "counts": self._counts(),
        }
        health = self._run(
            "healthcheck",
            lambda t: self.backend.call("healthcheck", timeout=t),
            lambda why: {"ok": False, "message": why},
        )
        out["health"] = health
        out["degraded"] = caps is None or not health.get("ok", False)
        if caps is None:
            out["reason"] = self._caps_error
        return out

    def _counts(self) -> dict[str, int]:
        """What the core's ledger says this store holds, by record type (the same for every backend)."""
        path = self.backend.store.ledger_path
        if not path.exists():
            return {}
        ledger = Ledger(path)
        try:
            return ledger.counts_by_type()
        except MemdockError:
            return {}
        finally:
            ledger.close()


def _grouped(text: str, limit: int, group_ids: Sequence[str] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"text": text, "limit": limit}
    if group_ids is not None and group_ids != []:
        params["group_ids"] = arguments.identifiers(group_ids, name="threads")
    return params
