"""What keeps `memdock mcp --http` answering only its own clients: Host/Origin on loopback, and bounded waits.

DNS rebinding: a web page whose name the attacker points at a loopback address can send requests to a server
there, with its own name in `Host` and its own origin in `Origin`. The MCP SDK refuses those only for the
literal hosts 127.0.0.1, localhost and ::1; `LoopbackHosts` refuses them for every loopback bind (127.0.0.0/8,
::1), from the address and port the connection actually reached: `Host` must be that address (or localhost)
with that port, and an `Origin`, when sent, must be `http://` and such a host (`Origin: null` is refused).

Slow clients: `guarded_protocol` gives uvicorn's HTTP/1.1 protocol a deadline for a request's headers and a cap
on connections still sending them (the oldest such connection is closed to make room, so a flood of half-open
connections cannot lock a real client out); `BodyTimeout` bounds the wait for a request's body.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
MAX_PENDING_HEADERS = 1024  # well above a burst of real clients connecting at once (tests/service/test_mcp_load.py)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(server: tuple[str, int] | None) -> set[str] | None:
    """The Host values a request reaching SERVER (its local address) may carry; None when SERVER is not
    loopback (then the bearer token is what guards it)."""
    if not server or not _loopback(server[0]):
        return None
    host, port = server
    shown = f"[{host}]" if ":" in host else host
    names = {shown, "localhost"}
    out = {f"{n}:{port}" for n in names}
    if port == 80:
        out |= names
    return out


async def _refuse(send: Send, status: int, why: str) -> None:
    body = ('{"error": "' + why + '"}').encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class LoopbackHosts:
    """ASGI middleware: on a loopback bind, a foreign Host gets 421 and a foreign Origin (or `null`) gets 403."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            allowed = allowed_hosts(scope.get("server"))
            if allowed is not None:
                headers = dict(scope.get("headers") or [])
                host = headers.get(b"host", b"").decode("latin-1").lower()
                origin = headers.get(b"origin")
                if host not in allowed:
                    return await _refuse(send, 421, "misdirected request: this server answers only its own address")
                if origin is not None and origin.decode("latin-1").lower() not in {f"http://{h}" for h in allowed}:
                    return await _refuse(send, 403, "forbidden: cross-origin requests are refused")
        await self.app(scope, receive, send)


class BodyTimeout:
    """ASGI middleware: a request body not complete within SECONDS reads as a client disconnect, so a client that
    sends its headers and then stalls does not hold a request open for ever. Once the body is in, `receive`
    passes through untouched (a stream waits on it for the disconnect)."""

    def __init__(self, app: ASGIApp, seconds: float = BODY_TIMEOUT):
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        deadline = asyncio.get_running_loop().time() + self.seconds
        complete = False

        async def bounded() -> Message:
            nonlocal complete
            if complete:
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            pending = asyncio.ensure_future(receive())
            try:
                # not wait_for: with no time left it cancels receive() before it runs, so a body already
                # received would read as a disconnect; wait() lets it run once first
                done, _ = await asyncio.wait({pending}, timeout=max(left, 0.0))
            finally:
                if not pending.done():
                    pending.cancel()
            if not done:
                complete = True
                return {"type": "http.disconnect"}
            message = pending.result()
            if message["type"] != "http.request" or not message.get("more_body", False):
                complete = True
            return message

        await self.app(scope, bounded, send)


def guarded_protocol(
    header_timeout: float = HEADER_TIMEOUT, max_pending: int = MAX_PENDING_HEADERS
) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a deadline for each request's headers and at most MAX_PENDING connections
    still sending them (one more closes the oldest). A class of its own per server: the count is per server."""
    pending: dict[GuardedH11, None] = {}

    class GuardedH11(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_headers()
            while len(pending) > max_pending:
                next(iter(pending))._drop()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self._await_headers()
            else:
                self._headers_done()

        def connection_lost(self, exc: Exception | None) -> None:
            self._headers_done()
            super().connection_lost(exc)

        def _await_headers(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout, self._drop)
                pending[self] = None

        def _headers_done(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            pending.pop(self, None)

        def _drop(self) -> None:
            self._headers_done()
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11
