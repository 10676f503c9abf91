"""`memdock mcp`: serve the memory tools over MCP, on stdio or streamable HTTP."""

from __future__ import annotations

import argparse

from .common import add_backend_options, serve_from_args, server


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve memory tools to MCP clients over stdio or HTTP (needs the mcp extra)",
        epilog="examples:\n  memdock mcp --data-dir ~/notes\n  memdock mcp --http 127.0.0.1:8765\n"
        "  MEMDOCK_MCP_TOKEN=$(openssl rand -hex 24) memdock mcp --http 0.0.0.0:8765",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_backend_options(p, json_flag=False)
    p.add_argument("--deadline", type=float, default=10.0, help="seconds each tool call may take (default 10)")
    p.add_argument("--log-level", default="WARNING", help="service log level, written to stderr")
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (loopback unless MEMDOCK_MCP_TOKEN "
        "is set: then every request must send `Authorization: Bearer <token>`)",
    )
    p.add_argument("--ui-allow-writes", action="store_true", help="with --http: let the page at /ui forget")
    p.add_argument(
        "--write-process",
        action="store_true",
        help="with --http: write remembers in a process of their own (less CPU in this one; pays where cores are "
        "many, see docs/backends/postgres.md)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    serve = server("mcp.server", "memdock mcp needs the MCP SDK", "install it with: pip install 'memdock[mcp]'")
    return serve_from_args(serve, args, ui_writes=args.ui_allow_writes, write_process=args.write_process)
