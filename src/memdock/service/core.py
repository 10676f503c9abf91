"""The backend-agnostic service, synchronous: argument checks, capability gating, deadlines, one retry,
and degraded answers instead of exceptions where a caller can carry on without the result.

What raises: bad arguments (InvalidInputError), and setup faults the caller must see (config, version).
What degrades to an empty result with a reason: an operation or retrieval the backend lacks, a transient
failure that persists after one retry, a backend error, a deadline passed.

The service knows backends only through the `MemoryBackend` protocol (memdock.contract): the front doors
(memdock.api, the MCP server, the CLI) open one with `memdock.connect` and hand it over.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..bundle import source
from ..contract import Capabilities, DeleteResult, GetResult, HealthStatus, MemoryBackend, SearchResult
from ..errors import BackendError, InvalidInputError, TransientError, UnsupportedOperationError
from ..operations import RETRIEVAL_OPERATIONS
from ..tempdirs import private_dir
from . import remember
from .remember import Note
from .requests import Count, Forget, Get, Listing, Recall, Search, Update
from .results import Entry, Remembered, Status

log = logging.getLogger("memdock.service")

DEFAULT_DEADLINE = 10.0
INDEX_DEADLINE = 600.0
MIN_ATTEMPT = 0.05
MAX_BATCH = 10_000

R = TypeVar("R")


class ServiceCore:
    """One backend, resolved once, called through worker mode."""

    def __init__(
        self, backend: MemoryBackend, *, deadline: float = DEFAULT_DEADLINE, capabilities: Capabilities | None = None
    ):
        """CAPABILITIES: the backend's, when known already (a write process gets its front end's)."""
        self.backend = backend
        self.name = backend.name
        self.deadline = deadline
        self._caps: Capabilities | None = capabilities
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

    def lacking(self, op: str) -> str | None:
        """Why OP would answer degraded on this backend, from its capabilities (None: it is offered)."""
        return self._lacks(op)

    def _lacks(self, op: str) -> str | None:
        caps = self.capabilities()
        if caps is None:
            return self._caps_error
        if not caps.supports(op):
            return f"backend {self.name} does not support {op}"
        if op in RETRIEVAL_OPERATIONS and caps.features.get("retrieval") is False:
            return f"backend {self.name} stores nothing to retrieve (features.retrieval=false)"
        return None

    def _run(
        self, op: str, call: Callable[[float], R], degraded: Callable[[str], R], deadline: float | None = None
    ) -> R:
        """CALL with the time left; a transient failure is retried once within the same deadline."""
        started = time.monotonic()
        budget = deadline or self.deadline
        end = started + budget
        attempts, tries, reason = 0, 0, ""
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
                tries += int(exc.details.get("attempts", 1))  # the backend's own retries count too
                reason = f"{op} failed after {tries} attempt(s) within the {budget:g}s deadline: {exc.message}"
            except (UnsupportedOperationError, BackendError) as exc:
                reason = f"{op} failed: {exc.message}"
                break
        log.warning("%s %s degraded in %.1f ms: %s", self.name, op, (time.monotonic() - started) * 1000, reason)
        return degraded(reason)

    # -- searches ------------------------------------------------------------------------------

    def _search(self, op: str, run: Callable[[float], SearchResult]) -> SearchResult:
        lacking = self._lacks(op)
        if lacking:
            return SearchResult(degraded=True, reason=lacking, backend=self.name)
        started = time.monotonic()

        def call(timeout: float) -> SearchResult:
            result = run(timeout)
            result.took_ms = (time.monotonic() - started) * 1000
            result.backend = result.backend or self.name
            return result

        return self._run(op, call, lambda why: SearchResult(degraded=True, reason=why, backend=self.name))

    def recall(self, request: Recall) -> SearchResult:
        """Hits best first; with min_score, only those scoring at least that (scores lie in [0, 1]). The backend
        is asked to cut below it before the limit (the adapter SDK applies it: memdock.sdk.params.min_score_of).
        A `where` on the entries' metadata (see service/metadata.py) needs a backend that declares
        `features.metadata_filter`; another answers degraded, never with unfiltered hits."""
        extra: dict[str, Any] = {}
        if request.min_score:
            extra["min_score"] = request.min_score
        if request.where:
            extra["where"] = request.where
            caps = self.capabilities()
            if caps is not None and not caps.features.get("metadata_filter"):
                why = f"backend {self.name} cannot filter on metadata (features.metadata_filter is not true)"
                return SearchResult(degraded=True, reason=why, backend=self.name)
        wire = request.filters.to_wire()

        def call(t: float | None) -> SearchResult:
            return self.backend.query(
                request.text, limit=request.limit, filters=wire, mode=request.mode, timeout=t, **extra
            )

        return self._search("query", call)

    def query(self, text: str, **options: Any) -> SearchResult:
        """recall with the request built from Recall.of's arguments."""
        return self.recall(Recall.of(text, **options))

    def search(self, request: Search) -> SearchResult:
        groups = list(request.thread_ids) if request.thread_ids else None
        run: Callable[..., SearchResult] = getattr(self.backend, request.op)
        return self._search(request.op, lambda t: run(request.text, limit=request.limit, group_ids=groups, timeout=t))

    def search_nodes(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return self.search(Search.of("search_nodes", text, limit=limit, thread=thread))

    def search_facts(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return self.search(Search.of("search_facts", text, limit=limit, thread=thread))

    def search_episodes(self, text: str, *, limit: int = 10, thread: Any = None) -> SearchResult:
        return self.search(Search.of("search_episodes", text, limit=limit, thread=thread))

    def get(self, request: Get) -> GetResult:
        lacking = self._lacks(request.op)
        if lacking:
            return GetResult(degraded=True, reason=lacking)
        fetch: Callable[..., GetResult] = getattr(self.backend, request.op)
        return self._run(
            request.op, lambda t: fetch(request.id, timeout=t), lambda why: GetResult(degraded=True, reason=why)
        )

    def get_node(self, node_id: str) -> GetResult:
        return self.get(Get.of("get_node", node_id))

    def get_edge(self, edge_id: str) -> GetResult:
        return self.get(Get.of("get_edge", edge_id))

    # -- writes --------------------------------------------------------------------------------

    def delete(self, request: Forget) -> DeleteResult:
        """Delete the request's ids with what depends on them."""
        wanted = list(request.ids)
        lacking = self._lacks("delete")
        if lacking:
            return DeleteResult(not_found=wanted, degraded=True, reason=lacking)
        return self._run(
            "delete",
            lambda t: self.backend.delete(wanted, timeout=t),
            lambda why: DeleteResult(not_found=wanted, degraded=True, reason=why),
        )

    def forget(self, ids: Sequence[str] | str) -> DeleteResult:
        return self.delete(Forget.of(ids))

    def remember(self, content: str, **fields: Any) -> Remembered:
        """Import, chunk and index one entry (FIELDS: Note.of's, as memdock.verbs.remember takes them). Nothing
        else in its thread is touched (no pruning)."""
        return self.remember_notes([Note.of(content, **fields)])[0]

    def remember_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[Remembered]:
        """Remember several entries with one index call. Each item is the content, or a mapping with
        `content` and any of remember's keyword arguments. All are checked before anything is written."""
        return self.remember_notes(notes_of(items))

    def remember_notes(self, notes: list[Note]) -> list[Remembered]:
        """Index checked NOTES with one call; their results in order."""
        if not notes:
            return []
        with private_dir("remember") as work:
            bundle, entry_ids = remember.build(work, notes)
            pairs = [(eid, n.thread_id) for eid, n in zip(entry_ids, notes)]
            lacking = self._lacks("index")
            if lacking:
                return [Remembered(e, t, degraded=True, reason=lacking) for e, t in pairs]

            def call(timeout: float) -> list[Remembered]:
                result = self.backend.index(bundle, prune=False, origin=source.REMEMBER, timeout=timeout)
                caps = self.capabilities()
                stored = caps is None or caps.features.get("retrieval") is not False
                reason = None if stored else f"backend {self.name} stores nothing (features.retrieval=false)"
                return [Remembered(e, t, result.indexed, degraded=not stored, reason=reason) for e, t in pairs]

            return self._run(
                "remember",
                call,
                lambda why: [Remembered(e, t, degraded=True, reason=why) for e, t in pairs],
                deadline=max(self.deadline, INDEX_DEADLINE),
            )

    def update(self, request: Update) -> Remembered:
        """The entry with new text and/or metadata, under the same id, thread, author, role, type, title and time:
        the old entry is deleted with its chunks and the new one indexed (two writes, not one transaction)."""
        old = self.backend.find_entry(request.id) if hasattr(self.backend, "find_entry") else None
        if old is None:
            raise InvalidInputError(f"no entry {request.id} in this memory: update takes the id remember returned")
        note = remember.Note.of(
            old.get("body", "") if request.text is None else request.text,
            thread=old["thread_id"],
            author=old.get("author"),
            role=old.get("role"),
            type=old.get("entry_type"),
            title=old.get("title"),
            time=old.get("event_time"),
            metadata=old.get("metadata") if request.metadata is None else request.metadata or None,
        )
        deleted = self.delete(Forget((request.id,)))
        if deleted.degraded:
            return Remembered(request.id, old["thread_id"], degraded=True, reason=deleted.reason)
        return self.remember_notes([dataclasses.replace(note, entry_id=request.id)])[0]

    def entries(self, request: Listing) -> list[Entry]:
        """The request's page of entries, oldest first."""
        rows = self.backend.list_entries(list(request.thread_ids), limit=request.limit, offset=request.offset)
        return [Entry.from_record(r) for r in rows]

    def list(self, *, thread: Any = None, limit: int = 20, offset: int = 0) -> list[Entry]:
        return self.entries(Listing.of(thread=thread, limit=limit, offset=offset))

    def threads(self) -> dict[str, int]:
        """Each thread id the memory holds, with its number of entries."""
        return self.backend.threads()

    def count(self, request: Count | None = None) -> int:
        """How many entries the memory holds (in the request's threads, when it names some)."""
        held = self.backend.threads()
        if request is None or request.thread_ids is None:
            return sum(held.values())
        return sum(held.get(t, 0) for t in request.thread_ids)

    # -- status --------------------------------------------------------------------------------

    def status(self) -> Status:
        caps = self.capabilities()
        health = self._run(
            "healthcheck",
            lambda t: self.backend.healthcheck(timeout=t),
            lambda why: HealthStatus(ok=False, backend=self.name, message=why),
        )
        return Status(
            backend=self.name,
            store=self.backend.location,
            capabilities=caps,
            counts=self.backend.counts(),
            health=health,
            degraded=caps is None or not health.ok,
            reason=self._caps_error if caps is None else None,
        )


def notes_of(items: Iterable[str | Mapping[str, Any]]) -> list[Note]:
    """remember_many's ITEMS as checked notes; an error names the item."""
    notes = [_note(item, i) for i, item in enumerate(items)]
    if len(notes) > MAX_BATCH:
        raise InvalidInputError(f"remember_many takes at most {MAX_BATCH} items at once, got {len(notes)}")
    return notes


def _note(item: Any, index: int) -> Note:
    """One remember_many item as a checked Note; an error names the item."""
    try:
        if isinstance(item, str):
            return Note.of(item)
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"must be a string or a mapping with 'content', got {type(item).__name__}")
        unknown = set(item) - {"content", "thread", "author", "role", "type", "title", "time", "metadata"}
        if unknown:
            raise InvalidInputError(f"has unknown key(s) {sorted(map(str, unknown))}")
        if "content" not in item:
            raise InvalidInputError("has no 'content'")
        fields = {k: v for k, v in item.items() if k != "content"}
        return Note.of(item["content"], **fields)
    except InvalidInputError as exc:
        raise InvalidInputError(f"items[{index}] {exc.message}") from None
