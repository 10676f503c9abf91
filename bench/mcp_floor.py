"""The floor of the MCP stack for bench/shared.py: a bare MCP SDK server over streamable HTTP (uvicorn, the SDK's
own app, no memdock) whose memory_remember / memory_recall tools take memdock's arguments and answer in memdock's
shape from a dict, so the same agents run against it unchanged and still check every recall.

    python bench/mcp_floor.py [--json-response]    # prints "floor MCP server on http://127.0.0.1:PORT/mcp"
"""

from __future__ import annotations

import argparse
import re
import sys
from itertools import count
from typing import Any


def build(json_response: bool) -> Any:
    """The floor server's ASGI app; JSON_RESPONSE answers each POST with one JSON body instead of an SSE stream."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("floor")
    held: dict[str, str] = {}
    ids = count(1)

    @server.tool()
    async def memory_remember(content: str, thread: str | None = None) -> dict[str, Any]:
        entry = f"entry-{next(ids)}"
        for word in re.findall(r"zq\w+w", content):
            held[word] = entry
        return {"id": entry, "thread_id": thread or "default", "indexed": 1}

    @server.tool()
    async def memory_recall(query: str, limit: int = 10) -> dict[str, Any]:
        found = held.get(query)
        hits = [{"id": found, "score": 1.0, "provenance": {"entry_id": found}}] if found else []
        return {"hits": hits[:limit], "degraded": False}

    return server.streamable_http_app(host="127.0.0.1", json_response=json_response)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json-response", action="store_true")
    args = ap.parse_args()
    import anyio
    import uvicorn

    web = uvicorn.Server(uvicorn.Config(build(args.json_response), host="127.0.0.1", port=0, log_level="warning"))

    async def run() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(web.serve)
            while not web.started:
                await anyio.sleep(0.02)
            port = web.servers[0].sockets[0].getsockname()[1]
            print(f"floor MCP server on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)

    anyio.run(run)


if __name__ == "__main__":
    main()
