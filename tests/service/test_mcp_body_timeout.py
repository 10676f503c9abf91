"""BodyTimeout (memdock.mcp.guard): a body not in by the deadline reads as a disconnect, but one already received
is never lost to the deadline, and once the body is complete `receive` passes through."""

import asyncio

from memdock.mcp.guard import BodyTimeout

BODY = {"type": "http.request", "body": b'{"jsonrpc": "2.0"}', "more_body": False}


def _run(receive, seconds: float, reads: int = 1) -> list[dict]:
    seen: list[dict] = []

    async def app(scope, bounded, send):
        for _ in range(reads):
            seen.append(await bounded())

    async def send(message):
        pass

    asyncio.run(BodyTimeout(app, seconds)({"type": "http"}, receive, send))
    return seen


def test_a_body_already_received_passes_even_with_no_time_left():
    async def receive():
        return dict(BODY)

    assert _run(receive, seconds=0.0) == [BODY]


def test_a_body_that_never_comes_reads_as_a_disconnect_and_its_wait_is_cancelled():
    cancelled = []

    async def receive():
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    assert _run(receive, seconds=0.05) == [{"type": "http.disconnect"}]
    assert cancelled == [True]


def test_after_the_body_receive_passes_through_untouched():
    messages = [dict(BODY), {"type": "http.disconnect"}]

    async def receive():
        return messages.pop(0)

    assert _run(receive, seconds=0.0, reads=2) == [BODY, {"type": "http.disconnect"}]
