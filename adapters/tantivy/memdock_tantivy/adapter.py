"""The tantivy adapter's entry point: protocol operations mapped onto the memdock_tantivy package."""

from __future__ import annotations

import time

import tantivy

from memdock.errors import BackendError
from memdock.sdk import Adapter, Context, adapter_json, gc_pace
from memdock.sdk.checkpoints import Checkpoints
from memdock.sdk.kit.runtime import supports
from memdock.sdk.params import query_text
from memdock.sdk.stream import record_groups
from memdock_tantivy import delete, implied, ingest, queries, search, store
from memdock_tantivy.reader import Reader
from memdock_tantivy.settings import Settings

EMPTY = {"hits": [], "backend": "tantivy", "reason": "the store is empty: nothing has been indexed"}
KINDS = ("thread", "entry", "entity", "chunk", "edge")


class TantivyAdapter(Adapter):
    descriptor_path = adapter_json(__file__)
    input_stream = True
    implied_edges = True
    features = supports("graph_query", "temporal", "incremental", "delete", "retrieval", embeddings=False)
    score = {
        "range": [0.0, 1.0],
        "semantics": "s/(1+s) of tantivy's BM25 score (chunk header terms boosted 2x); "
        "no embeddings, so vector and hybrid modes answer with bm25, marked degraded",
    }

    def __init__(self) -> None:
        self._open: tuple[str, store.Indexes] | None = None
        self._reader: tuple[tuple, Reader] | None = None
        self._words: queries.Words | None = None

    def _index(self, ctx: Context, *, write: bool) -> store.Indexes | None:
        key = ctx.request["data_dir"]
        if self._open and self._open[0] == key:
            return self._open[1]
        index = store.open_index(ctx.data_dir, write=write)
        if index is not None:
            self._open, self._reader = (key, index), None
        return index

    def _read(self, ctx: Context) -> Reader | None:
        """A reader on the last commit, kept across worker requests and refreshed when a commit lands."""
        index = self._index(ctx, write=False)
        if index is None:
            return None
        gen = (ctx.request["data_dir"], store.generation(ctx.request["data_dir"]))
        if self._reader is None or self._reader[0] != gen:
            if self._reader is not None:
                index.reload()
            self._reader = (gen, Reader(index))
        return self._reader[1]

    @property
    def words(self) -> queries.Words:
        if self._words is None:
            self._words = queries.Words()
        return self._words

    def healthcheck(self, ctx: Context) -> dict:
        checks: dict = {"tantivy": getattr(tantivy, "__version__", "?"), "embeddings": "unsupported"}
        reader = self._read(ctx)
        if reader is None:
            return {"ok": True, "backend": self.name, "checks": checks, "message": "no index yet (nothing indexed)"}
        checks.update({kind: reader.count(kind) for kind in KINDS})
        checks["segments"] = reader.num_segments
        checks["layout"] = reader.indexes.version
        message = f"{store.index_path(ctx.data_dir)}: ok"
        if reader.indexes.version < store.SCHEMA_VERSION:
            message += f"; {store.older(reader.indexes.version)}"
        return {"ok": True, "backend": self.name, "checks": checks, "message": message}

    def prepare(self, ctx: Context) -> dict:
        self._index(ctx, write=True)
        return {
            "ok": True,
            "details": {"index": str(store.index_path(ctx.data_dir)), "schema_version": store.SCHEMA_VERSION},
        }

    def index(self, ctx: Context) -> dict:
        with gc_pace.paced():
            return self._index_run(ctx)

    def _index_run(self, ctx: Context) -> dict:
        started = time.monotonic()
        reader_in = ctx.input_stream() if ctx.streamed else ctx.input_bundle()
        present = [t for t in ingest.ORDER if ctx.streamed or t in reader_in.record_types()]
        total = None if ctx.streamed else sum(reader_in.count(t) for t in present)  # a stream's is known at its end
        index = self._index(ctx, write=True)
        assert index is not None, "a write opens (creating) the index"
        committed = Checkpoints(ctx, total)
        settings = Settings.from_config(ctx.config)
        writer = store.Writers(index, settings)
        derived = implied.Implied(committed)
        run: ingest.Ingest | None = None
        try:
            index.reload()
            run = ingest.Ingest(
                writer,
                Reader(index),
                on_commit=derived.on_commit,
                batch_size=settings.batch_size,
                text_once_=index.version >= store.TEXT_ONCE,
                compact_edges=store.edge_form(index.version),
                one_commit=ctx.streamed,
                spool_dir=ctx.work_dir,
                held_chars=int(settings.held_mb * 1_000_000),
            )
            derived.lookup, derived.stale = run.get, run.doomed
            stored = (lambda field, ids: run.reader.where(field, ids, kind="edge")) if run.replace else None
            # a stream's edges wait for its end: they release the entries held for the text once
            groups = record_groups(reader_in, present, hold=("edge",))
            for rtype, records in derived.groups(groups, stored):
                run.run(rtype, records)
            edges = "edge" in reader_in.record_types() or derived.any or run.replace
            derived.closing = True
            run.finish()
            derived.release()
            resolved = run.refresh_unresolved() if edges else 0
        except BaseException as exc:
            if run is not None:
                run.held.close()  # its spool too: an in-process adapter lives on
            writer.rollback(exc)  # a full disk: disk_full, once what tantivy wrote for the run is gone
            raise
        finally:
            writer.wait()
        ignored = {t: reader_in.count(t) for t in reader_in.record_types() if t not in ingest.ORDER}
        return {
            "indexed": run.counts,
            "checkpoints": committed.count,
            "seconds": time.monotonic() - started,
            "details": {"facts_resolved_late": resolved, "ignored": ignored},
        }

    def query(self, ctx: Context) -> dict:
        query_text(ctx.params)
        reader = self._read(ctx)
        return dict(EMPTY) if reader is None else search.run_query(reader, self.words, ctx.params)

    def _graph(self, ctx: Context, fn, **kw) -> dict:
        query_text(ctx.params)
        reader = self._read(ctx)
        return dict(EMPTY) if reader is None else fn(reader, self.words, ctx.params, **kw)

    def search_nodes(self, ctx: Context) -> dict:
        return self._graph(ctx, search.search_nodes)

    def search_episodes(self, ctx: Context) -> dict:
        return self._graph(ctx, search.search_nodes, episodes=True)

    def search_facts(self, ctx: Context) -> dict:
        return self._graph(ctx, search.search_facts)

    def get_node(self, ctx: Context) -> dict:
        reader = self._read(ctx)
        return {"item": None} if reader is None else search.get_node(reader, ctx.params)

    def get_edge(self, ctx: Context) -> dict:
        reader = self._read(ctx)
        return {"item": None} if reader is None else search.get_edge(reader, ctx.params)

    def delete(self, ctx: Context) -> dict:
        index = self._index(ctx, write=False)
        if index is None:
            ids = ctx.params.get("ids")
            return {"deleted": [], "not_found": list(ids) if isinstance(ids, list) else []}
        index.reload()
        try:
            return delete.delete(index, lambda: store.Writers(index, Settings.from_config(ctx.config)), ctx.params)
        except ValueError as exc:
            raise BackendError(f"tantivy: {exc}") from None
