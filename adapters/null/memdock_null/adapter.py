"""The null adapter: every operation exists, answers honestly, and nothing is kept."""

from __future__ import annotations

import time

from memdock.contract import DeleteResult, GetResult, HealthStatus, IndexResult, PrepareResult, SearchResult
from memdock.sdk import Adapter, Context, adapter_json


class NullAdapter(Adapter):
    descriptor_path = adapter_json(__file__)
    features = {"retrieval": False}
    score = {"range": [0.0, 1.0], "semantics": "no hits are ever returned"}

    def _pause(self, ctx: Context) -> None:
        if ctx.config.get("latency_ms"):
            time.sleep(float(ctx.config["latency_ms"]) / 1000)

    def healthcheck(self, ctx: Context) -> HealthStatus:
        self._pause(ctx)
        return HealthStatus(ok=True, backend=self.name, checks={"storage": "none"}, message="stores nothing")

    def prepare(self, ctx: Context) -> PrepareResult:
        return PrepareResult(ok=True)

    def index(self, ctx: Context) -> IndexResult:
        reader = ctx.input_bundle()
        counts = {rtype: sum(1 for _ in reader.records(rtype)) for rtype in reader.record_types()}
        ctx.progress(sum(counts.values()), sum(counts.values()))
        return IndexResult(indexed=dict.fromkeys(counts, 0), skipped=sum(counts.values()), details={"received": counts})

    def _search(self, ctx: Context) -> SearchResult:
        self._pause(ctx)
        return SearchResult(hits=[], backend=self.name)

    query = search_nodes = search_facts = search_episodes = _search

    def get_node(self, ctx: Context) -> GetResult:
        return GetResult(item=None)

    get_edge = get_node

    def delete(self, ctx: Context) -> DeleteResult:
        return DeleteResult(deleted=[], not_found=list(ctx.params.get("ids", [])))
