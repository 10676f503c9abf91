"""`memdock ui`: a local web page to browse, search and curate a memory (needs the ui extra)."""

from __future__ import annotations

import argparse

from .common import add_backend_options, command, serve_from_args, server


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "ui",
        "a local web page to browse, search and curate the memory (needs the ui extra)",
        "memdock ui --data-dir ~/notes                 # then open http://127.0.0.1:8766/ui/",
        "memdock ui --data-dir ~/notes --allow-writes  # forget entries and threads from the page",
        "MEMDOCK_MCP_TOKEN=$(openssl rand -hex 24) memdock ui --http 0.0.0.0:8766",
    )
    add_backend_options(p, json_flag=False)
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        default="127.0.0.1:8766",
        help="where to serve the page (default 127.0.0.1:8766; an address off loopback needs MEMDOCK_MCP_TOKEN, "
        "and once it is set every request must carry it)",
    )
    p.add_argument("--allow-writes", action="store_true", help="let the page forget entries and threads")
    p.add_argument("--deadline", type=float, default=10.0, help="seconds each backend call may take (default 10)")
    p.add_argument("--log-level", default="WARNING", help="service log level, written to stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    needs = "memdock ui needs Starlette and uvicorn"
    serve = server("ui.server", needs, "install them with: pip install 'memdock[ui]'")
    return serve_from_args(serve, args, allow_writes=args.allow_writes)
