"""`remember_many` against one `remember` per note, same notes, same backend, in one run.

    python bench/remember.py [--notes 200] [--backend sqlite] [--in-process]

Each side gets a fresh store. Printed: notes per second for each and the ratio. `--in-process` runs the
adapter through InProcessBackend (no subprocess) to show what the process boundary costs.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from memdock import Memory
from memdock.inprocess import InProcessBackend


def notes(n: int) -> list[dict[str, str]]:
    return [
        {"content": f"Note {i}: the deploy of service {i % 17} moved to window {i % 5}.", "thread": f"t{i % 10}"}
        for i in range(n)
    ]


def memory(backend: str, folder: Path, in_process: bool) -> Memory:
    return Memory(InProcessBackend.bundled(backend, folder)) if in_process else Memory(backend, data_dir=folder)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=200)
    ap.add_argument("--backend", default="sqlite")
    ap.add_argument("--in-process", action="store_true")
    args = ap.parse_args()
    batch = notes(args.notes)
    with tempfile.TemporaryDirectory() as tmp:
        with memory(args.backend, Path(tmp) / "one", args.in_process) as m:
            m.remember("warm up")
            started = time.perf_counter()
            for note in batch:
                m.remember(note["content"], thread=note["thread"])
            one = time.perf_counter() - started
        with memory(args.backend, Path(tmp) / "many", args.in_process) as m:
            m.remember("warm up")
            started = time.perf_counter()
            stored = m.remember_many(batch)
            many = time.perf_counter() - started
        assert len(stored) == len(batch) and not any(r.degraded for r in stored)
    mode = "in-process" if args.in_process else "subprocess worker"
    print(f"{args.backend} ({mode}), {args.notes} notes")
    print(f"  remember, one call per note   {args.notes / one:10.1f} notes/s")
    print(f"  remember_many, one call       {args.notes / many:10.1f} notes/s")
    print(f"  ratio                         {one / many:10.1f}x")


if __name__ == "__main__":
    main()
