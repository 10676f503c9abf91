"""The Python API's verbs, declared once: each takes the caller's arguments and builds its typed request.

memdock.api makes both faces from this one table: `Memory` sends each request to the synchronous ServiceCore,
`AsyncMemory` to the MemoryService (threads of its own, writes batched). A verb's signature, checks and docstring
live here only, so the two faces cannot drift apart.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from .contract import DeleteResult, GetResult, SearchResult
from .service.requests import Count, Forget, Get, Listing, Recall, Search, Update
from .service.results import Entry, Remembered, Status

Many = str | Sequence[str] | None
When = str | datetime | None
P = ParamSpec("P")
R = TypeVar("R")


class Call(Generic[R]):
    """One request to the service: the ServiceCore / MemoryService method that takes it, and its arguments."""

    __slots__ = ("method", "args", "kwargs")

    def __init__(self, method: str, *args: Any, **kwargs: Any) -> None:
        self.method, self.args, self.kwargs = method, args, kwargs


def remember(
    content: str,
    *,
    thread: str | None = None,
    author: str | None = None,
    role: str | None = None,
    type: str | None = None,
    title: str | None = None,
    time: When = None,
    metadata: Mapping[str, Any] | None = None,
) -> Call[Remembered]:
    """Store one entry in THREAD (a name or id; default `memory`), with METADATA (a JSON object of your own
    fields, filtered on by recall's `where`). Returns its id and its thread's id."""
    fields = {"thread": thread, "author": author, "role": role, "type": type, "title": title, "time": time}
    return Call("remember", content, **fields, metadata=metadata)


def update(entry_id: str, *, text: str | None = None, metadata: Mapping[str, Any] | None = None) -> Call[Remembered]:
    """Replace an entry's TEXT and/or METADATA in place (it keeps its id, thread, author and time; metadata
    given replaces the old). An id the memory does not hold is an InvalidInputError."""
    return Call("update", Update.of(entry_id, text=text, metadata=metadata))


def remember_many(items: Iterable[str | Mapping[str, Any]]) -> Call[list[Remembered]]:
    """Store several entries with one index call: each item is the text, or a mapping with `content` and
    remember's keyword arguments. All items are checked before anything is stored."""
    return Call("remember_many", items)


def recall(
    query: str,
    *,
    thread: Many = None,
    since: When = None,
    until: When = None,
    author: Many = None,
    role: Many = None,
    type: Many = None,
    limit: int = 10,
    mode: str | None = None,
    min_score: float | None = None,
    where: Mapping[str, Any] | None = None,
) -> Call[SearchResult]:
    """Passages relevant to QUERY, best first, restricted by the filters given. Scores lie in [0, 1]: 1 when a
    passage holds every query term (see the backend's capabilities); MIN_SCORE drops hits below it. WHERE
    keeps entries whose metadata matches: {"key": value}, {"key": [any, of, these]}, {"key": {"$in": [...]}}."""
    request = Recall.of(
        query, limit=limit, mode=mode, min_score=min_score, where=where,
        thread=thread, since=since, until=until, author=author, role=role, type=type,
    )  # fmt: skip
    return Call("recall", request)


def list_entries(*, thread: Many = None, limit: int = 20, offset: int = 0) -> Call[list[Entry]]:
    """Entries oldest first, LIMIT of them (1-1000, memdock.limits) from OFFSET: THREAD's (a name or id, or
    several) when given, else the whole memory's. Page with OFFSET += LIMIT until a short page."""
    return Call("entries", Listing.of(thread=thread, limit=limit, offset=offset))


def count(*, thread: Many = None) -> Call[int]:
    """How many entries the memory holds (THREAD's, when given)."""
    return Call("count", Count.of(thread=thread))


def threads() -> Call[dict[str, int]]:
    """Each thread id the memory holds, with its number of entries."""
    return Call("threads")


def forget(ids: str | Sequence[str]) -> Call[DeleteResult]:
    """Delete records by id, with what depends on them (a thread takes its entries, an entry its chunks)."""
    return Call("delete", Forget.of(ids))


def status() -> Call[Status]:
    """Which backend holds the memory, what it can do, what it holds, and whether it is healthy."""
    return Call("status")


def search_nodes(text: str, *, limit: int = 10, thread: Many = None) -> Call[SearchResult]:
    """Threads, entries and entities (people, files, code symbols, URLs...) by name or text."""
    return Call("search", Search.of("search_nodes", text, limit=limit, thread=thread))


def search_facts(text: str, *, limit: int = 10, thread: Many = None) -> Call[SearchResult]:
    """Facts: relations stated as sentences (who replied to whom, which entry mentions which file)."""
    return Call("search", Search.of("search_facts", text, limit=limit, thread=thread))


def search_episodes(text: str, *, limit: int = 10, thread: Many = None) -> Call[SearchResult]:
    """Whole entries (episodes) relevant to TEXT."""
    return Call("search", Search.of("search_episodes", text, limit=limit, thread=thread))


def get_node(node_id: str) -> Call[GetResult]:
    """One node by id: its text, attributes and the edges around it."""
    return Call("get", Get.of("get_node", node_id))


def get_edge(edge_id: str) -> Call[GetResult]:
    """One edge (fact) by id: its sentence, type, both ends and time."""
    return Call("get", Get.of("get_edge", edge_id))


def _as_method(face: Callable[..., Any], build: Callable[..., Any], name: str) -> None:
    """FACE takes BUILD's name, docstring and signature (with `self` first) for help(), IDEs and the docs."""
    functools.update_wrapper(face, build)
    del face.__wrapped__  # type: ignore[attr-defined]
    face.__name__ = face.__qualname__ = name
    signature = inspect.signature(build)
    own = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    answer = str(signature.return_annotation).removeprefix("Call[").removesuffix("]")  # what the face returns
    face.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[own, *signature.parameters.values()], return_annotation=answer
    )


def sync_verb(build: Callable[P, Call[R]], name: str | None = None) -> Callable[Concatenate[Any, P], R]:
    """BUILD as a method sending its request to `self._core` (a ServiceCore) and returning the answer."""

    def verb(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        call = build(*args, **kwargs)
        answer: R = getattr(self._core, call.method)(*call.args, **call.kwargs)
        return answer

    _as_method(verb, build, name or build.__name__)
    return verb


def async_verb(
    build: Callable[P, Call[R]], name: str | None = None
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """BUILD as a coroutine method sending its request to `self.service` (a MemoryService)."""

    async def verb(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        call = build(*args, **kwargs)
        answer: R = await getattr(self.service, call.method)(*call.args, **call.kwargs)
        return answer

    _as_method(verb, build, name or build.__name__)
    return verb
