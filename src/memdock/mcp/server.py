"""An MCP server whose tools are thin wrappers over MemoryService. Runs over stdio or streamable HTTP.

Built on the official MCP Python SDK (mcp 2.x, `MCPServer`).
Tool results are JSON objects; a degraded answer is an empty result with `degraded: true` and a reason,
so an agent can carry on. A bad argument is a tool error naming the argument.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer as _Server
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from .. import __version__
from ..connect import open_backend
from ..errors import MemdockError
from ..limits import MAX_LIMIT, MIN_LIMIT, MODES
from ..service import MemoryService
from ..service.requests import Count, Forget, Get, Listing, Recall, Search, Update

INSTRUCTIONS = (
    "Long-term memory of threads of entries (discussions, decisions, chat sessions). "
    "Use memory_recall to find passages about a topic; memory_search_facts for relations between people, entries, "
    "files and issues; memory_search_nodes for threads, entries and entities by name; memory_search_episodes for "
    "whole entries; memory_get_node / memory_get_edge to open an id from a result; memory_remember (or "
    "memory_remember_many) to store new notes, with metadata of your own that memory_recall's where filters on; "
    "memory_update to change a note in place; memory_list and memory_count to page through and count entries; "
    "memory_forget to delete by id (a thread also by name); "
    "memory_status to see the backend and "
    "what it holds. A thread is named the same way everywhere: by its name or by the thread_id memory_remember "
    "returned."
)

Query = Annotated[str, Field(description="what to look for, in plain words")]
# Ranges are advertised in the schema but checked by the request (memdock.service.requests), so a bad value gets
# the same error here as at every other door.
Limit = Annotated[
    int,
    Field(
        description=f"how many results ({MIN_LIMIT}-{MAX_LIMIT})",
        json_schema_extra={"minimum": MIN_LIMIT, "maximum": MAX_LIMIT},
    ),
]
Threads = Annotated[
    str | list[str] | None, Field(description="only these threads: names or thread ids (as memory_remember returns)")
]
Values = Annotated[str | list[str] | None, Field(description="one value or several (any of them matches)")]


class RememberItem(BaseModel):
    """One memory_remember_many item given as an object (the same fields as memory_remember)."""

    model_config = ConfigDict(extra="forbid")
    content: str = Field(description="the text to remember")
    thread: str | None = Field(None, description="thread name or id to file it under (default: memory)")
    author: str | None = Field(None, description="who wrote or said it")
    role: str | None = Field(None, description="the author's role")
    type: str | None = Field(None, description="entry type: Note, Decision, Plan...")
    title: str | None = Field(None, description="a short title")
    time: str | None = Field(None, description="when it happened, ISO 8601 (default: now)")
    metadata: dict[str, Any] | None = Field(None, description="fields of your own (a JSON object)")


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# Not idempotent: without `time` a note is stamped now, so the same call twice stores two entries (a client that
# retries a remember on this hint's word would duplicate it).
ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
# An update replaces an entry's text: the old words are gone (destructive); the same update twice leaves the same.
REWRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
DELETES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


def _reported(fn: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A memdock error becomes a tool error whose message the model sees (the SDK hides other exceptions)."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return await fn(*args, **kwargs)
        except MemdockError as exc:
            raise ToolError(f"{exc.category}: {exc.message}") from None

    return wrapper


Tool = Callable[[ToolAnnotations], Any]


def build_server(service: MemoryService) -> Any:
    server = _Server("memdock", instructions=INSTRUCTIONS, version=__version__)

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., Awaitable[dict[str, Any]]]], Any]:
        def register(fn: Callable[..., Awaitable[dict[str, Any]]]) -> Any:
            return server.tool(annotations=annotations)(_reported(fn))

        return register

    _recall_tool(tool, service)
    _search_tools(tool, service)
    _write_tools(tool, service)
    _thread_resources(server, service)
    _listing_tools(tool, service)
    _refuse_unknown_arguments(server)
    _advertise_no_prompts(server)
    return server


def _recall_tool(tool: Tool, service: MemoryService) -> None:
    """memory_recall: the same request as Memory.recall and `memdock recall`."""

    @tool(READ_ONLY)
    async def memory_recall(
        query: Query,
        limit: Limit = 10,
        thread: Threads = None,
        since: Annotated[str | None, Field(description="only entries at or after this ISO 8601 time")] = None,
        until: Annotated[str | None, Field(description="only entries at or before this ISO 8601 time")] = None,
        author: Annotated[str | list[str] | None, Field(description="only entries by these authors")] = None,
        role: Annotated[str | list[str] | None, Field(description="only entries with these roles")] = None,
        type: Annotated[
            str | list[str] | None, Field(description="only these entry types (Note, Decision, Plan...)")
        ] = None,
        min_score: Annotated[
            float | None,
            Field(
                description="only hits scoring at least this, 0 to 1 (1: holds every query word)",
                json_schema_extra={"minimum": 0, "maximum": 1},
            ),
        ] = None,
        mode: Annotated[
            str | None,
            Field(
                description="bm25: words; vector: meaning (needs embeddings); hybrid: both; auto (default): the "
                "backend's best",
                json_schema_extra={"enum": list(MODES)},
            ),
        ] = None,
        where: Annotated[
            dict[str, Any] | None,
            Field(
                description='only entries whose metadata matches: {"key": value}, {"key": [any, of, these]} or '
                '{"key": {"$in": [...]}}; several keys must all match'
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Search the memory for passages relevant to a question or topic, best first, with their thread and entry.
        Scores lie in [0, 1] and keep their meaning as the memory grows."""
        request = Recall.of(
            query, limit=limit, mode=mode, min_score=min_score, where=where,
            thread=thread, since=since, until=until, author=author, role=role, type=type,
        )  # fmt: skip
        return (await service.recall(request)).to_dict()


def _search_tools(tool: Tool, service: MemoryService) -> None:
    """The graph-shaped reads: search nodes, facts and episodes, open one node or edge."""

    @tool(READ_ONLY)
    async def memory_search_nodes(query: Query, limit: Limit = 10, thread: Threads = None) -> dict[str, Any]:
        """Find threads, entries and entities (people, agents, files, code symbols, URLs, issues) by name or text."""
        return (await service.search(Search.of("search_nodes", query, limit=limit, thread=thread))).to_dict()

    @tool(READ_ONLY)
    async def memory_search_facts(query: Query, limit: Limit = 10, thread: Threads = None) -> dict[str, Any]:
        """Find facts: relations stated as sentences, such as who replied to whom and which entry mentions which
        file."""
        return (await service.search(Search.of("search_facts", query, limit=limit, thread=thread))).to_dict()

    @tool(READ_ONLY)
    async def memory_search_episodes(query: Query, limit: Limit = 10, thread: Threads = None) -> dict[str, Any]:
        """Find whole entries (episodes: a message, a decision, a chat turn) relevant to the query."""
        return (await service.search(Search.of("search_episodes", query, limit=limit, thread=thread))).to_dict()

    @tool(READ_ONLY)
    async def memory_get_node(
        id: Annotated[str, Field(description="a node, entry, thread or chunk id from a result")],
    ) -> dict[str, Any]:
        """Open one node by id: its full text, attributes and the edges around it."""
        return (await service.get(Get.of("get_node", id))).to_dict()

    @tool(READ_ONLY)
    async def memory_get_edge(
        id: Annotated[str, Field(description="an edge (fact) id from a result")],
    ) -> dict[str, Any]:
        """Open one edge (fact) by id: its sentence, type, both ends and time."""
        return (await service.get(Get.of("get_edge", id))).to_dict()


def _write_tools(tool: Tool, service: MemoryService) -> None:
    """remember, remember_many, update and forget."""

    @tool(ADDS)
    async def memory_remember(
        content: Annotated[str, Field(description="the text to remember")],
        thread: Annotated[str | None, Field(description="thread name or id to file it under (default: memory)")] = None,
        author: Annotated[str | None, Field(description="who wrote or said it")] = None,
        role: Annotated[str | None, Field(description="the author's role")] = None,
        type: Annotated[str | None, Field(description="entry type: Note, Decision, Plan...")] = None,
        title: Annotated[str | None, Field(description="a short title")] = None,
        time: Annotated[str | None, Field(description="when it happened, ISO 8601 (default: now)")] = None,
        metadata: Annotated[
            dict[str, Any] | None, Field(description="fields of your own (a JSON object), for memory_recall's where")
        ] = None,
    ) -> dict[str, Any]:
        """Store a new entry in memory so later searches find it. Returns its id and its thread's id."""
        result = await service.remember(
            content, thread=thread, author=author, role=role, type=type, title=title, time=time, metadata=metadata
        )
        return result.to_dict()

    @tool(REWRITES)
    async def memory_update(
        id: Annotated[str, Field(description="the entry id memory_remember returned")],
        content: Annotated[str | None, Field(description="the new text (default: keep it)")] = None,
        metadata: Annotated[
            dict[str, Any] | None, Field(description="the new metadata, replacing the old (default: keep it)")
        ] = None,
    ) -> dict[str, Any]:
        """Change an entry's text and/or metadata in place; it keeps its id, thread, author and time."""
        return (await service.update(Update.of(id, text=content, metadata=metadata))).to_dict()

    @tool(ADDS)
    async def memory_remember_many(
        items: Annotated[
            list[str | RememberItem],
            Field(
                description="entries to store: each the text itself, or an object with 'content' and optionally "
                "thread, author, role, type, title, time (as memory_remember takes them)",
                min_length=1,
            ),
        ],
    ) -> dict[str, Any]:
        """Store several entries at once (one indexing pass: much faster than one memory_remember each)."""
        plain = [i if isinstance(i, str) else i.model_dump(exclude_none=True) for i in items]
        return {"remembered": [r.to_dict() for r in await service.remember_many(plain)]}

    @tool(DELETES)
    async def memory_forget(
        ids: Annotated[
            list[str], Field(description="ids to delete (with what depends on them); a thread also by its name")
        ],
    ) -> dict[str, Any]:
        """Delete entries, threads or other records by id (a thread also by name), with their chunks and edges."""
        return (await service.delete(Forget.of(ids))).to_dict()


def _thread_resources(server: Any, service: MemoryService) -> None:
    """memdock://threads and memdock://threads/{thread}."""

    @server.resource(
        "memdock://threads",
        name="threads",
        description="Every thread in memory, with its number of entries (JSON).",
        mime_type="application/json",
    )
    async def threads() -> str:
        held = await service.threads()
        return json.dumps([{"thread_id": t, "entries": n} for t, n in held.items()])

    @server.resource(
        "memdock://threads/{thread}",
        name="thread",
        description="A thread's entries, oldest first, the first 50 (JSON); {thread} is a thread id or name.",
        mime_type="application/json",
    )
    async def thread_entries(thread: str) -> str:
        try:
            entries = await service.entries(Listing.of(thread=thread, limit=50))
        except MemdockError as exc:  # the SDK replaces any other exception's message with a generic one
            raise ResourceError(f"{exc.category}: {exc.message}") from None
        return json.dumps([e.to_dict() for e in entries])


def _listing_tools(tool: Tool, service: MemoryService) -> None:
    """memory_status, memory_list and memory_count (the verbs of Memory.status / list / count and the CLI)."""

    @tool(READ_ONLY)
    async def memory_status() -> dict[str, Any]:
        """Which backend holds the memory, what it can do, how many records it holds, and whether it is healthy."""
        return (await service.status()).to_dict()

    @tool(READ_ONLY)
    async def memory_list(
        thread: Threads = None,
        limit: Annotated[
            int,
            Field(
                description=f"how many entries ({MIN_LIMIT}-{MAX_LIMIT})",
                json_schema_extra={"minimum": MIN_LIMIT, "maximum": MAX_LIMIT},
            ),
        ] = 20,
        offset: Annotated[int, Field(description="skip this many first (page with offset += limit)")] = 0,
    ) -> dict[str, Any]:
        """List the memory's entries oldest first (a thread's, when given), a page at a time."""
        entries = await service.entries(Listing.of(thread=thread, limit=limit, offset=offset))
        return {"entries": [e.to_dict() for e in entries]}

    @tool(READ_ONLY)
    async def memory_count(thread: Threads = None) -> dict[str, Any]:
        """How many entries the memory holds (a thread's, when given)."""
        return {"count": await service.count(Count.of(thread=thread))}


def _advertise_no_prompts(server: Any) -> None:
    """The SDK answers prompts/list for every server, so clients see a prompts capability; memdock has none."""
    handlers = server._lowlevel_server._request_handlers
    for method in ("prompts/list", "prompts/get"):
        handlers.pop(method, None)


def _refuse_unknown_arguments(server: Any) -> None:
    """An argument a tool does not take is an error naming it, not silently dropped: a client still sending
    `thread_ids` (the old name) must learn it is now `thread` rather than get unfiltered results."""
    for registered in server._tool_manager.list_tools():
        base = registered.fn_metadata.arg_model
        strict = type(base.__name__, (base,), {"model_config": ConfigDict(**base.model_config, extra="forbid")})
        registered.fn_metadata.arg_model = strict
        registered.parameters["additionalProperties"] = False


def write_opener(
    backend: str | None, http: str | None, write_process: bool, **options: Any
) -> Callable[[], Any] | None:
    """What opens the backend in the write process, or None: remembers are written in this process.

    The write process takes the write path's Python off the front end's GIL (its own CPU per operation fell from
    about 5.7 to 2.4 ms in bench/shared.py), but on a 2-core box the extra processes cost recall p99 more than that
    saved (docs/backends/postgres.md), so it is asked for (`memdock mcp --http --write-process`), not the default.
    """
    if http is None or not write_process:
        return None
    return functools.partial(open_backend, backend, **options)


def serve(
    backend: str | None = None,
    *,
    data_dir: str | None = None,
    config: dict[str, Any] | None = None,
    deadline: float = 10.0,
    sandbox: bool | str | None = None,
    http: str | None = None,
    ui_writes: bool = False,
    write_process: bool = False,
) -> None:
    """Serve on stdio, or on streamable HTTP at HTTP (HOST:PORT; see memdock.mcp.http for the token rule) with
    the web page at /ui (memdock.ui; UI_WRITES lets it forget). WRITE_PROCESS (HTTP only): remembers are written
    by a process of its own (service/write_process.py)."""
    address = token = None
    if http is not None:  # checked before the backend opens: a refused address costs no adapter process
        from .http import parse_address, required_token

        address = parse_address(http)
        token = required_token(address[0], os.environ)
    opened = open_backend(backend, data_dir=data_dir, config=config, workers=2, sandbox=sandbox)
    writer = write_opener(backend, http, write_process, data_dir=data_dir, config=config, sandbox=sandbox)
    service = MemoryService(opened, deadline=deadline, workers=2, writer=writer)
    try:
        server = build_server(service)
        if http is not None:  # many agents share this process: its workers start before the first recall
            service.warm_up()
        if address is None:
            from .stdio import serve_stdio

            serve_stdio(server)
        else:
            from ..ui.mount import ui_app
            from .http import serve_http

            ui = ui_app(service, address[0], token, allow_writes=ui_writes)
            serve_http(server, address[0], address[1], token, ui)
    finally:
        service.close()
