"""Rebuilding LeanRAG's graph from every committed extraction: dedup, hierarchy, stores.

LeanRAG's hierarchy is global (UMAP + Gaussian mixtures over all entity vectors, an LLM summary per
cluster, layer after layer), so any change to the extractions means a new hierarchy. The cheapest
correct thing: extraction is per chunk and never redone for unchanged text; the rebuild re-runs
dedup and clustering (local CPU work), and the LLM is asked again only for prompts it has not
answered before (entity summaries, cluster summaries and cluster relations are cached by the exact
request). Nothing is rebuilt when the set of extractions is the one the graph was built from.

The new graph is written into `graph.next` and swapped in with two renames, so a query never sees a
half-built store; a run killed in between is repaired when the runtime opens.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memdock.errors import BackendError, MemdockError

from .models import pad
from .seeding import deterministic, sorted_sources

GRAPH, NEXT, OLD = "graph", "graph.next", "graph.old"
LAYER = re.compile(r"Layer\[(\d+)\] Clustering")


def repair(data_dir: Path) -> None:
    if not (data_dir / GRAPH).exists() and (data_dir / OLD).exists():
        (data_dir / OLD).rename(data_dir / GRAPH)
    shutil.rmtree(data_dir / OLD, ignore_errors=True)


def _write_jsonl(path: Path, rows: list[Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


class _LayerEvents(logging.Handler):
    """LeanRAG logs each clustering layer; each becomes a progress event."""

    def __init__(self, emit: Callable[[int], None]):
        super().__init__()
        self.emit_layer = emit

    def emit(self, record: logging.LogRecord) -> None:
        m = LAYER.search(record.getMessage())
        if m:
            self.emit_layer(int(m.group(1)))


def rebuild(rt: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    """A failed build forgets the answers it cached: one of them may be the answer it could not read."""
    llm = rt.llm(cached=True)
    try:
        return _rebuild(rt, llm, progress)
    except BaseException:
        if llm.fresh:
            llm.cache.drop(llm.fresh)
        raise


def _rebuild(rt: Any, llm: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    lr, emb, catalog, data_dir = rt.leanrag(), rt.embedder, rt.catalog, rt.data_dir
    started = time.monotonic()
    t = time.monotonic()
    extractions = catalog.extractions()
    digest = catalog.extraction_digest()
    work = data_dir / NEXT
    shutil.rmtree(work, ignore_errors=True)
    raw = work / "raw"
    raw.mkdir(parents=True)
    _write_jsonl(raw / "entity.jsonl", [e for _, ents, _ in extractions for e in ents])
    _write_jsonl(raw / "relation.jsonl", [r for _, _, rels in extractions for r in rels])
    rt.timings.add("store", time.monotonic() - t, 0)

    llm.purpose = "entity dedup (summaries of merged descriptions)"
    lr.dedup.use_llm = llm.complete
    with deterministic(lr.cluster, lr.dedup):
        lr.dedup.deal_duplicate_entity(working_dir=str(raw), output_path=str(work))
    entities, relations = lr.build_graph.get_common_rag_res(str(work))
    sorted_sources([*entities.values(), *relations.values()])
    progress(f"dedup: {len(entities)} entities, {len(relations)} relations")

    layers: list[Any] = []
    generated: dict = {}
    communities: dict = {}
    if entities:
        layers, generated, communities = _cluster(rt, llm, work, entities, relations, progress)

    t = time.monotonic()
    dbu = lr.dbu
    dbu.create_db_table_mysql(str(work))
    if entities:
        _store_graph(lr, emb, work, layers, generated, communities)
    shutil.rmtree(raw, ignore_errors=True)
    if (data_dir / GRAPH).exists():
        (data_dir / GRAPH).rename(data_dir / OLD)
    work.rename(data_dir / GRAPH)
    shutil.rmtree(data_dir / OLD, ignore_errors=True)
    stats = {
        "entities": len(entities),
        "relations": len(relations),
        "layers": len(layers),
        "communities": len(communities),
        "generated_relations": len(generated),
        "cached_llm_answers": llm.cached_answers,
    }
    with catalog.transaction():
        catalog.set_meta("built_from", digest)
        catalog.set_meta("build_stats", json.dumps(stats))
    rt.timings.add("store", time.monotonic() - t, 0)
    stats["seconds"] = round(time.monotonic() - started, 3)
    return stats


def _cluster(
    rt: Any, llm: Any, work: Path, entities: dict, relations: dict, progress: Callable[[str], None]
) -> tuple[list[Any], dict, dict]:
    """Embed the entities, then LeanRAG's hierarchical clustering: its layers, generated relations and communities."""
    lr, emb = rt.leanrag(), rt.embedder
    names = list(entities)
    texts = [lr.build_graph.truncate_text(entities[n]["description"]) for n in names]
    vecs = pad(emb.embed(texts))
    for n, v in zip(names, vecs):
        entities[n]["vector"] = v
    llm.purpose = "clustering (aggregate summaries, cluster relations)"
    config = {
        "use_llm_func": llm.complete,
        "embeddings_func": emb.for_clustering,
        "max_workers": rt.settings.max_workers,
        "working_dir": str(work),
    }
    handler = _LayerEvents(lambda i: progress(f"clustering layer {i}"))
    logging.getLogger().addHandler(handler)
    before = sum(rt.timings.seconds[k] for k in ("llm", "embedding"))
    t = time.monotonic()
    try:
        with deterministic(lr.cluster, lr.dedup):
            layers, generated, communities = lr.cluster.Hierarchical_Clustering().perform_clustering(
                global_config=config,
                entities=entities,
                relations=relations,
                WORKING_DIR=str(work),
                max_workers=rt.settings.max_workers,
            )
        sorted_sources([*layers, *communities.values(), *generated.values()])
    except MemdockError:
        raise
    except (KeyError, TypeError, AttributeError) as exc:
        raise BackendError(
            f"clustering: the model's answer to LeanRAG's aggregation prompt could not be read "
            f"({type(exc).__name__}: {exc}); it expects a JSON object with entity_name, "
            "entity_description and findings",
            retryable=True,
        ) from None
    finally:
        logging.getLogger().removeHandler(handler)
        inside = sum(rt.timings.seconds[k] for k in ("llm", "embedding")) - before
        rt.timings.add("clustering", max(0.0, time.monotonic() - t - inside))
    return layers, generated, communities


def _store_graph(lr: Any, emb: Any, work: Path, layers: list[Any], generated: dict, communities: dict) -> None:
    lr.tools_utils.write_jsonl_force(list(generated.values()), str(work / "generate_relations.json"))
    lr.tools_utils.write_jsonl_force(list(communities.values()), str(work / "community.json"))
    native = []
    for layer in layers:
        items = layer if isinstance(layer, list) else [layer]
        vectors = emb.embed([str(i.get("description", "")) for i in items])
        rows = [{**{k: v for k, v in i.items() if k != "vector"}, "vector": vec} for i, vec in zip(items, vectors)]
        native.append(rows if isinstance(layer, list) else rows[0])
    lr.dbu.build_vector_search(native, str(work))
    lr.dbu.insert_data_to_mysql(str(work))
    lr.dbu.insert_origin_relations(str(work))
