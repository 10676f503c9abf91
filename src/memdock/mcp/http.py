"""`memdock mcp --http HOST:PORT`: the MCP server over streamable HTTP, so several agents share one memory.

Loopback by default. Binding any other address needs a bearer token (MEMDOCK_MCP_TOKEN): a memory server on
a network must not answer whoever finds it. When a token is set, every request must carry it
(`Authorization: Bearer TOKEN`), on loopback too; anything else gets 401 before it reaches the MCP SDK.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from ..errors import ConfigError, InvalidInputError

TOKEN_ENV = "MEMDOCK_MCP_TOKEN"
DEFAULT_PORT = 8765

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT, :PORT (loopback), PORT, or [IPV6]:PORT, as (host, port)."""
    raw = text.strip()
    host, _, port = raw.rpartition(":") if ":" in raw else ("", "", raw)
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise InvalidInputError(f"--http {text!r}: expected HOST:PORT, e.g. 127.0.0.1:{DEFAULT_PORT}") from None
    if not 0 <= number <= 65535:
        raise InvalidInputError(f"--http {text!r}: the port must be 0-65535")
    return host, number


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def required_token(host: str, env: Mapping[str, str]) -> str | None:
    """The bearer token requests must carry: MEMDOCK_MCP_TOKEN; None on loopback without one; an error for any
    other address without one."""
    token = env.get(TOKEN_ENV) or None
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to serve MCP on {host}, which is not loopback, without a bearer token: set {TOKEN_ENV} "
            "(clients then send `Authorization: Bearer <token>`), or bind 127.0.0.1"
        )
    if token is not None and len(token) < 16:
        raise ConfigError(f"{TOKEN_ENV} is {len(token)} characters; use at least 16 (e.g. `openssl rand -hex 24`)")
    return token


class BearerAuth:
    """ASGI middleware: a request without `Authorization: Bearer TOKEN` gets 401 and never reaches APP."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(
        self, scope: Scope, receive: Callable[[], Awaitable[Message]], send: Callable[[Message], Awaitable[None]]
    ) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized: send Authorization: Bearer <MEMDOCK_MCP_TOKEN>"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="memdock"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: Any, host: str, token: str | None, ui: ASGIApp | None = None) -> ASGIApp:
    """SERVER's streamable HTTP app at /mcp, behind the bearer check when TOKEN is set; UI (memdock.ui.mount,
    which checks the same token itself) answers under /ui. Both sit behind the Host/Origin check on any loopback
    bind and a deadline for request bodies (memdock.mcp.guard).

    Each POST is answered with one JSON body (the SDK's json_response), not an SSE stream: memdock's tools send
    nothing before their result, and the stream cost the SDK twice the CPU a call takes (bench/shared.py,
    bench/mcp_floor.py), the CPU every other agent's recall waits for on a loaded front end."""
    from .guard import BodyTimeout, LoopbackHosts

    app: ASGIApp = server.streamable_http_app(host=host, json_response=True)
    app = BearerAuth(app, token) if token else app
    if ui is not None:
        from ..ui.mount import UiMount

        app = UiMount(app, ui)
    return LoopbackHosts(BodyTimeout(app))


def serve_http(server: Any, host: str, port: int, token: str | None, ui: ASGIApp | None = None) -> None:
    """Serve until interrupted. Prints the URL once listening (port 0 picks a free one)."""
    import sys

    import anyio
    import uvicorn

    from .guard import guarded_protocol

    config = uvicorn.Config(
        http_app(server, host, token, ui),
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=guarded_protocol(),
        timeout_keep_alive=30,  # a client slowed by load reuses its connection rather than racing its close
    )
    web = uvicorn.Server(config)

    async def run() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(web.serve)
            while not web.started:
                await anyio.sleep(0.02)
            bound = web.servers[0].sockets[0].getsockname()
            shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
            print(f"memdock MCP server on http://{shown}:{bound[1]}/mcp", file=sys.stderr, flush=True)

    anyio.run(run)
