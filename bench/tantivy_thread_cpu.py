"""Where the tantivy adapter's CPU goes, by thread: its Python main thread (records to documents, facts, keys,
packing, handing documents to the writer) against tantivy's own indexing and merging threads (the engine alone,
the floor no Python-side change goes under) and the rest (the stream reader, the runner's threads).

Runs `memdock add` of bench/peers.py's 457-byte notes (or `memdock index` of --chunks synthetic chunks) into a
new tantivy store with this checkout, and reads every thread of the adapter's process from /proc while it runs
(utime + stime of /proc/PID/task/TID/stat, the last reading before the thread ended, so each thread's figure is
short by at most one --poll interval). Linux only.

    python bench/tantivy_thread_cpu.py                   # 20,000 notes
    python bench/tantivy_thread_cpu.py --chunks 100000   # chunks only
    python bench/tantivy_thread_cpu.py --reps 3 --baseline ../base --baseline-home ../basehome  # main beside

With --baseline (another checkout, its adapter venv in --baseline-home), each repetition runs it and this checkout
on the same input, in turn, and prints both: compare CPU seconds, which load on the box moves less than wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import write_notes  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
ENGINE = ("thrd-tantivy", "thread-tantivy", "segment_updater", "merge_thread", "docstore-compre")  # names tantivy
# gives its indexing, merging and doc store threads (15 characters of them: the kernel keeps no more)


def adapter_pids(store: Path) -> list[int]:
    """The adapter processes working on STORE (their request file lies under it)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            cmd = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "memdock_tantivy" in cmd and str(store) in cmd:
            found.append(int(entry.name))
    return found


def threads(pid: int) -> dict[int, tuple[str, float]]:
    """Each live thread of PID: its name and CPU seconds so far."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        out[int(tid)] = (name, (int(rest[11]) + int(rest[12])) / TICK)  # fields 14 and 15 of proc(5)
    return out


def group(name: str, tid: int, pid: int, engine: bool) -> str:
    """ENGINE: PID runs tantivy threads (the adapter; the others are the runner's processes around it)."""
    if not engine:
        return "runner processes"
    if tid == pid:
        return "python main thread"
    return "tantivy threads" if name.startswith(ENGINE) else "other threads"


def watch(cmd: list[str], store: Path, poll: float, env: dict[str, str]) -> tuple[dict[str, float], float]:
    """Run CMD; the adapter's CPU seconds by thread group, and the whole command's (RUSAGE_CHILDREN)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
    last: dict[tuple[int, int], tuple[str, float]] = {}
    while proc.poll() is None:
        for pid in adapter_pids(store):
            for tid, seen in threads(pid).items():
                last[(pid, tid)] = seen
        time.sleep(poll)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit code {proc.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    whole = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    engine = {pid for (pid, _), (name, _) in last.items() if name.startswith(ENGINE)}
    groups: dict[str, float] = defaultdict(float)
    for (pid, tid), (name, cpu) in last.items():
        groups[group(name, tid, pid, pid in engine)] += cpu
    return dict(groups), whole


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--chunks", type=int, default=0, help="synthetic chunks, `memdock index`; 0: the notes")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--poll", type=float, default=0.05, help="seconds between readings of /proc")
    ap.add_argument("--tmp", default=None, help="where the corpus and stores go (default: the system's temp dir)")
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout, run beside this one")
    ap.add_argument("--baseline-home", type=Path, default=None, help="MEMDOCK_HOME of the baseline's adapter venvs")
    ap.add_argument("--config", action="append", default=[], help="KEY=VALUE for the adapter (repeatable)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tantivy-threads-", dir=args.tmp)).resolve()
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run(args: argparse.Namespace, work: Path) -> None:
    if args.chunks > 0:
        source = work / "chunks"
        write_bundle(source, Vocabulary(work), args.chunks, __import__("random").Random(11))
        how = ["index", str(source)]
    else:
        source = work / "notes.jsonl"
        write_notes(source, args.notes)
        how = ["add", str(source), "-f", "jsonl"]
    trees = [("this", ROOT, None)]
    if args.baseline is not None:
        trees.insert(0, ("base", args.baseline.resolve(), args.baseline_home))
    for rep in range(args.reps):
        for label, tree, home in trees:
            env = dict(os.environ, PYTHONPATH=str(tree / "src"))
            if home is not None:
                env["MEMDOCK_HOME"] = str(home.resolve())
            store = work / f"store-{label}-{rep}"
            load = os.getloadavg()[0]
            cmd = [sys.executable, "-m", "memdock", *how, "-b", "tantivy", "--data-dir", str(store), "-q"]
            cmd += [arg for kv in args.config for arg in ("--config", kv)]
            groups, whole = watch(cmd, store, args.poll, env)
            shutil.rmtree(store, ignore_errors=True)
            runner = groups.pop("runner processes", 0.0)
            adapter = sum(groups.values())
            parts = "  ".join(f"{k} {v:5.2f} s ({v / adapter:4.0%})" for k, v in sorted(groups.items()))
            print(
                f"rep {rep} {label}  whole command {whole:6.2f} s = parent and runner {whole - adapter:5.2f} s "
                f"(runner processes {runner:4.2f}) + adapter {adapter:5.2f} s: {parts}  load {load:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    raise SystemExit(main())
