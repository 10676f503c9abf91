"""`memdock doctor`: what this machine offers memdock, and whether the adapters can run here."""

from __future__ import annotations

import argparse
import platform
import shutil
import sys

from .. import PAYLOAD_VERSION, PROTOCOL_VERSION, __version__
from ..config import resolve
from ..registry import Registry
from ..runner import landlock
from ..runner.process import descendant_control
from ..validation import get_engine
from . import output
from .common import examples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="check this machine: sandbox, validator, runtimes, adapters",
        **examples("memdock doctor", "memdock doctor --json"),
    )
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = resolve()
    registry = Registry.default()
    found, broken = registry.discover(), registry.broken()
    report = {
        "memdock": __version__,
        "payload_version": PAYLOAD_VERSION,
        "protocol_version": PROTOCOL_VERSION,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "sandbox": landlock.status(),
        "strict_sandbox": landlock.strict_status(),
        "signals": landlock.signal_status(),
        "landlock_abi": landlock.abi_version(),
        "descendants": descendant_control(),
        "validator": get_engine().name,
        "node": shutil.which("node") or "not found",
        "backend": f"{settings.backend} (from {settings.backend_source})",
        "store": str(settings.store),
        "adapters": sorted(found),
        "broken adapters": [b.describe() for b in broken],
    }
    if args.json:
        output.emit_json(report)
        return 0
    width = max(len(k) for k in report)
    for k, v in report.items():
        print(f"{k:<{width}}  {', '.join(v) if isinstance(v, list) else v}")
    return 0
