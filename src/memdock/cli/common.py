"""Options every backend command shares, and opening the backend they name."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import orjson

from ..bundle import OutputNotEmptyError
from ..connect import open_backend
from ..errors import ConfigError, InvalidInputError
from ..limits import limit_error
from ..runner.backend import SubprocessBackend


def examples(*lines: str) -> dict[str, Any]:
    """add_parser keywords for a help that ends with examples (kept as written)."""
    return {
        "epilog": "examples:\n" + "\n".join(f"  {line}" for line in lines),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def command(
    sub: argparse._SubParsersAction, name: str, help: str, *example_lines: str, **kw: Any
) -> argparse.ArgumentParser:
    """A subcommand NAME whose help ends with EXAMPLE_LINES (kept as written)."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, **examples(*example_lines), **kw)
    return parser


def add_backend_options(p: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    g = p.add_argument_group("backend")
    g.add_argument(
        "--backend", "-b", help="adapter name or folder (default: MEMDOCK_BACKEND, memdock.toml, else sqlite)"
    )
    g.add_argument("--data-dir", help="the backend's store (default: MEMDOCK_HOME/stores/<backend>)")
    g.add_argument(
        "--config",
        "-c",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="adapter config; VALUE is parsed as JSON when it can be (repeatable)",
    )
    g.add_argument(
        "--sandbox",
        choices=["off", "writes", "strict"],
        default=None,
        help="writes (the default): Landlock confines the adapter's writes; strict: its reads too, to an "
        "allowlist (refused where the kernel has no Landlock); off: neither (default: memdock.toml)",
    )
    g.add_argument("--no-sandbox", action="store_true", help="the same as --sandbox off")
    if json_flag:
        p.add_argument("--json", action="store_true", help="machine-readable output")


LIMIT_FLAG = "--limit/-n"


def limit_option(text: str) -> int:
    """An argparse type for --limit/-n: a whole number (its range is the request's rule, memdock.limits, checked
    when the request is built, before any work)."""
    try:
        return int(text.strip())
    except ValueError:  # also a number too long to convert
        raise limit_error(LIMIT_FLAG, _shown(text)) from None


def _shown(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}... ({len(text)} characters)"


def bounded_int(flag: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from LOW to HIGH. Anything else is refused while the arguments are parsed,
    before any work, with exit 4 naming FLAG (an InvalidInputError passes through argparse to `main`)."""

    def parse(text: str) -> int:
        try:
            value: int | None = int(text.strip())
        except ValueError:  # also a number too long to convert
            value = None
        if value is None or not low <= value <= high:
            raise InvalidInputError(
                f"{flag} must be an integer from {low:,} to {high:,}, got {_shown(text)}", details={"option": flag}
            )
        return value

    return parse


def names_force(exc: OutputNotEmptyError) -> InvalidInputError:
    """The writer's error in the CLI's words: the switch is --force (overwrite=True is the Python one)."""
    return InvalidInputError(f"{exc.path} is not empty; add --force to replace the bundle there")


def parse_config(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ConfigError(f"--config expects KEY=VALUE, got {pair!r}")
        k, v = pair.split("=", 1)
        try:
            out[k] = orjson.loads(v)
        except orjson.JSONDecodeError:
            out[k] = v
    return out


def server(module: str, needs: str, install: str) -> Callable[..., None]:
    """`serve` of memdock.MODULE, which needs an extra: without it, a ConfigError saying what NEEDS and how to
    INSTALL it. Imported here, inside the command, so the core never loads the extra."""
    import importlib

    try:
        serve: Callable[..., None] = importlib.import_module(f"memdock.{module}").serve
    except ImportError as exc:
        raise ConfigError(f"{needs} ({exc}); {install}") from None
    return serve


def serve_from_args(serve: Callable[..., None], args: argparse.Namespace, **kwargs: Any) -> int:
    """A server command (`memdock mcp`, `memdock ui`): the service's log on stderr at --log-level, then SERVE
    over the backend the options name until interrupted."""
    import logging
    import sys

    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    serve(
        args.backend,
        http=args.http,
        data_dir=args.data_dir,
        config=parse_config(args.config),
        deadline=args.deadline,
        sandbox="off" if args.no_sandbox else args.sandbox,
        **kwargs,
    )
    return 0


def open_from_args(args: argparse.Namespace, *, workers: int = 0) -> SubprocessBackend:
    """The backend the options name, from the one factory (memdock.connect), as a command line runs it: one
    process per call unless WORKERS, and one retry of an idempotent call after a crash."""
    opened = open_backend(
        args.backend,
        data_dir=args.data_dir,
        config=parse_config(args.config),
        sandbox="off" if args.no_sandbox else args.sandbox,
        workers=workers,
        retries=1,
    )
    assert isinstance(opened, SubprocessBackend)  # a name always opens a subprocess adapter
    return opened
