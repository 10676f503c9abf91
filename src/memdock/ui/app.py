"""The page's routes (Starlette), all under /ui: GET pages to browse, POST only to forget (with --allow-writes)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import parse_qsl, quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..contract import GetResult
from ..errors import InvalidInputError, MemdockError
from . import pictures, results, views
from .auth import COOKIE, Guard, safe_next
from .data import MemoryView
from .html import Html, url

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {"ui.css": "text/css; charset=utf-8", "ui.js": "text/javascript; charset=utf-8"}
MAX_FORM = 16_384
HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
Handler = Callable[[Request], Awaitable[Response]]


class Page:
    """The routes over one MemoryView, behind one Guard."""

    def __init__(self, view: MemoryView, guard: Guard):
        self.view, self.guard = view, guard

    def html(
        self,
        title: str,
        body: Html,
        *,
        status: int = 200,
        query: str = "",
        notice: Html | None = None,
        who: bool = True,
    ) -> Response:
        """A page; WHO false leaves out which backend answers (for a visitor without the token)."""
        backend = self.view.name if who else ""
        shown = views.page(title, body, backend=backend, writes=self.view.allow_writes, query=query, notice=notice)
        return HTMLResponse(shown, status_code=status, headers=HEADERS)

    def guarded(self, handler: Handler) -> Handler:
        """HANDLER behind the Host and token checks; a bad argument is a 400 page naming it."""

        async def run(request: Request) -> Response:
            if not self.guard.host_ok(request.headers):
                return Response("misdirected request: this server answers loopback names only", 421, headers=HEADERS)
            if not self.guard.authorised(request.headers, request.cookies):
                problem = "wrong token" if request.headers.get("authorization") or request.cookies.get(COOKIE) else None
                return self.login_page(request.url.path, problem)
            try:
                return await handler(request)
            except InvalidInputError as exc:
                return self.html("Bad request", Html(views.notice(exc.message, bad=True)), status=400)
            except MemdockError as exc:
                return self.html(
                    "The backend failed", Html(views.notice(f"{exc.category}: {exc.message}", bad=True)), status=502
                )

        return run

    def login_page(self, next_url: str, problem: str | None) -> Response:
        body = views.login(self.guard.env, safe_next(next_url), problem)
        response = self.html("Token needed", body, status=401, who=False)
        response.headers["www-authenticate"] = 'Bearer realm="memdock"'
        return response

    async def overview(self, request: Request) -> Response:
        offset = number(request, "offset")
        status, size, (rows, total) = await asyncio.gather(
            self.view.status(), self.view.size(), self.view.threads(offset)
        )
        notice = forgot_notice(request)
        return self.html(
            f"Memory on {status.backend}", views.overview(status, size, rows, offset, total), notice=notice
        )

    async def thread(self, request: Request) -> Response:
        tid = required(request, "id")
        offset = number(request, "offset")
        total = await self.view.thread_size(tid)
        entries, info = await asyncio.gather(self.view.entries(tid, offset), self.view.thread_info(tid))
        forget, node = await self.view.lacks("delete"), await self.view.lacks("get_node")
        body = views.thread(tid, info, entries, offset, total, forget, node)
        return self.html(info.name, body, status=200 if total or entries else 404, notice=forgot_notice(request))

    async def search(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        mode = request.query_params.get("mode") or "auto"
        if mode not in results.MODES:
            raise InvalidInputError(f"mode must be one of {', '.join(results.MODES)}, got {mode!r}")
        lacking = await self.view.lacks("query")
        found, error, threads = None, None, {}
        if query and not lacking:
            try:
                found = await self.view.search(
                    query, mode=None if mode == "auto" else mode, thread=request.query_params.get("thread")
                )
            except InvalidInputError as exc:
                error = exc.message
            tids = {h.provenance.get("thread_id") for h in (found.hits if found else [])}
            threads = {t: await self.view.thread_info(t) for t in tids if t}
        body = results.search(query, mode, found, threads, lacking, error)
        return self.html(f"Search: {query}" if query else "Search", body, query=query)

    async def node(self, request: Request) -> Response:
        node_id = required(request, "id")
        lacking = await self.view.lacks("get_node")
        result = await self.view.node(node_id) if not lacking else None
        names: dict[str, str] = {}
        if result is not None and result.item is not None:
            others = [str(e.get("other_id")) for e in (result.item.extra or {}).get("edges", []) if isinstance(e, dict)]
            names = await self.view.names(others[: pictures.MAX_NEIGHBOURS])
        title = result.item.name if result and result.item and result.item.name else node_id
        body = results.node(node_id, result or GetResult(), names, lacking)
        missing = result is not None and result.item is None and not result.degraded
        return self.html(title, body, status=404 if missing else 200)

    async def confirm(self, request: Request) -> Response:
        item = required(request, "id")
        lacking = await self.view.lacks("delete")
        if lacking:
            return self.html("Forget", views.greyed("forget", lacking), status=403)
        preview, what, back = await self.view.describe(item)
        return self.html("Forget?", views.confirm(item, what, preview, back, self.guard.csrf()))

    async def forget(self, request: Request) -> Response:
        form = await read_form(request)
        if not self.guard.post_ok(request.headers, form):
            return self.html(
                "Refused",
                views.notice("this form is stale or came from another site: reload the page", bad=True),
                status=403,
            )
        item = form.get("id", "")
        result = await self.view.forget(item)
        back = safe_next(form.get("back", "/ui/"))
        if result.degraded:
            return self.html(
                "Not forgotten",
                views.notice(f"{item} was not forgotten: {result.reason}", bad=True),
                status=409 if "read-only" in (result.reason or "") else 503,
            )
        if item in result.not_found and not result.deleted:
            return self.html("Not forgotten", views.notice(f"{item} was not found", bad=True), status=404)
        if back.startswith(url("thread", id=item)):
            back = "/ui/"
        sep = "&" if "?" in back else "?"
        return RedirectResponse(f"{back}{sep}forgot={quote(item)}&cascaded={result.cascaded}", 303, headers=HEADERS)

    async def login(self, request: Request) -> Response:
        if not self.guard.host_ok(request.headers):
            return Response("misdirected request: this server answers loopback names only", 421, headers=HEADERS)
        form = await read_form(request)
        if not self.guard.token_ok(form.get("token", "")):
            return self.login_page(form.get("next", "/ui/"), "wrong token")
        response = RedirectResponse(safe_next(form.get("next", "/ui/")), 303, headers=HEADERS)
        response.set_cookie(COOKIE, self.guard.cookie_value(), httponly=True, samesite="strict", path="/ui")
        return response

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_TYPES:
            return Response("not found", 404, headers=HEADERS)
        return Response(
            (STATIC / name).read_bytes(),
            media_type=STATIC_TYPES[name],
            headers={**HEADERS, "cache-control": "max-age=300"},
        )


def number(request: Request, name: str) -> int:
    raw = request.query_params.get(name, "0") or "0"
    if not raw.isdigit() or len(raw) > 12:
        raise InvalidInputError(f"{name} must be a whole number of 0 or more, got {raw[:40]!r}")
    return int(raw)


def required(request: Request, name: str) -> str:
    value = request.query_params.get(name, "")
    if not value.strip():
        raise InvalidInputError(f"{name} is missing: this page needs ?{name}=...")
    return value


async def read_form(request: Request) -> dict[str, str]:
    """An urlencoded form, at most MAX_FORM bytes (the page's forms carry an id and a token)."""
    body = b""
    async for part in request.stream():
        body += part
        if len(body) > MAX_FORM:
            raise InvalidInputError(f"the form is over {MAX_FORM} bytes")
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def forgot_notice(request: Request) -> Html | None:
    item = request.query_params.get("forgot")
    if not item:
        return None
    cascaded = request.query_params.get("cascaded", "0")
    extra = f", with {cascaded} record(s) that depended on it" if cascaded.isdigit() and cascaded != "0" else ""
    return views.notice(f"Forgot {item}{extra}.")


def build_app(view: MemoryView, guard: Guard, *, standalone: bool = False) -> Starlette:
    """The page at /ui; STANDALONE (memdock ui) also sends / there."""
    page = Page(view, guard)
    g = page.guarded
    routes = [
        Route("/ui/", g(page.overview)),
        Route("/ui/thread", g(page.thread)),
        Route("/ui/search", g(page.search)),
        Route("/ui/node", g(page.node)),
        Route("/ui/forget", g(page.confirm), methods=["GET"]),
        Route("/ui/forget", g(page.forget), methods=["POST"]),
        Route("/ui/login", page.login, methods=["POST"]),
        Route("/ui/static/{name}", page.static),
    ]
    if standalone:
        routes.append(Route("/", lambda r: RedirectResponse("/ui/", 307)))
    return Starlette(routes=routes)
