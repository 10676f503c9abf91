"""`memdock adapters list|show|install`."""

from __future__ import annotations

import argparse
import shutil

from ..errors import ConfigError
from ..installs import install, install_state, interpreter_of
from ..registry import AdapterDescriptor, Registry
from . import output
from .common import command


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "adapters",
        "list, show and install adapters",
        "memdock adapters list",
        "memdock adapters show graphiti",
        "memdock adapters install tantivy",
    )
    s = p.add_subparsers(dest="adapters_command", metavar="ACTION", required=True)
    ls = command(s, "list", "every adapter memdock can find", "memdock adapters list", "memdock adapters list --json")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    ls.set_defaults(func=run_list)
    show = command(s, "show", "one adapter's descriptor", "memdock adapters show sqlite")
    show.add_argument("name", help="adapter name or folder")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(func=run_show)
    inst = command(
        s,
        "install",
        "create the adapter's own runtime (a virtualenv for Python adapters)",
        "memdock adapters install tantivy",
        "memdock adapters install graphiti --with 'torch==2.13.0' --with sentence-transformers",
    )
    inst.add_argument("name", help="adapter name or folder")
    inst.add_argument("--force", action="store_true", help="rebuild the virtualenv even if it is up to date")
    inst.add_argument(
        "--with",
        dest="extra",
        action="append",
        default=[],
        metavar="REQUIREMENT",
        help="also install this into the adapter's virtualenv (repeatable), e.g. sentence-transformers",
    )
    inst.set_defaults(func=run_install)


def _installed(d: AdapterDescriptor) -> str:
    kind = d.runtime["kind"]
    if kind == "python":
        if not d.runtime.get("requirements"):
            return "yes"
        state = install_state(d)
        return "yes" if state.ok else f"no: {state.reason}" if d.venv.exists() else "no"
    if kind == "node":
        return "yes" if shutil.which("node") else "node missing"
    return "yes"


def run_list(args: argparse.Namespace) -> int:
    registry = Registry.default()
    found, broken = registry.discover(), registry.broken()
    rows = [
        (d.name, d.version, d.runtime["kind"], _installed(d), interpreter_of(d), d.origin, d.description)
        for d in found.values()
    ]
    if args.json:
        output.emit_json(
            [dict(zip(("name", "version", "runtime", "installed", "python", "origin", "description"), r)) for r in rows]
            + [{"name": b.name, "broken": True, "path": b.path, "origin": b.origin, "error": b.error} for b in broken]
        )
        return 0
    print(output.table(rows, ["name", "version", "runtime", "installed", "python", "from", "description"]))
    if broken:
        print("\nbroken (skipped; fix the descriptor or remove it from MEMDOCK_ADAPTER_PATH):")
        for b in broken:
            print(f"  {b.name or '?'}  from {b.origin}: {b.describe()}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    d = Registry.default().get(args.name)
    if args.json:
        output.emit_json({**d.raw, "path": str(d.path), "origin": d.origin, "installed": _installed(d)})
        return 0
    print(f"{d.name} {d.version} ({d.runtime['kind']}, from {d.origin})\n  {d.description}\n  folder: {d.path}")
    if d.runtime["kind"] == "python":
        print(
            f"  python: {interpreter_of(d)}"
            + (f"   (runtime.python {d.runtime['python']})" if "python" in d.runtime else "")
        )
    print(
        f"  protocols: {', '.join(d.protocol_versions)}   worker mode: {'yes' if d.supports_worker else 'no'}   "
        f"installed: {_installed(d)}"
    )
    props = d.config_schema.get("properties", {})
    if props:
        print("  config:")
        for k, v in props.items():
            secret = "  (secret: from the environment)" if v.get("x-secret") else ""
            print(f"    {k}: {v.get('type', '')} {v.get('description', '')}{secret}")
    if d.env:
        print("  environment:")
        for e in d.env:
            print(f"    {e['name']}{' (secret)' if e.get('secret') else ''} {e.get('description', '')}")
    return 0


def run_install(args: argparse.Namespace) -> int:
    d = Registry.default().get(args.name)
    kind = d.runtime["kind"]
    if kind == "node":
        if not shutil.which("node"):
            raise ConfigError(f"{d.name} needs Node.js {d.runtime.get('node', '')}+; install node and run again")
        print(f"{d.name}: uses the system node ({shutil.which('node')}); nothing to install")
        return 0
    if kind != "python" or not d.runtime.get("requirements"):
        print(
            f"{d.name}: runs with {'the core interpreter' if kind == 'python' else 'its own executable'}; nothing to "
            "install"
        )
        return 0
    print(install(d, args.extra, force=args.force))
    return 0
