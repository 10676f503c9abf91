"""`memdock add` with its adapter reading the pass's records as they are made (the default) beside the same add
with the adapter reading the sealed journal segment after the pass (`MEMDOCK_INDEX_STREAM=0`), interleaved, in
one run; with --baseline, the same two from another checkout too.

Prints wall and CPU seconds of each: the whole add's (parent and adapter, from RUSAGE_CHILDREN), the parent's own
(its RUSAGE_SELF; the rest is the adapter's), and `both`, the CPU seconds during which parent and adapter ran at
once (sampled from /proc every 50 ms: per interval the smaller of the two's CPU, summed), `pass waits`, the
seconds the parent spent waiting to write to the adapter's full stdin pipe (sampled from its threads' wchan), and
the load average; `parent MB` and `adapter MB`, the peak resident memory of the parent and of its largest
descendant (VmHWM, as last sampled: the last 50 ms of a process are not seen). On a box with a core to spare,
the streamed add's wall time approaches the larger of the parent's and the adapter's CPU, where the sealed add's
is their sum; on a box whose cores are all busy (a load average at or above its core count) there is no core to
overlap on, and wall time follows the load.

    python bench/add_stream.py --backend sqlite --reps 3 --baseline /path/to/other/checkout
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from add_baseline import PARENT, cpu_seconds  # noqa: E402  # memdock writing out its own CPU seconds
from peers import write_markdown, write_notes  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu(pid: int) -> float:
    """PID's CPU seconds so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def descendants(pid: int) -> list[int]:
    """PID's children and theirs, whichever of its threads started them."""
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            continue
    return kids + [d for k in kids for d in descendants(k)]


def peak_mb(pid: int) -> float:
    """PID's peak resident memory so far, in MB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def writing_to_pipe(pid: int) -> bool:
    """Whether a thread of PID waits in the kernel to write to a full pipe (the adapter's stdin)."""
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            if "pipe_write" in (task / "wchan").read_text():
                return True
        except OSError:
            continue
    return False


class Overlap:
    """Samples PID and its descendants every 50 ms; BOTH sums, per interval, the smaller of their CPU seconds;
    WAITED the intervals at whose end PID was waiting to write to a full pipe; PEAK the peak memory of PID and
    of its largest descendant (MB)."""

    def __init__(self, pid: int):
        self.pid, self.both, self.waited, self.done = pid, 0.0, 0.0, threading.Event()
        self.last: dict[int, float] = {}
        self.peak = [0.0, 0.0]
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        last = time.monotonic()
        while not self.done.wait(0.05):
            if writing_to_pipe(self.pid):
                self.waited += time.monotonic() - last
            last = time.monotonic()
            kids = descendants(self.pid)
            now = {p: proc_cpu(p) for p in [self.pid, *kids]}
            self.peak = [max(self.peak[0], peak_mb(self.pid)), max([self.peak[1], *map(peak_mb, kids)])]
            step = {p: max(0.0, c - self.last.get(p, 0.0)) for p, c in now.items()}  # a pid gone reads 0
            self.last.update(now)
            parent = step.pop(self.pid, 0.0)
            self.both += min(parent, sum(step.values()))

    def stop(self) -> tuple[float, float, list[float]]:
        self.done.set()
        self.thread.join()
        return self.both, self.waited, self.peak


def add(
    tree: Path, home: str | None, source: Path, fmt: str, backend: str, store: Path, streamed: bool
) -> tuple[float, ...]:
    """Wall, CPU, the parent's own CPU, the overlap's and the pipe waits' seconds, the parent's and the adapter's
    peak MB of one `memdock add` from TREE (its adapters in HOME) into a new store."""
    shutil.rmtree(store, ignore_errors=True)
    own = store.with_name(store.name + ".cpu")
    env = {**os.environ, "MEMDOCK_INDEX_STREAM": "1" if streamed else "0", "PYTHONPATH": str(tree / "src")}
    if home is not None:
        env["MEMDOCK_HOME"] = home
    args = ["add", str(source), "-f", fmt, "-b", backend, "--data-dir", str(store), "-q"]
    cpu, start = cpu_seconds(), time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", PARENT, str(own), *args], env=env, stdout=subprocess.DEVNULL)
    overlap = Overlap(proc.pid)
    if proc.wait() != 0:
        raise SystemExit(f"memdock add from {tree} failed ({proc.returncode})")
    wall, cpu, (both, waited, peak) = time.monotonic() - start, cpu_seconds() - cpu, overlap.stop()
    parent = float(own.read_text())
    own.unlink()
    return wall, cpu, parent, both, waited, *peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="sqlite")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--markdown-mb", type=float, default=0.0, help="megabytes of markdown; 0: the notes instead")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout of memdock, run the same way")
    ap.add_argument(
        "--baseline-home",
        default=None,
        help="the baseline's MEMDOCK_HOME (an adapter venv holds its own build of the core; default: MEMDOCK_HOME)",
    )
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="add-stream-", dir=args.tmp))
    home = os.environ.get("MEMDOCK_HOME")
    trees: dict[str, tuple[Path, str | None]] = {"this": (ROOT, home)}
    if args.baseline:
        trees["baseline"] = (args.baseline.resolve(), args.baseline_home or home)
    try:
        if args.markdown_mb:
            source, fmt = work / "markdown", "watercooler"
            write_markdown(source, args.markdown_mb)
        else:
            source, fmt = work / "notes.jsonl", "jsonl"
            write_notes(source, args.notes)
        what = f"{args.markdown_mb:g} MB of markdown" if args.markdown_mb else f"{args.notes} notes"
        print(f"{what}, `memdock add -b {args.backend}`, {args.reps} repetitions, streamed and sealed, interleaved")
        print(
            "| rep | tree | add | wall s | CPU s | parent CPU s | adapter CPU s | both s | pass waits s | parent MB | "
            "adapter MB | load |"
        )
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for rep in range(args.reps):
            runs = [(name, s) for name in trees for s in (True, False)]
            for name, streamed in runs if rep % 2 == 0 else runs[::-1]:
                got = add(*trees[name], source, fmt, args.backend, work / "store", streamed)
                wall, cpu, parent, both, waited, parent_mb, adapter_mb = got
                kind = "streamed" if streamed else "sealed"
                load = os.getloadavg()[0]
                print(
                    f"| {rep} | {name} | {kind} | {wall:.2f} | {cpu:.2f} | {parent:.2f} | {cpu - parent:.2f} | "
                    f"{both:.2f} | {waited:.2f} | {parent_mb:.0f} | {adapter_mb:.0f} | {load:.1f} |",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
