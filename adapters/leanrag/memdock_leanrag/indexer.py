"""`index`: stage the bundle, extract each new or changed chunk (checkpointed once committed), then rebuild the graph.

Chunk ids are checkpointed as soon as their extraction is in the catalog; thread, entry and other ids
only once the graph has been rebuilt. A run killed before the rebuild so leaves those ids out of the
core's ledger: the next run sends them again, and the adapter, seeing extractions the graph was not
built from, rebuilds (without asking the model again for the chunks already extracted).
"""

from __future__ import annotations

import time
from typing import Any

from memdock.sdk import Context
from memdock.sdk.kit.staging import Checkpoints

from .build import rebuild
from .extract import extract_chunk
from .runtime import Runtime
from .staging import stage


def index(rt: Runtime, ctx: Context) -> dict[str, Any]:
    rt.settings.require_models()
    rt.timings.reset()
    checkpoint = Checkpoints(ctx)
    staged = stage(ctx.input_bundle(), rt.catalog, rt.settings)

    pending = rt.catalog.pending_chunks()
    todo = {c["id"] for c in pending}
    in_bundle = set(staged.chunk_ids)
    checkpoint([cid for cid in staged.chunk_ids if cid not in todo])
    extracted = 0
    per_chunk: list[dict[str, Any]] = []
    if pending:
        lr, llm = rt.leanrag(), rt.llm()
        for done, chunk in enumerate(pending, 1):
            t, calls = time.monotonic(), rt.timings.calls["llm"]
            n_ent, n_rel = extract_chunk(lr, llm, rt.catalog, chunk, ctx.work_dir)
            extracted += 1
            if chunk["id"] in in_bundle:
                checkpoint([chunk["id"]])
            took, used = time.monotonic() - t, rt.timings.calls["llm"] - calls
            per_chunk.append({"seconds": took, "llm_calls": used})
            ctx.progress(
                done,
                len(pending),
                f"{chunk['id']}: {n_ent} entities, {n_rel} relations, {used} LLM calls in {took:.2f}s",
            )
    build: dict[str, Any] | None = None
    if rt.catalog.extraction_digest() != rt.catalog.get_meta("built_from"):
        build = rebuild(rt, lambda msg: ctx.progress(len(pending), len(pending) or None, msg))
    checkpoint(staged.after_build)
    wall = checkpoint.seconds()
    details = {
        "chunks_extracted": extracted,
        "chunks_unchanged": len(staged.chunk_ids) - len(in_bundle & todo),
        "graph": build or "unchanged: built from these extractions already",
        "ignored": staged.ignored,
        "llm_calls_per_chunk": round(sum(c["llm_calls"] for c in per_chunk) / len(per_chunk), 2) if per_chunk else 0,
        "seconds_per_chunk": round(sum(c["seconds"] for c in per_chunk) / len(per_chunk), 3) if per_chunk else 0,
        "time": rt.timings.summary(wall),
    }
    return checkpoint.result(staged.counts, details, wall)
