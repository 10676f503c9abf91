"""The page under `memdock mcp --http` at /ui, over the MCP server's own service and token."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..mcp.http import ASGIApp, is_loopback
from ..service import MemoryService
from .app import build_app
from .auth import Guard
from .data import MemoryView


class UiMount:
    """Requests under /ui go to the page, which checks the same token itself (a browser sends it as the cookie
    its login form sets, or as the header); every other request goes to APP unchanged."""

    def __init__(self, app: ASGIApp, ui: ASGIApp):
        self.app, self.ui = app, ui

    async def __call__(
        self, scope: Any, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        target = self.ui if path == "/ui" or path.startswith("/ui/") else self.app
        await target(scope, receive, send)


def ui_app(service: MemoryService, host: str, token: str | None, *, allow_writes: bool = False) -> ASGIApp:
    app: ASGIApp = build_app(MemoryView(service, allow_writes=allow_writes), Guard(token, loopback=is_loopback(host)))
    return app
