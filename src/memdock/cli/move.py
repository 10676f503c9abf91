"""Moving a memory out of its backend: `memdock export` (the store's journal as one bundle) and
`memdock migrate` (export, then index into another backend)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..bundle import OutputNotEmptyError
from ..config import resolve
from ..engine.journal import Exported
from ..engine.ledger import Ledger
from ..engine.store import refuse_output_in_store
from ..errors import InvalidInputError
from ..registry import Registry
from ..runner.backend import SubprocessBackend
from ..tempdirs import private_dir
from ..threads import thread_id_for
from . import output
from .common import add_backend_options, names_force, open_from_args, parse_config


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help="write a store's memory (everything indexed or remembered, nothing forgotten) as one bundle",
        epilog="examples:\n  memdock export -o backup\n  memdock export --thread infra -o infra-only -b tantivy",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--output", "-o", required=True, help="bundle directory to write")
    p.add_argument("--thread", action="append", help="only this thread: a name or a thread id (repeatable)")
    p.add_argument("--force", action="store_true", help="replace an existing bundle at the output")
    add_backend_options(p)
    p.set_defaults(func=run_export)

    p = sub.add_parser(
        "migrate",
        help="copy a store's memory into another backend (export, then index)",
        epilog="examples:\n  memdock migrate --to tantivy\n"
        "  memdock migrate -b sqlite --data-dir old-store --to graphiti --to-config llm_base_url=http://...",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--to", required=True, metavar="BACKEND", help="the backend to copy the memory into")
    p.add_argument("--to-data-dir", help="its store (default: MEMDOCK_HOME/stores/<backend>)")
    p.add_argument(
        "--to-config", action="append", default=[], metavar="KEY=VALUE", help="its adapter config (repeatable)"
    )
    add_backend_options(p)
    p.set_defaults(func=run_migrate)


def _export(args: argparse.Namespace, source: SubprocessBackend, out: Path, *, force: bool) -> Exported:
    threads = [thread_id_for(t) for t in args.thread] if getattr(args, "thread", None) else None
    if not source.counts():
        if source.store.ledger_path.exists():
            Ledger(source.store.ledger_path).close()  # a damaged ledger is named, not taken for an empty store
        raise InvalidInputError(f"the store {source.store.root} holds nothing to export: index or remember first")
    refuse_output_in_store(out)
    held = source.threads() if threads else {}
    unknown = [given for given, tid in zip(getattr(args, "thread", None) or [], threads or []) if tid not in held]
    if unknown:
        raise InvalidInputError(
            f"--thread {unknown[0]!r}: the store {source.store.root} holds no such thread; nothing was exported"
        )
    try:
        done = source.export(out, threads=threads, force=force)
    except OutputNotEmptyError as exc:
        raise names_force(exc) from None
    if done.missing:
        output.warn(
            f"{done.missing} record(s) were indexed before this store kept a journal and are not in the export; "
            "index their sources again to journal them"
        )
    return done


def run_export(args: argparse.Namespace) -> int:
    with open_from_args(args) as source:
        done = _export(args, source, Path(args.output), force=args.force)
    if args.json:
        output.emit_json({"output": args.output, "counts": done.counts, "missing": done.missing})
    else:
        print(f"exported to {args.output}: " + ", ".join(f"{n} {t}" for t, n in done.counts.items()))
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    target_settings = resolve(backend=args.to, data_dir=args.to_data_dir)
    descriptor = Registry.default().get(target_settings.backend)  # an unknown backend fails here, before any work
    with open_from_args(args) as source:
        if Path(target_settings.store).resolve() == source.store.root:
            raise InvalidInputError(f"--to {args.to} names the same store as the source ({source.store.root})")
        with private_dir("migrate") as work:
            counts = _export(args, source, work / "bundle", force=False).counts
            config = {**target_settings.adapter_config, **parse_config(args.to_config)}
            sandbox = "off" if args.no_sandbox else (args.sandbox or target_settings.sandbox or True)
            with SubprocessBackend(descriptor, Path(target_settings.store), config=config, sandbox=sandbox) as target:
                result = target.index(work / "bundle", prune=False)
    if args.json:
        output.emit_json({"exported": counts, "indexed": result.to_dict()})
    else:
        print(
            f"migrated {sum(counts.values())} record(s) to {descriptor.name} at {target_settings.store}: "
            f"sent {sum(result.details.get('sent', {}).values())}, unchanged {result.skipped}"
        )
    return 0
