"""`memdock doctor`: what this machine offers memdock, and whether the adapters can run here."""

from __future__ import annotations

import argparse
import importlib.util
import platform
import shutil
import sys

from .. import PAYLOAD_VERSION, PROTOCOL_VERSION, __version__
from ..config import resolve
from ..errors import ConfigError
from ..installs import interpreter_of
from ..registry import Registry
from ..runner import landlock
from ..runner.process import descendant_control
from ..validation import get_engine
from . import output
from .common import command


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "doctor",
        "check this machine: sandbox, validator, runtimes, adapters",
        "memdock doctor",
        "memdock doctor --json",
    )
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(func=run)


EXTRAS = {
    "mcp": ("mcp",),
    "langchain": ("langchain_core",),
    "llama-index": ("llama_index.core",),
    "fast": ("jsonschema_rs",),
    "embeddings": ("sentence_transformers",),
    "ray": ("ray",),
}
"""Each optional extra of memdock and the module that shows it installed."""


def extras() -> list[str]:
    """Each extra, installed or missing with the command that installs it."""
    out = []
    for name, modules in EXTRAS.items():
        missing = [m for m in modules if not _importable(m)]
        out.append(f"{name}: installed" if not missing else f"{name}: missing (pip install 'memdock[{name}]')")
    return out


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing
        return False


def run(args: argparse.Namespace) -> int:
    try:
        settings = resolve()
        backend, store = f"{settings.backend} (from {settings.backend_source})", str(settings.store)
    except ConfigError as exc:  # e.g. memdock.toml names a backend its data_dir's store is not bound to
        backend, store = f"refused: {exc}", "-"
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
        "backend": backend,
        "store": store,
        "adapters": sorted(found),
        "adapter interpreters": [
            f"{n}: {interpreter_of(found[n])}" for n in sorted(found) if found[n].runtime["kind"] == "python"
        ],
        "broken adapters": [b.describe() for b in broken],
        "extras": extras(),
    }
    if args.json:
        output.emit_json(report)
        return 0
    width = max(len(k) for k in report)
    for k, v in report.items():
        print(f"{k:<{width}}  {', '.join(v) if isinstance(v, list) else v}")
    return 0
