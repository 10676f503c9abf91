"""Entry point: builds the parser from the command modules and maps errors to exit codes."""

from __future__ import annotations

import importlib
import sys

from .. import __version__

VERSION = f"memdock {__version__}"
TYPE_CHECKING = False  # what `from typing import TYPE_CHECKING` gives, without typing's import on every start
if TYPE_CHECKING:
    import argparse
    from typing import NoReturn

COMMAND_MODULES = ["pipeline", "validate", "adapters", "ops", "entries", "move", "doctor", "conformance", "mcp", "ui"]
# which module registers each command (and alias): a command line imports only the module it needs, so
# `memdock --version` and `memdock recall` do not pay for the runner, the MCP SDK or the conformance kit
COMMANDS = {
    **dict.fromkeys(("add", "import", "chunk", "index", "shard"), "pipeline"),
    "validate": "validate",
    "adapters": "adapters",
    **dict.fromkeys(("capabilities", "health", "recall", "query", "remember", "search", "get", "forget"), "ops"),
    **dict.fromkeys(("list", "count", "update"), "entries"),
    **dict.fromkeys(("export", "migrate"), "move"),
    "doctor": "doctor",
    "conformance": "conformance",
    "mcp": "mcp",
    "ui": "ui",
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ARGV: with only the command module ARGV names (no modules for a bare `--version`),
    every module otherwise (`memdock --help`, a typo). Under --json a usage error is a JSON error object."""
    import argparse

    parser_class = argparse.ArgumentParser
    if argv and "--json" in argv:
        from .output import JsonUsageParser

        parser_class = JsonUsageParser
    parser = parser_class(prog="memdock", description="Memory backends behind one contract.")
    parser.add_argument("--version", action="version", version=VERSION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    first = next((a for a in argv or [] if not a.startswith("-")), None)
    if argv == ["--version"]:
        modules: list[str] = []
    elif first in COMMANDS:
        modules = [COMMANDS[first]]
    else:
        modules = COMMAND_MODULES
    for name in modules:
        importlib.import_module(f"memdock.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # answered before argparse and the error types are imported: a third of the start
        print(VERSION)
        return 0
    from ..errors import CancelledError, MemdockError

    as_json = "--json" in argv
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)  # `--version` and `--help` end here, before output is imported
    except MemdockError as exc:  # an option's value refused by its type (cli.common.bounded_int)
        from . import output

        output.failed(exc, as_json)
        return exc.exit_code
    from . import output

    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if args.command not in ("mcp", "ui"):  # the servers configure logging themselves
        output.show_core_warnings()
    try:
        return int(args.func(args) or 0)
    except MemdockError as exc:
        output.failed(exc, as_json)
        return exc.exit_code
    except KeyboardInterrupt:
        output.failed(CancelledError("interrupted"), as_json)
        return 130
    except BrokenPipeError:
        return 0


def run() -> NoReturn:
    """The `memdock` program (console script and `python -m memdock`): `main`, then the process ended as an
    adapter's is (`exiting.end`): after what Python promises at exit (threads that are not daemons joined,
    the atexit handlers run, the standard streams flushed), without the interpreter's teardown, which freed one by
    one every object of a run about to end (0.04 s of wall at the end of `memdock add` of 20,000 notes on a quiet
    box; 0.16-0.20 s at a load of 12, against 0.02-0.07 s ended so). An exception that main
    lets out ends the process as Python ends it."""
    code = main()
    from ..exiting import end

    end(code)


if __name__ == "__main__":
    run()
