"""`memdock validate BUNDLE`: check a bundle end to end and print every problem, one line each."""

from __future__ import annotations

import argparse

from ..bundle import BundleReader
from ..errors import MemdockError
from . import output
from .common import bounded_int, command


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "validate",
        "check a payload bundle: manifest, files, checksums, every record",
        "memdock validate corpus",
        "memdock validate chunks --max-errors 20 --json",
    )
    p.add_argument("bundle", help="bundle directory")
    p.add_argument(
        "--max-errors",
        type=bounded_int("--max-errors", 0, 1_000_000),
        default=50,
        help="print at most this many errors (default 50)",
    )
    p.add_argument("--engine", choices=["auto", "jsonschema", "jsonschema-rs"], default=None, help="validation engine")
    p.add_argument("--json", action="store_true", help="machine-readable summary on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    reader: BundleReader | None = None
    errors: list[MemdockError]
    try:
        reader = BundleReader(args.bundle, engine=args.engine)
        errors = list(reader.verify())
    except MemdockError as exc:
        errors = [exc]
    shown = errors[: args.max_errors]
    if args.json:
        output.emit_json(
            {
                "bundle": args.bundle,
                "valid": not errors,
                "errors": len(errors),
                "messages": [str(e) for e in shown],
                "counts": {t: reader.count(t) for t in reader.record_types()} if reader else {},
            }
        )
    else:
        for e in shown:
            print(str(e))
        if errors or reader is None:
            more = f" (showing {len(shown)})" if len(shown) < len(errors) else ""
            print(f"{args.bundle}: INVALID, {len(errors)} error(s){more}")
        else:
            counts = ", ".join(f"{reader.count(t)} {t}" for t in reader.record_types())
            print(f"{args.bundle}: valid {reader.kind} bundle, payload {reader.version}: {counts}")
    return 1 if errors else 0
