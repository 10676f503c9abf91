"""The null adapter: every operation exists, answers honestly, and nothing is kept."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from memdock.sdk import Adapter, Context, serve


class NullAdapter(Adapter):
    name = "null"
    version = "1.0.0"
    descriptor_path = Path(__file__).with_name("adapter.json")
    features = {"retrieval": False}
    score = {"range": [0.0, 1.0], "semantics": "no hits are ever returned"}

    def _pause(self, ctx: Context) -> None:
        if ctx.config.get("latency_ms"):
            time.sleep(float(ctx.config["latency_ms"]) / 1000)

    def healthcheck(self, ctx: Context) -> dict:
        self._pause(ctx)
        return {"ok": True, "backend": self.name, "checks": {"storage": "none"}, "message": "stores nothing"}

    def prepare(self, ctx: Context) -> dict:
        return {"ok": True, "details": {}}

    def index(self, ctx: Context) -> dict:
        reader = ctx.input_bundle()
        counts = {}
        for rtype in reader.record_types():
            counts[rtype] = sum(1 for _ in reader.records(rtype))
        ctx.progress(sum(counts.values()), sum(counts.values()))
        return {"indexed": {k: 0 for k in counts}, "skipped": sum(counts.values()), "details": {"received": counts}}

    def _search(self, ctx: Context) -> dict:
        self._pause(ctx)
        return {"hits": [], "backend": self.name}

    query = search_nodes = search_facts = search_episodes = _search

    def get_node(self, ctx: Context) -> dict:
        return {"item": None}

    get_edge = get_node

    def delete(self, ctx: Context) -> dict:
        return {"deleted": [], "not_found": list(ctx.params.get("ids", []))}


if __name__ == "__main__":
    sys.exit(serve(NullAdapter()))
