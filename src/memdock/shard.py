"""Splitting a bundle by thread into N bundles of balanced size, for indexing in parallel on any engine.

Each shard is a valid, self-contained bundle: a thread's records (the thread, its entries, chunks and edges,
with their embeddings) all go to one shard, and an entity goes to every shard whose edges touch it. Threads are
placed largest first on the lightest shard (ties broken by thread id), so the same input always gives the same
shards. Every shard keeps the input's source identity: indexing the shards one by one (in any order, on any
machine) leaves a store exactly as indexing the whole bundle does, re-index pruning included, since a thread
never spans two shards.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .bundle import BundleReader, BundleWriter, source
from .errors import InvalidInputError
from .ids import digest
from .sdk.implied import KEY

ORDER = ("thread", "entry", "entity", "edge", "chunk")
MAX_SHARDS = 4096


@dataclass
class Sharded:
    """The shards written, each with its record counts and size in bytes of JSON."""

    paths: list[Path] = field(default_factory=list)
    counts: list[dict[str, int]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)


def shard_name(i: int) -> str:
    return f"shard-{i:04d}"


def shard_bundle(
    bundle: str | os.PathLike[str], n: int, out: str | os.PathLike[str], *, force: bool = False
) -> Sharded:
    """Split BUNDLE (corpus or chunks) into N bundles OUT/shard-0000... (see the module docstring)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_SHARDS:
        raise InvalidInputError(f"the number of shards must be an integer from 1 to {MAX_SHARDS}, got {n!r}")
    src, dest = Path(bundle).resolve(), Path(out).resolve()
    if dest == src or src in dest.parents:
        raise InvalidInputError(f"the shards' folder {out} is inside the bundle {bundle}; choose a folder outside it")
    reader = BundleReader(bundle, sealed=True, trust_seal=True)  # a journal segment's parts are compressed
    if reader.kind not in ("corpus", "chunks"):
        raise InvalidInputError(
            f"{bundle}: a {reader.kind} bundle has no threads to shard by; give a corpus or chunks bundle"
        )
    if dest.exists() and any(dest.iterdir()) and not force:
        raise InvalidInputError(f"{out} is not empty; add --force to replace the shards there")
    sizes, entity_threads = _measure(reader)
    place = _balance(sizes, n)
    entity_shards = {e: sorted({place[t] for t in ts}) for e, ts in entity_threads.items()}
    dest.mkdir(parents=True, exist_ok=True)
    meta = dict(reader.manifest.get("metadata") or {})
    meta[source.KEY] = source.of_manifest(reader.manifest, reader.path)
    done = Sharded()
    writers = [
        BundleWriter(
            dest / shard_name(i),
            reader.kind,
            chunker=reader.manifest.get("chunker"),
            metadata={**meta, "shard": i, "shards": n},
            validate=False,  # every record was validated as the reader read it
            overwrite=force,
            inputs=[reader.path],
        )
        for i in range(n)
    ]
    try:
        counts: list[dict[str, int]] = [{} for _ in range(n)]
        chunk_shard: dict[str, int] = {}
        for rtype, rec in _records(reader):
            for i in _targets(rtype, rec, place, entity_shards, n):
                writers[i].write(rtype, rec)
                counts[i][rtype] = counts[i].get(rtype, 0) + 1
                if rtype == "chunk":
                    chunk_shard[rec["id"]] = i
        matrix = reader.embeddings()
        if matrix is not None:
            with matrix:
                for row in reader.records("embedding"):
                    target = chunk_shard.get(row["chunk_id"])
                    if target is not None:
                        writers[target].write_embedding(row["chunk_id"], matrix.row_bytes(row["row"]), row["model"])
        for w in writers:
            w.close()
    except BaseException:
        for w in writers:
            if not w.closed:
                w.abort()
        raise
    done.paths = [dest / shard_name(i) for i in range(n)]
    done.counts = counts
    done.sizes = [sum(sizes[t] for t, i in place.items() if i == s) for s in range(n)]
    return done


def _records(reader: BundleReader) -> Iterator[tuple[str, dict[str, Any]]]:
    for rtype in ORDER:
        if rtype in reader.record_types():
            for rec in reader.records(rtype):
                yield rtype, rec


def _thread_of(rtype: str, rec: dict[str, Any]) -> str | None:
    return rec["id"] if rtype == "thread" else rec.get("thread_id")


def _measure(reader: BundleReader) -> tuple[dict[str, int], dict[str, set[str]]]:
    """Bytes of JSON per thread (records without a thread count under their own id), and the threads whose
    edges (records, or implied by an entry) touch each entity."""
    sizes: dict[str, int] = {}
    entities: set[str] = set()
    touching: dict[str, set[str]] = {}
    for rtype, rec in _records(reader):
        if rtype == "entity":
            entities.add(rec["id"])
            continue
        key = _thread_of(rtype, rec) or f"~{rec['id']}"
        sizes[key] = sizes.get(key, 0) + len(orjson.dumps(rec))
        if rtype == "edge":
            for end in (rec.get("source_id"), rec.get("target_id")):
                if end:
                    touching.setdefault(end, set()).add(key)
        elif rtype == "entry" and KEY in rec:  # the entities its implied mentions edges touch
            for end in rec[KEY].get("mentions", ()):
                touching.setdefault(end, set()).add(key)
    return sizes, {e: touching.get(e, set()) for e in entities}


def _balance(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Largest thread first onto the lightest shard (lowest index on a tie): deterministic, within one thread's
    size of the best split."""
    heap = [(0, i) for i in range(n)]
    place: dict[str, int] = {}
    for thread in sorted(sizes, key=lambda t: (-sizes[t], t)):
        load, i = heapq.heappop(heap)
        place[thread] = i
        heapq.heappush(heap, (load + sizes[thread], i))
    return place


def _targets(
    rtype: str, rec: dict[str, Any], place: dict[str, int], entity_shards: dict[str, list[int]], n: int
) -> list[int]:
    if rtype == "entity":
        # an entity no edge touches goes where its id hashes, so it is written exactly once
        return entity_shards.get(rec["id"]) or [int(digest(rec["id"], length=8), 16) % n]
    return [place[_thread_of(rtype, rec) or f"~{rec['id']}"]]
