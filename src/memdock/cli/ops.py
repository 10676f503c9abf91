"""Backend operations from the command line: capabilities and health (the protocol, straight to the adapter),
recall, remember, search, get and forget (through the same service as the Python API and the MCP server)."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
from pathlib import Path
from typing import BinaryIO

from ..contract import SearchResult
from ..errors import BackendError, ConfigError, InvalidInputError
from ..limits import MAX_LIMIT, MIN_LIMIT, MODES
from ..service.core import ServiceCore
from ..service.metadata import parse_pairs
from ..service.requests import Forget, Get, Recall, Search
from ..service.results import Remembered
from . import output
from .common import LIMIT_FLAG, add_backend_options, command, limit_option, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    for add in (_add_info, _add_recall, _add_remember, _add_lookups):
        add(sub)


def _add_info(sub: argparse._SubParsersAction) -> None:
    """The capabilities and health commands."""
    p = command(
        sub,
        "capabilities",
        "what the backend can do (the handshake)",
        "memdock capabilities",
        "memdock capabilities -b tantivy --json",
    )
    add_backend_options(p)
    p.set_defaults(func=run_capabilities)

    p = command(sub, "health", "is the backend usable right now", "memdock health", "memdock health -b graphiti")
    add_backend_options(p)
    p.set_defaults(func=run_health)


def _add_recall(sub: argparse._SubParsersAction) -> None:
    """The recall command."""
    p = sub.add_parser(
        "recall",
        aliases=["query"],
        help="search the memory (alias: query)",
        epilog=RECALL_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("text", metavar="QUERY", help="what to look for, in plain words")
    _search_options(p)
    p.add_argument("--thread", action="append", help="only this thread: a name or a thread id (repeatable)")
    p.add_argument("--since", help="only entries at or after this ISO 8601 time")
    p.add_argument("--until", help="only entries at or before this ISO 8601 time")
    p.add_argument("--author", action="append", help="only entries by this author (repeatable)")
    p.add_argument("--role", action="append", help="only entries with this role (repeatable)")
    p.add_argument("--type", action="append", help="only entries of this type, e.g. Decision (repeatable)")
    p.add_argument(
        "--mode",
        metavar="{" + ",".join(MODES) + "}",
        help="bm25: words; vector: meaning (needs embeddings); hybrid: both; auto (default): the backend's best",
    )
    p.add_argument(
        "--where",
        action="append",
        metavar="KEY=VALUE",
        help="only entries whose metadata KEY is VALUE (repeat a key for any of several values)",
    )
    p.add_argument(
        "--min-score",
        type=float,
        metavar="S",
        help="only hits scoring at least S, between 0 and 1 (sqlite: 1 = the passage holds every query word)",
    )
    p.set_defaults(func=run_recall)


def _add_remember(sub: argparse._SubParsersAction) -> None:
    """The remember command."""
    p = command(
        sub,
        "remember",
        "store one note in the memory",
        'memdock remember "The staging database moves on Friday." --thread infra --author ana',
        'memdock remember "Use jittered expiry." --type Decision --time 2026-01-20T10:00:00Z',
    )
    p.add_argument("content", metavar="TEXT", help="the text to remember; - reads it from stdin (UTF-8)")
    p.add_argument("--thread", help="thread name or id to file it under (default: memory)")
    p.add_argument("--author", help="who wrote or said it")
    p.add_argument("--role", help="the author's role")
    p.add_argument("--type", help="entry type: Note, Decision, Plan...")
    p.add_argument("--title", help="a short title")
    p.add_argument("--time", help="when it happened, ISO 8601 (default: now)")
    p.add_argument(
        "--meta",
        action="append",
        metavar="KEY=VALUE",
        help="a metadata field of your own (repeatable; VALUE is JSON when it parses as a number, true, ...)",
    )
    add_backend_options(p)
    p.set_defaults(func=run_remember)


def _add_lookups(sub: argparse._SubParsersAction) -> None:
    """The search, get and forget commands."""
    p = command(
        sub,
        "search",
        "search nodes, facts or episodes",
        'memdock search facts "migrate_v2" -n 5',
        'memdock search nodes "lee" --thread infra',
        'memdock search episodes "cache stampede" --json',
    )
    p.add_argument(
        "what",
        choices=["nodes", "facts", "episodes"],
        help="nodes: threads, entries, entities by name; facts: relations as sentences; episodes: whole entries",
    )
    p.add_argument("text", metavar="QUERY", help="what to look for")
    _search_options(p)
    p.add_argument("--thread", action="append", help="only this thread: a name or a thread id (repeatable)")
    p.add_argument("--group", action="append", dest="thread", help=argparse.SUPPRESS)
    p.set_defaults(func=run_search)

    p = command(
        sub,
        "get",
        "one node or edge by id",
        "memdock get node entry:21bd200e6444fc8d",
        "memdock get edge edge:mentions:7bf64e131a18d54a --json",
    )
    p.add_argument("what", choices=["node", "edge"], help="a node (thread, entry, entity, chunk) or an edge (fact)")
    p.add_argument("id", help="an id from a result")
    add_backend_options(p)
    p.set_defaults(func=run_get)

    p = command(
        sub,
        "forget",
        "delete by id (cascading: a thread takes its entries, an entry its chunks)",
        "memdock forget entry:21bd200e6444fc8d",
        "memdock forget thread:infra:e0f4f396",
    )
    p.add_argument("ids", nargs="+", metavar="ID", help="ids to delete, with what depends on them")
    add_backend_options(p)
    p.set_defaults(func=run_forget)


RECALL_EXAMPLES = """examples:
  memdock recall "why was the search endpoint slow" -n 3
  memdock recall "release plan" --thread infra --since 2026-01-01
  memdock recall "cache" --author ana --type Decision --json
"""
CLI_NAMES = {
    "query": "QUERY",
    "id": "ID",
    "ids": "ID",
    "limit": LIMIT_FLAG,
    "mode": "--mode",
    "min_score": "--min-score",
    "thread": "--thread",
    "since": "--since",
    "until": "--until",
    "author": "--author",
    "role": "--role",
    "type": "--type",
}
CLI_DEADLINE = 600.0  # a command line waits for its answer; the service's 10 s is for agents


def _open_service(args: argparse.Namespace) -> ServiceCore:
    return ServiceCore(open_from_args(args, workers=0), deadline=CLI_DEADLINE)


def _search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--limit", "-n", type=limit_option, default=10, help=f"how many results, {MIN_LIMIT}-{MAX_LIMIT:,} (default 10)"
    )
    add_backend_options(p)


def run_capabilities(args: argparse.Namespace) -> int:
    with open_from_args(args) as b:
        caps = b.get_capabilities(refresh=True)  # the adapter's own answer, not the home's kept one
    if args.json:
        output.emit_json(caps.to_dict())
        return 0
    print(
        f"{caps.adapter} {caps.adapter_version}   protocol {', '.join(caps.protocol_versions)}   payload "
        f"{', '.join(caps.payload_versions)}"
    )
    print("operations: " + ", ".join(caps.operations))
    print("features:   " + ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in caps.features.items()))
    print(f"scores:     {caps.score.get('range')} {caps.score.get('semantics', '')}")
    return 0


def run_health(args: argparse.Namespace) -> int:
    with open_from_args(args) as b:
        status = b.healthcheck()
    if args.json:
        output.emit_json(status.to_dict())
    else:
        print(f"{status.backend}: {'healthy' if status.ok else 'UNHEALTHY'} {status.message}")
        for k, v in status.checks.items():
            print(f"  {k}: {v}")
    return 0 if status.ok else 1


def print_hits(result: SearchResult, as_json: bool) -> None:
    if as_json:
        output.emit_json(result.to_dict())
        return
    if result.degraded:
        print(f"(degraded: {result.reason})")
    if not result.hits:
        print("no results" if result.degraded or not result.reason else f"no results ({result.reason})")
        return
    for i, h in enumerate(result.hits, 1):
        print(output.hit_card(i, h))


def recall_request(args: argparse.Namespace) -> Recall:
    """The request `memdock recall` ARGS make, checked (an error names the option) before anything opens."""
    return Recall.of(
        args.text,
        limit=args.limit,
        mode=args.mode,
        min_score=args.min_score,
        where=parse_pairs(args.where, "--where"),
        thread=args.thread,
        since=args.since,
        until=args.until,
        author=args.author,
        role=args.role,
        type=args.type,
        names=CLI_NAMES,
    )


def run_recall(args: argparse.Namespace) -> int:
    request = recall_request(args)
    with closing(_open_service(args)) as service:
        _refuse_if_missing(service)
        _print_answer(service, service.recall(request), args.json)
    return 0


_NOTHING_YET = "nothing was added or remembered there yet (memdock add SOURCE, or memdock remember TEXT)"


def _refuse_if_missing(service: ServiceCore) -> None:
    """A query names a store that does not exist: an error (exit 3), and no folder is made for it (a mistyped
    --data-dir)."""
    where = service.backend.location
    if not Path(where).exists():
        raise ConfigError(f"there is no store at {where}: {_NOTHING_YET}", details={"store": where})


def _print_answer(service: ServiceCore, result: SearchResult, as_json: bool) -> None:
    """No hits from a store memdock never wrote to is said to be that, not `no results`. The backend is asked
    first all the same: an adapter may hold data indexed outside memdock (a shared graph database)."""
    if result.hits or result.degraded or service.backend.counts():
        print_hits(result, as_json)
    else:
        _refuse_damaged_ledger(Path(service.backend.location) / "ledger.sqlite")
        _say_nothing_there(service, f"the store at {service.backend.location} is empty", as_json)


def _refuse_damaged_ledger(path: Path) -> None:
    """No hits and no counts: a ledger that cannot be read is said to be that, not taken for an empty store."""
    import sqlite3

    from ..engine.ledger import Ledger

    if not path.exists():
        return
    try:
        Ledger.reader(path).close()
    except sqlite3.DatabaseError as exc:
        raise BackendError(
            f"{path}: the store's ledger cannot be opened ({exc}); it is damaged or not a memdock ledger, so what the "
            "store holds is unknown",
            details={"file": str(path)},
        ) from None


def _say_nothing_there(service: ServiceCore, what: str, as_json: bool) -> None:
    why = f"{what}: {_NOTHING_YET}"
    if as_json:
        output.emit_json(SearchResult(degraded=True, reason=why, backend=service.name).to_dict())
    else:
        print(why)


def read_stdin(stream: BinaryIO | None = None) -> str:
    """TEXT given as `-`: stdin, which must be UTF-8 and hold something (an error says which it is not)."""
    raw = (stream or sys.stdin.buffer).read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InvalidInputError(
            f"stdin is not UTF-8 text: byte {exc.start} (line {line}) is 0x{raw[exc.start]:02X}; convert it first, "
            "e.g. iconv -f latin1 -t utf-8",
            details={"source": "stdin", "byte": exc.start, "line": line},
        ) from None
    if not text.strip():
        raise InvalidInputError("stdin is empty: `memdock remember -` reads the note from stdin; pipe some text in")
    return text


def run_remember(args: argparse.Namespace) -> int:
    content = read_stdin() if args.content == "-" else args.content
    with closing(_open_service(args)) as service:
        result = service.remember(
            content,
            thread=args.thread,
            author=args.author,
            role=args.role,
            type=args.type,
            title=args.title,
            time=args.time,
            metadata=parse_pairs(args.meta, "--meta"),
        )
    return say_written(result, args.json, "remembered")


def say_written(result: Remembered, as_json: bool, done: str) -> int:
    """A remember's or an update's RESULT on stdout (a degraded one as a warning); its exit code."""
    if as_json:
        output.emit_json(result.to_dict())
    elif result.degraded:
        output.warn(f"not {done}: {result.reason}")
    else:
        print(f"{done} {result.id} in {result.thread_id}")
    return 1 if result.degraded else 0


def run_search(args: argparse.Namespace) -> int:
    request = Search.of(f"search_{args.what}", args.text, limit=args.limit, thread=args.thread, names=CLI_NAMES)
    with closing(_open_service(args)) as service:
        _refuse_if_missing(service)
        _print_answer(service, service.search(request), args.json)
    return 0


def run_get(args: argparse.Namespace) -> int:
    request = Get.of(f"get_{args.what}", args.id, names=CLI_NAMES)
    with closing(_open_service(args)) as service:
        res = service.get(request)
    if args.json:
        output.emit_json(res.to_dict())
    elif res.item is None:
        print(f"no {args.what} {args.id}" + (f" ({res.reason})" if res.degraded else ""))
        return 1
    else:
        print(output.item_card(res.item))
    return 0 if res.item is not None else 1


def run_forget(args: argparse.Namespace) -> int:
    request = Forget.of(args.ids, names=CLI_NAMES)
    with closing(_open_service(args)) as service:
        res = service.delete(request)
    if args.json:
        output.emit_json(res.to_dict())
    else:
        print(
            f"deleted {len(res.deleted)} record(s) ({res.cascaded} by cascade)"
            + (f"; not found: {', '.join(res.not_found)}" if res.not_found else "")
            + (f" (degraded: {res.reason})" if res.degraded else "")
        )
    return 1 if res.degraded or res.not_found else 0
