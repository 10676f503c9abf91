"""How fast `memdock mcp` answers `initialize` from a cold start, beside a bare interpreter, in one run.

    python bench/mcp_start.py [--runs 15]

Each run starts `python -m memdock mcp --backend null` on stdio, writes an `initialize` request and times
until its answer line arrives (what an MCP client waits before its first tool call). Printed beside:
`python -c pass` (the floor) and `python -c "import mcp.server.mcpserver"` (the MCP SDK's own import). Medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def initialize_time(store: str) -> float:
    env = {**os.environ, "MEMDOCK_HOME": store}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdock", "mcp", "--backend", "null", "--data-dir", f"{store}/s"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    took = time.perf_counter() - started
    assert answer["result"]["serverInfo"]["name"] == "memdock", answer
    proc.stdin.close()
    proc.wait(timeout=60)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as store:
        initialize_time(store)  # warm the page cache
        rows = {
            "python -c pass": [timed([sys.executable, "-c", "pass"]) for _ in range(args.runs)],
            "import mcp.server.mcpserver": [
                timed([sys.executable, "-c", "import mcp.server.mcpserver"]) for _ in range(args.runs)
            ],
            "memdock mcp: initialize answered": [initialize_time(store) for _ in range(args.runs)],
        }
    floor = statistics.median(rows["python -c pass"])
    print(f"{'':36}{'median ms':>10}{'x python':>10}   ({args.runs} runs each)")
    for name, times in rows.items():
        median = statistics.median(times)
        print(f"{name:36}{median * 1000:>10.1f}{median / floor:>10.1f}")


if __name__ == "__main__":
    main()
