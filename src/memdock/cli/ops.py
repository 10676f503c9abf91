"""Backend operations from the command line: capabilities, health, query, search, get, forget."""

from __future__ import annotations

import argparse

from ..contract import SearchResult
from ..errors import UnsupportedOperationError
from ..service import arguments
from . import output
from .common import SEARCH_LIMIT, add_backend_options, bounded_int, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("capabilities", help="what the backend can do (the handshake)")
    add_backend_options(p)
    p.set_defaults(func=run_capabilities)

    p = sub.add_parser("health", help="is the backend usable right now")
    add_backend_options(p)
    p.set_defaults(func=run_health)

    p = sub.add_parser("query", help="search the memory")
    p.add_argument("text")
    _search_options(p)
    p.add_argument("--thread", action="append", dest="thread_ids", help="only these threads (repeatable)")
    p.add_argument("--since", help="only entries at or after this RFC 3339 time")
    p.add_argument("--until", help="only entries at or before this RFC 3339 time")
    p.add_argument("--author", action="append", dest="authors")
    p.add_argument("--role", action="append", dest="roles")
    p.add_argument("--type", action="append", dest="entry_types")
    p.add_argument("--mode", choices=["bm25", "vector", "hybrid", "auto"])
    p.set_defaults(func=run_query)

    p = sub.add_parser("search", help="search nodes, facts or episodes")
    p.add_argument("what", choices=["nodes", "facts", "episodes"])
    p.add_argument("text")
    _search_options(p)
    p.add_argument("--group", action="append", dest="group_ids")
    p.set_defaults(func=run_search)

    p = sub.add_parser("get", help="one node or edge by id")
    p.add_argument("what", choices=["node", "edge"])
    p.add_argument("id")
    add_backend_options(p)
    p.set_defaults(func=run_get)

    p = sub.add_parser("forget", help="delete by id (cascading: a thread takes its entries, an entry its chunks)")
    p.add_argument("ids", nargs="+")
    add_backend_options(p)
    p.set_defaults(func=run_forget)


def _search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", "-n", type=bounded_int("--limit/-n", *SEARCH_LIMIT), default=10)
    add_backend_options(p)


def run_capabilities(args: argparse.Namespace) -> int:
    with open_from_args(args) as b:
        caps = b.get_capabilities()
    if args.json:
        output.emit_json(caps.to_dict())
        return 0
    print(
        f"{caps.adapter} {caps.adapter_version}   protocol {', '.join(caps.protocol_versions)}   payload {', '.join(caps.payload_versions)}"
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
        print("no results")
        return
    for i, h in enumerate(result.hits, 1):
        print(output.hit_card(i, h))


CLI_NAMES = {
    "thread_ids": "--thread",
    "time_from": "--since",
    "time_to": "--until",
    "authors": "--author",
    "roles": "--role",
    "entry_types": "--type",
}


def run_query(args: argparse.Namespace) -> int:
    text = arguments.text(args.text, name="TEXT")
    filters = arguments.filters(
        {
            "thread_ids": args.thread_ids,
            "time_from": args.since,
            "time_to": args.until,
            "authors": args.authors,
            "roles": args.roles,
            "entry_types": args.entry_types,
        },
        names=CLI_NAMES,
    )
    with open_from_args(args) as b:
        print_hits(b.query(text, limit=args.limit, filters=filters, mode=args.mode), args.json)
    return 0


def run_search(args: argparse.Namespace) -> int:
    text = arguments.text(args.text, name="TEXT")
    groups = arguments.identifiers(args.group_ids, name="--group") if args.group_ids else None
    with open_from_args(args) as b:
        op = {"nodes": b.search_nodes, "facts": b.search_facts, "episodes": b.search_episodes}[args.what]
        try:
            result = op(text, limit=args.limit, group_ids=groups)
        except UnsupportedOperationError:
            result = SearchResult(
                degraded=True, reason=f"backend {b.name} does not support search_{args.what}", backend=b.name
            )
            if not args.json:
                output.warn(result.reason or "")
        print_hits(result, args.json)
    return 0


def run_get(args: argparse.Namespace) -> int:
    arguments.identifier(args.id, name="ID")
    with open_from_args(args) as b:
        res = (b.get_node if args.what == "node" else b.get_edge)(args.id)
    if args.json:
        output.emit_json(res.to_dict())
    elif res.item is None:
        print(f"no {args.what} {args.id}")
        return 1
    else:
        h = res.item
        print(f"{h.kind} {h.id}\n{h.text}")
        for k, v in {**h.provenance, **(h.extra or {})}.items():
            print(f"  {k}: {v}")
    return 0 if res.item is not None else 1


def run_forget(args: argparse.Namespace) -> int:
    arguments.identifiers(args.ids, name="ID")
    with open_from_args(args) as b:
        res = b.delete(args.ids)
    if args.json:
        output.emit_json(res.to_dict())
    else:
        print(
            f"deleted {len(res.deleted)} record(s) ({res.cascaded} by cascade)"
            + (f"; not found: {', '.join(res.not_found)}" if res.not_found else "")
        )
    return 0
