"""The memory's entries from the command line: list them (paged), count them, update one in place. The same
verbs and requests as Memory.list / count / update and the MCP tools memory_list / memory_count / memory_update."""

from __future__ import annotations

import argparse
from contextlib import closing

from ..service.metadata import parse_pairs
from ..service.requests import Count, Listing, Update
from . import output
from .common import LIMIT_FLAG, add_backend_options, command, limit_option
from .ops import CLI_NAMES, _open_service, _refuse_if_missing, read_stdin, say_written


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "list",
        "the memory's entries, oldest first (paged)",
        "memdock list",
        "memdock list --thread infra -n 50 --offset 50 --json",
    )
    p.add_argument("--thread", action="append", help="only this thread: a name or a thread id (repeatable)")
    p.add_argument("--limit", "-n", type=limit_option, default=20, help="how many entries (default 20)")
    p.add_argument("--offset", type=int, default=0, help="skip this many first (page with offset += limit)")
    add_backend_options(p)
    p.set_defaults(func=run_list)

    p = command(sub, "count", "how many entries the memory holds", "memdock count", "memdock count --thread infra")
    p.add_argument("--thread", action="append", help="only this thread: a name or a thread id (repeatable)")
    add_backend_options(p)
    p.set_defaults(func=run_count)

    p = command(
        sub,
        "update",
        "change an entry's text and/or metadata in place (it keeps its id, thread, author and time)",
        'memdock update entry:21bd200e6444fc8d "The move is on Monday."',
        "memdock update ID --meta done=true",
    )
    p.add_argument("id", metavar="ID", help="the entry id remember returned")
    p.add_argument("content", metavar="TEXT", nargs="?", help="the new text; - reads it from stdin (default: keep it)")
    p.add_argument("--meta", action="append", metavar="KEY=VALUE", help="the new metadata, replacing the old")
    add_backend_options(p)
    p.set_defaults(func=run_update)


NAMES = {**CLI_NAMES, "offset": "--offset", "limit": LIMIT_FLAG}


def run_list(args: argparse.Namespace) -> int:
    request = Listing.of(thread=args.thread, limit=args.limit, offset=args.offset, names=NAMES)
    with closing(_open_service(args)) as service:
        _refuse_if_missing(service)
        entries = service.entries(request)
    if args.json:
        output.emit_json({"entries": [e.to_dict() for e in entries]})
    for e in [] if args.json else entries:
        print(f"{e.id}  {e.thread_id}  {e.time or ''}  {_first_line(e.title or e.text)}")
    return 0


def run_count(args: argparse.Namespace) -> int:
    request = Count.of(thread=args.thread, names=NAMES)
    with closing(_open_service(args)) as service:
        _refuse_if_missing(service)
        held = service.count(request)
    if args.json:
        output.emit_json({"count": held})
    else:
        print(held)
    return 0


def run_update(args: argparse.Namespace) -> int:
    text = read_stdin() if args.content == "-" else args.content
    request = Update.of(args.id, text=text, metadata=parse_pairs(args.meta, "--meta"), names=NAMES)
    with closing(_open_service(args)) as service:
        _refuse_if_missing(service)
        result = service.update(request)
    return say_written(result, args.json, "updated")


def _first_line(text: str, width: int = 80) -> str:
    return next(iter(text.splitlines()), "")[:width]
