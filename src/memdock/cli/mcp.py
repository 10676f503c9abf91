"""`memdock mcp`: serve the memory tools over MCP on stdio."""

from __future__ import annotations

import argparse
import logging
import sys

from ..errors import ConfigError
from .common import add_backend_options, parse_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve memory tools to an MCP client over stdio (needs the mcp extra)")
    add_backend_options(p, json_flag=False)
    p.add_argument("--deadline", type=float, default=10.0, help="seconds each tool call may take (default 10)")
    p.add_argument("--log-level", default="WARNING", help="service log level, written to stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..mcp.server import serve
    except ImportError as exc:
        raise ConfigError(
            f"memdock mcp needs the MCP SDK ({exc}); install it with: pip install 'memdock[mcp]'"
        ) from None
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    serve(
        args.backend,
        data_dir=args.data_dir,
        config=parse_config(args.config),
        deadline=args.deadline,
        sandbox="off" if args.no_sandbox else args.sandbox,
    )
    return 0
