"""Entry point: builds the parser from the command modules and maps errors to exit codes."""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import MemdockError
from . import output

COMMAND_MODULES = ["pipeline", "validate", "adapters", "ops", "move", "doctor", "conformance", "mcp"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memdock", description="Memory backends behind one contract.")
    parser.add_argument("--version", action="version", version=f"memdock {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"memdock.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except MemdockError as exc:  # an option's value refused by its type (cli.common.bounded_int)
        output.error(str(exc))
        return exc.exit_code
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if args.command != "mcp":  # the MCP server configures logging itself
        output.show_core_warnings()
    try:
        return int(args.func(args) or 0)
    except MemdockError as exc:
        output.error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        output.error("interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
