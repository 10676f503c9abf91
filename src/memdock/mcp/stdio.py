"""`memdock mcp` over stdio, answering every request: a line that is not valid JSON-RPC (invalid JSON, such as
a lone surrogate escape like `\\ud800`) gets a JSON-RPC parse error (-32700, id null), as over HTTP, where the
SDK's own stdio transport drops it and leaves the client waiting for ever."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage


def parse_error(exc: Exception) -> SessionMessage:
    detail = str(exc).splitlines()[1].strip() if len(str(exc).splitlines()) > 1 else str(exc)
    error = types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {detail}")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


async def _serve(server: Any) -> None:
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        forward, messages = create_context_streams[SessionMessage | Exception](0)

        async def sort() -> None:
            async with forward:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(parse_error(item))
                    else:
                        await forward.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(sort)
            await lowlevel.run(messages, write_stream, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()


def serve_stdio(server: Any) -> None:
    """Serve SERVER (a FastMCP/MCPServer) on stdin/stdout until the client closes stdin."""
    anyio.run(_serve, server)
