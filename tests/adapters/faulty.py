"""A small working adapter (a JSON file of chunks, term-overlap ranking) with one fault switched on by --fault.

Each faulty-* folder beside this file is one deliberately broken adapter; the conformance
kit must report every one of them. hostile-fifo-in-store works, but plants traps for whoever reads its data
dir (a FIFO, a link to /dev/zero, a sparse 64 GiB file): the kit must still finish.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import memdock.sdk.adapter as sdk_adapter
from memdock.sdk import Adapter, Context, serve
from memdock.sdk.stream import record_groups

FAULT = sys.argv[sys.argv.index("--fault") + 1] if "--fault" in sys.argv else "none"
TERMS = re.compile(r"\w+")
ORDER = ("thread", "entry", "edge", "chunk")


def terms(s: str) -> set[str]:
    return set(TERMS.findall(s.lower()))


def start_daemon() -> None:
    """Fork, setsid, fork, close fds: a process meant to outlive this call."""
    if os.fork():
        os.wait()
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    time.sleep(3600)
    os._exit(0)


def plant_traps(data_dir: Path) -> None:
    if not (data_dir / "trap.fifo").exists():
        os.mkfifo(data_dir / "trap.fifo")
        os.symlink("/dev/zero", data_dir / "zero")
        with open(data_dir / "sparse.bin", "wb") as f:
            f.truncate(64 << 30)


def write_through_link(path: str, data: bytes, **_kw) -> None:
    """Write the result beside its path and make the path a symlink to it."""
    real = path + ".real"
    with open(real, "wb") as f:
        f.write(data)
    os.symlink(real, path)


class Faulty(Adapter):
    name = "faulty"
    version = "0.1.0"
    features = {"incremental": True, "delete": True, "metadata_filter": True}
    input_stream = True

    def __init__(self, name: str):
        self.name = name
        self.descriptor_path = Path(__file__).parent / name / "adapter.json"

    def _load(self, ctx: Context) -> dict:
        p = ctx.data_dir / "store.json"
        return json.loads(p.read_text()) if p.exists() else {"chunks": {}}

    def _save(self, ctx: Context, store: dict) -> None:
        tmp = ctx.data_dir / "store.json.tmp"
        tmp.write_text(json.dumps(store))
        tmp.replace(ctx.data_dir / "store.json")

    def healthcheck(self, ctx: Context) -> dict:
        msg = "ok"
        if FAULT == "leak_secret":
            msg = f"using token {os.environ.get('FAULTY_API_KEY', '')}"
        if FAULT == "daemon":
            start_daemon()
        if FAULT == "result_symlink":
            sdk_adapter.write_atomic = write_through_link
        return {"ok": True, "backend": self.name, "message": msg}

    def index(self, ctx: Context) -> dict:
        """The same faults on both inputs (a bundle's files, or the stream on stdin: `sdk/stream.py`)."""
        store = self._load(ctx)
        if FAULT == "stdout":
            ctx._out.stream.write(b"DEBUG indexing now\n")
        if FAULT == "write_outside":
            Path(os.environ["HOME"], "faulty-cache.txt").write_text("cached")
        if FAULT == "hang":
            time.sleep(3600)
        if FAULT == "traps_in_store":
            plant_traps(ctx.data_dir)
        n = 0
        batch: list[str] = []
        for rtype, records in self._groups(ctx):
            for rec in records:
                if rtype == "entry":
                    store.setdefault("entries", {})[rec["id"]] = rec["thread_id"]
                if rtype == "chunk":
                    store["chunks"][rec["id"]] = {
                        "entry_id": rec["entry_id"],
                        "thread_id": rec["thread_id"],
                        "text": rec["text"],
                        "metadata": rec.get("metadata") or {},
                    }
                batch.append(rec["id"])
                n += 1
                if len(batch) >= (10 if FAULT == "crash_mid_index" else 100):
                    self._save(ctx, store)
                    ctx.checkpoint(batch)
                    batch = []
                    if FAULT == "crash_mid_index":
                        os._exit(1)
        self._save(ctx, store)
        if batch:
            ctx.checkpoint(batch)
        return {"indexed": {"records": n}}

    def _groups(self, ctx: Context) -> Iterable[tuple[str, Iterable[dict]]]:
        """The input's records by type. A stream is read whole before anything is saved, so one cut without its
        end line is refused with nothing of it kept; `ignores_end` reads stdin to EOF and keeps what came."""
        if not ctx.streamed:
            return record_groups(ctx.input_bundle(), ORDER)
        if FAULT != "ignores_end":
            return list(record_groups(ctx.input_stream(), ORDER))
        chunks = []
        for line in sys.stdin.buffer:
            kind, _, body = line.partition(b" ")
            if kind == b"chunk":
                chunks.append(json.loads(body))
        return [("chunk", chunks)]

    def query(self, ctx: Context) -> dict:
        if FAULT == "crash_once_on_query" and not (ctx.data_dir / "crashed").exists():
            (ctx.data_dir / "crashed").touch()  # so a retry of the same question is answered
            os._exit(1)
        q = terms(ctx.params.get("text", ""))
        store = self._load(ctx)
        scored = []
        where = {} if FAULT == "ignores_where" else ctx.params.get("where") or {}
        for cid, c in store["chunks"].items():
            meta = c.get("metadata") or {}
            if any(k not in meta or meta[k] not in values for k, values in where.items()):
                continue
            overlap = len(q & terms(c["text"]))
            if overlap:
                scored.append((overlap / len(q), cid, c))
        scored.sort(key=lambda x: (-x[0], x[1]))
        hits = []
        for score, cid, c in scored[: int(ctx.params.get("limit", 10))]:
            hit = {
                "id": cid,
                "kind": "chunk",
                "score": score,
                "text": c["text"],
                "backend": self.name,
                "provenance": {"thread_id": c["thread_id"], "entry_id": c["entry_id"], "chunk_id": cid},
            }
            if FAULT == "bad_schema":
                del hit["score"]
            hits.append(hit)
        return {"hits": hits, "backend": self.name}

    def delete(self, ctx: Context) -> dict:
        store = self._load(ctx)
        ids = list(ctx.params.get("ids", []))
        deleted = []
        for i in ids:
            for cid, c in list(store["chunks"].items()):
                if self._goes_with(store, i, cid, c):
                    deleted += [i, cid]
                    if FAULT != "false_capability":
                        del store["chunks"][cid]
        self._save(ctx, store)
        return {"deleted": sorted(set(deleted)), "not_found": [i for i in ids if i not in deleted]}

    def _goes_with(self, store: dict, record_id: str, cid: str, chunk: dict) -> bool:
        """Chunk CID goes when RECORD_ID is it, its entry, the thread it was sent with, or its entry's thread
        (`thread_by_entries` forgets the thread it was sent with; `thread_by_chunks` its entry's thread)."""
        by_chunk = chunk["thread_id"] == record_id and FAULT != "thread_by_entries"
        by_entry = store.get("entries", {}).get(chunk["entry_id"]) == record_id and FAULT != "thread_by_chunks"
        return record_id in (cid, chunk["entry_id"]) or by_chunk or by_entry


if __name__ == "__main__":
    serve(Faulty(sys.argv[sys.argv.index("--name") + 1]))
