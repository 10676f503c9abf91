"""`memdock ui`'s server: the page over one backend, on loopback unless a token is set (the rule of
`memdock mcp --http`, memdock.mcp.http)."""

from __future__ import annotations

import os
import sys
from typing import Any

import uvicorn

from ..api import AsyncMemory
from ..mcp.http import is_loopback, parse_address, required_token
from .app import build_app
from .auth import Guard
from .data import MemoryView

DEFAULT_ADDRESS = "127.0.0.1:8766"


class _Announcing(uvicorn.Server):
    """Says where the page is once the socket is bound (port 0 picks a free one)."""

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if self.servers and self.servers[0].sockets:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            print(f"memdock UI on http://{shown}:{port}/ui/", file=sys.stderr, flush=True)


def serve(
    backend: str | None = None,
    *,
    data_dir: str | None = None,
    config: dict[str, Any] | None = None,
    deadline: float = 10.0,
    sandbox: bool | str | None = None,
    http: str | None = None,
    allow_writes: bool = False,
) -> None:
    """Serve the page until interrupted. The address and token are checked before the backend opens."""
    host, port = parse_address(http or DEFAULT_ADDRESS)
    token = required_token(host, os.environ)
    memory = AsyncMemory(backend, data_dir=data_dir, config=config, deadline=deadline, sandbox=sandbox)
    try:
        view = MemoryView(memory.service, allow_writes=allow_writes)
        app = build_app(view, Guard(token, loopback=is_loopback(host)), standalone=True)
        _Announcing(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")).run()
    finally:
        memory.service.close()
