"""One typed request per operation, built and checked once, at the front door (Memory, AsyncMemory, the CLI, the
MCP tools, the LangChain and LlamaIndex retrievers all build the same one); the service runs it unchecked.

Each `of` takes a caller's arguments as given and refuses a bad one with an InvalidInputError naming it as the
caller spells it (NAMES maps `limit`, `thread`, ... to e.g. `--limit/-n`). The rules for limits, scores, modes
and query text are memdock.limits', the same the adapter SDK checks the wire's params with (memdock.sdk.params).
A remember's request is a `Note` (service/remember.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidInputError
from ..limits import DEFAULT_LIMIT
from ..threads import thread_id_for
from . import arguments, metadata
from .filters import Filters
from .metadata import check as metadata_check

Names = Mapping[str, str] | None
SEARCHES = ("search_nodes", "search_facts", "search_episodes")
GETS = ("get_node", "get_edge")


def _label(names: Names, key: str) -> str:
    return (names or {}).get(key, key)


@dataclass(frozen=True)
class Recall:
    """Passages relevant to TEXT, best first: LIMIT of them, within FILTERS, scoring at least MIN_SCORE, whose
    metadata matches WHERE (each key with the values it may take)."""

    text: str
    limit: int = DEFAULT_LIMIT
    filters: Filters = field(default_factory=Filters)
    mode: str | None = None
    min_score: float | None = None
    where: dict[str, list[Any]] | None = None

    @classmethod
    def of(
        cls,
        text: Any,
        *,
        limit: Any = DEFAULT_LIMIT,
        filters: Filters | None = None,
        mode: Any = None,
        min_score: Any = None,
        where: Any = None,
        names: Names = None,
        **filter_args: Any,
    ) -> Recall:
        """FILTER_ARGS are Filters.of's (thread, since, until, author, role, type); or give FILTERS built."""
        if filters is None:
            filters = Filters.of(**filter_args, names=names)
        elif not isinstance(filters, Filters) or filter_args:
            raise InvalidInputError(f"filters must be a memdock Filters, got {type(filters).__name__}")
        return cls(
            text=arguments.text(text, name=_label(names, "query")),
            limit=arguments.limit(limit, name=_label(names, "limit")),
            filters=filters,
            mode=arguments.mode(mode, name=_label(names, "mode")),
            min_score=arguments.min_score(min_score, name=_label(names, "min_score")),
            where=metadata.where(where),
        )


@dataclass(frozen=True)
class Search:
    """A structural search (OP: search_nodes, search_facts or search_episodes) in THREAD_IDS (None: all)."""

    op: str
    text: str
    limit: int = DEFAULT_LIMIT
    thread_ids: tuple[str, ...] | None = None

    @classmethod
    def of(cls, op: str, text: Any, *, limit: Any = DEFAULT_LIMIT, thread: Any = None, names: Names = None) -> Search:
        if op not in SEARCHES:
            raise InvalidInputError(f"search must be one of {', '.join(SEARCHES)}, got {op!r}")
        threads = arguments.threads(thread, name=_label(names, "thread")) if thread else []
        return cls(
            op,
            arguments.text(text, name=_label(names, "query")),
            arguments.limit(limit, name=_label(names, "limit")),
            tuple(thread_id_for(t) for t in threads) or None,
        )


@dataclass(frozen=True)
class Get:
    """One node or edge (OP: get_node or get_edge) by ID."""

    op: str
    id: str

    @classmethod
    def of(cls, op: str, item_id: Any, *, names: Names = None) -> Get:
        if op not in GETS:
            raise InvalidInputError(f"get must be one of {', '.join(GETS)}, got {op!r}")
        return cls(op, arguments.identifier(item_id, name=_label(names, "id")))


@dataclass(frozen=True)
class Forget:
    """Delete IDS with what depends on them; a value without a `kind:` prefix is a thread name, as remember and
    recall take it, so `forget("prefs")` deletes the thread `remember(..., thread="prefs")` filled."""

    ids: tuple[str, ...]

    @classmethod
    def of(cls, ids: Any, *, names: Names = None) -> Forget:
        checked = arguments.identifiers(ids, name=_label(names, "ids"))
        return cls(tuple(i if ":" in i else thread_id_for(i) for i in checked))


@dataclass(frozen=True)
class Listing:
    """Entries oldest first, LIMIT from OFFSET, in THREAD_IDS (empty: the whole memory)."""

    thread_ids: tuple[str, ...] = ()
    limit: int = 20
    offset: int = 0

    @classmethod
    def of(cls, *, thread: Any = None, limit: Any = 20, offset: Any = 0, names: Names = None) -> Listing:
        return cls(
            _thread_ids(thread, names),
            arguments.limit(limit, name=_label(names, "limit")),
            arguments.offset(offset, name=_label(names, "offset")),
        )


@dataclass(frozen=True)
class Count:
    """How many entries the memory holds, in THREAD_IDS when given."""

    thread_ids: tuple[str, ...] | None = None

    @classmethod
    def of(cls, *, thread: Any = None, names: Names = None) -> Count:
        return cls(None if thread is None else _thread_ids(thread, names))


@dataclass(frozen=True)
class Update:
    """Entry ID with new TEXT and/or METADATA (None keeps the old)."""

    id: str
    text: str | None = None
    metadata: dict[str, Any] | None = None

    @classmethod
    def of(cls, entry_id: Any, *, text: Any = None, metadata: Any = None, names: Names = None) -> Update:
        checked_id = arguments.identifier(entry_id, name=_label(names, "id"))
        if text is None and metadata is None:
            raise InvalidInputError("update needs text or metadata (or both)")
        new_text = None if text is None else arguments.content(text)
        new_meta = None if metadata is None else metadata_check(metadata) or {}  # {}: clear it
        return cls(checked_id, new_text, new_meta)


def _thread_ids(thread: Any, names: Names) -> tuple[str, ...]:
    if thread is None:
        return ()
    threads = tuple(thread_id_for(t) for t in arguments.threads(thread, name=_label(names, "thread")))
    if not threads:
        raise InvalidInputError("thread is empty: give a thread name or id, or leave it out for every thread")
    return threads
