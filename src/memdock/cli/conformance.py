"""`memdock conformance NAME|PATH`: prove an adapter keeps the contract."""

from __future__ import annotations

import argparse

from ..conformance import CheckResult, KitOptions, check_names, run_kit
from . import output
from .common import bounded_int, command, parse_config

MARK = {"pass": "PASS", "fail": "FAIL", "skip": "skip"}


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "conformance",
        "run the conformance kit against an adapter",
        "memdock conformance sqlite",
        "memdock conformance ./my-adapter -c url=http://localhost:8080",
    )
    p.add_argument("adapter", help="adapter name or folder")
    p.add_argument("--check", action="append", dest="only", choices=check_names(), help="run only these checks")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per operation (default 120)")
    p.add_argument(
        "--idle", type=float, default=30.0, help="seconds without progress before an adapter is stopped (default 30)"
    )
    p.add_argument(
        "--config", "-c", action="append", default=[], metavar="KEY=VALUE", help="adapter config (repeatable)"
    )
    p.add_argument("--keep", action="store_true", help="keep the kit's scratch directory")
    p.add_argument(
        "--resume-filler",
        type=bounded_int("--resume-filler", 1, 1_000_000),
        default=1500,
        metavar="N",
        help="filler entries in the resume check (default 1500; fewer for adapters that call an LLM per record)",
    )
    p.add_argument(
        "--sandbox",
        choices=["writes", "strict"],
        default="writes",
        help="strict: confine the adapter's reads too (Landlock), as `--sandbox strict` does for other commands",
    )
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    opts = KitOptions(
        timeout=args.timeout,
        idle=args.idle,
        config=parse_config(args.config),
        only=args.only,
        keep=args.keep,
        resume_filler=args.resume_filler,
        sandbox=args.sandbox,
    )

    def show(r: CheckResult) -> None:
        if not args.json:
            print(f"{MARK[r.status]:4}  {r.name:<20} {r.seconds:6.2f}s  {r.detail}", flush=True)

    report = run_kit(args.adapter, opts, on_result=show)
    if args.json:
        output.emit_json(
            {
                "adapter": report.adapter,
                "ok": report.ok,
                "sandbox": report.sandbox,
                "results": [r.__dict__ for r in report.results],
            }
        )
    else:
        counts = {s: sum(1 for r in report.results if r.status == s) for s in ("pass", "fail", "skip")}
        print(f"\n{report.adapter}: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
        print(f"sandbox: {report.sandbox}")
    return 0 if report.ok else 1
