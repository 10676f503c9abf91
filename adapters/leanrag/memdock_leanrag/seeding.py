"""Making LeanRAG's hierarchy a function of its input and the model's answers, without editing the checkout.

LeanRAG's `_cluster_utils` builds UMAP reductions with no `random_state` (so UMAP draws from an unseeded generator
and runs its optimisation in parallel threads); it and the entity dedup (`deal_triple`) collect LLM summaries with
`as_completed`, so the order of the entities and of each next layer's nodes depends on which answer came back
first; and both join source ids with `"|".join(set(...))`, whose order changes with each process's string hashing.
For the time of a build, in those modules only: UMAP is given LeanRAG's own seed (UMAP then also runs
single-threaded, as it does whenever it is seeded), NumPy's and `random`'s global generators are seeded, and
`as_completed` yields the futures in the order they were submitted (the summaries still run in parallel; only the
order they are read in is fixed). `sorted_sources` puts the joined source ids of what the build returns in order.
"""

from __future__ import annotations

import contextlib
import functools
import random
import types
from collections.abc import Iterable, Iterator
from typing import Any

SEED = 224  # LeanRAG's RANDOM_SEED (_cluster_utils.py), which it gives `random` but not UMAP


def _in_submission_order(futures: Iterable[Any], timeout: float | None = None) -> Iterator[Any]:
    for future in list(futures):
        future.result(timeout)  # wait, so a caller reading .result() after us never blocks out of order
        yield future


@contextlib.contextmanager
def deterministic(cluster: Any, *others: Any, seed: int = SEED) -> Iterator[None]:
    """Within the block, CLUSTER (LeanRAG's `_cluster_utils` module) clusters reproducibly, and it and OTHERS (e.g.
    the dedup module) read their thread pools' answers in submission order."""
    import numpy as np

    saved = [(m, name, getattr(m, name)) for m in (cluster, *others) for name in ("as_completed",)]
    saved.append((cluster, "umap", cluster.umap))
    for m in (cluster, *others):
        m.as_completed = _in_submission_order
    cluster.umap = types.SimpleNamespace(UMAP=functools.partial(cluster.umap.UMAP, random_state=seed))
    np.random.seed(seed)
    random.seed(seed)
    try:
        yield
    finally:
        for m, name, value in saved:
            setattr(m, name, value)


def sorted_sources(records: Iterable[Any]) -> None:
    """Each record's `source_id` ("a|b|c", joined from a set by LeanRAG) with its parts once each, in sorted order,
    in place; lists (a layer) and lists inside records (a community's members) are walked."""
    for r in records:
        if isinstance(r, list):
            sorted_sources(r)
        elif isinstance(r, dict):
            if isinstance(r.get("source_id"), str):
                r["source_id"] = "|".join(sorted(set(r["source_id"].split("|"))))
            sorted_sources(v for v in r.values() if isinstance(v, list))
