"""`memdock add` of one corpus from this checkout and from another (--baseline), interleaved, in one run.

Prints wall seconds and the CPU seconds of the whole `memdock add` (parent, adapter and their children, from
RUSAGE_CHILDREN) side by side, and how much of it the parent process spent itself (its own RUSAGE_SELF: import,
chunk, hash, ledger, journal; the rest is the adapter). On a shared, loaded box wall time follows the load; CPU
seconds mostly do not, so a change that costs work shows in them while load alone does not. The corpora are
bench/peers.py's (its markdown copies of the watercooler threads, its 457-byte notes, its synthetic chunks bundle
for `memdock index`, chunks only).

    python bench/add_baseline.py --baseline /path/to/other/checkout --markdown-mb 20 --reps 2
    python bench/add_baseline.py --baseline /path/to/other/checkout --chunks 100000 --reps 2
    python bench/add_baseline.py --baseline /path/to/other/checkout --readd   # and `memdock add` again, unchanged

With --readd each add is run a second time into the store it made, the source unchanged: that re-add's wall and
CPU seconds beside the first add's, and their ratio (issue 31: at most 0.15).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import write_markdown, write_notes  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402


def cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


# `memdock ARGS` as `python -m memdock` runs it, then the process's own CPU seconds into the file named first
PARENT = """import resource, sys
out, sys.argv = sys.argv[1], ["memdock", *sys.argv[2:]]
from memdock.cli.main import main
code = main()
used = resource.getrusage(resource.RUSAGE_SELF)
open(out, "w").write(str(used.ru_utime + used.ru_stime))
sys.exit(code)
"""


def add(
    tree: Path, source: Path, fmt: str, backend: str, store: Path, home: Path | None = None
) -> tuple[float, float, float, int]:
    """Wall and CPU seconds of `memdock add` (`memdock index` of a chunks bundle: FMT "chunks") from TREE's src,
    the parent's own CPU seconds, and the bytes of the store it left. HOME: the MEMDOCK_HOME to run with (its
    adapter venvs), when not this process's."""
    own = store.with_name(store.name + ".cpu")
    how = ["index", str(source)] if fmt == "chunks" else ["add", str(source), "-f", fmt]
    args = [*how, "-b", backend, "--data-dir", str(store), "-q"]
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), **({"MEMDOCK_HOME": str(home)} if home else {}))
    cpu, wall = cpu_seconds(), time.perf_counter()
    subprocess.run([sys.executable, "-c", PARENT, str(own), *args], check=True, stdout=subprocess.DEVNULL, env=env)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    parent = float(own.read_text())
    own.unlink()
    return wall, cpu, parent, sum(p.stat().st_size for p in store.rglob("*") if p.is_file())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="another checkout of memdock (say, an older commit)")
    ap.add_argument("--markdown-mb", type=float, default=0.0, help="megabytes of markdown; 0: the notes instead")
    ap.add_argument("--chunks", type=int, default=0, help="synthetic chunks, `memdock index` (chunks only); 0: none")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--backend", default="sqlite")
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    ap.add_argument("--readd", action="store_true", help="add again, unchanged, and print the re-add's share")
    ap.add_argument(
        "--baseline-home",
        type=Path,
        default=None,
        help="MEMDOCK_HOME for the baseline's runs: an adapter venv carries a copy of the core, so a backend other "
        "than sqlite needs one installed from the baseline (`memdock adapters install` run from it)",
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="add-baseline-", dir=args.tmp))
    try:
        if args.chunks > 0:
            source, fmt = work / "chunks", "chunks"
            pairs = write_bundle(source, Vocabulary(work), args.chunks, __import__("random").Random(11))
            text_bytes = sum(len(x.encode()) for _, x in pairs)
        elif args.markdown_mb > 0:
            source, fmt = work / "markdown", "watercooler"
            text_bytes = write_markdown(source, args.markdown_mb)
        else:
            source, fmt = work / "notes.jsonl", "jsonl"
            text_bytes = sum(len(t.encode()) for _, t in write_notes(source, args.notes))
        verb = "index" if fmt == "chunks" else "add"
        print(f"{text_bytes / 1e6:.2f} MB of {fmt}, `memdock {verb} -b {args.backend}`, {args.reps} repetitions")
        trees = {"this": ROOT, "baseline": args.baseline.resolve()}
        homes = {"this": None, "baseline": args.baseline_home}
        for rep in range(args.reps):
            for name, tree in trees.items():
                load = os.getloadavg()[0]
                store = work / f"{name}-{rep}"
                wall, cpu, parent, size = add(tree, source, fmt, args.backend, store, homes[name])
                print(
                    f"rep {rep} {name:8} wall {wall:8.2f} s  cpu {cpu:8.2f} s (parent {parent:6.2f}, adapter "
                    f"{cpu - parent:6.2f})  {text_bytes / 1e6 / wall:6.2f} MB/s  "
                    f"store {size / text_bytes:5.2f}x text  load {load:.1f}",
                    flush=True,
                )
                if args.readd:
                    again, again_cpu, again_parent, _ = add(tree, source, fmt, args.backend, store, homes[name])
                    print(
                        f"      {name:8} re-add wall {again:6.2f} s  cpu {again_cpu:6.2f} s (parent {again_parent:.2f})"
                        f"  x first: {again / wall:.3f} wall, {again_cpu / cpu:.3f} cpu  load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
                shutil.rmtree(store)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
