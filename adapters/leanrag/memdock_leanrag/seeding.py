"""Making LeanRAG's hierarchy a function of its input and the model's answers, without editing the checkout.

LeanRAG's `_cluster_utils` builds UMAP reductions with no `random_state` (so UMAP draws from an unseeded generator
and runs its optimisation in parallel threads), and collects each layer's cluster summaries with `as_completed`, so
the order of the next layer's nodes depends on which summary came back first. For the time of a build, in that
module only: UMAP is given LeanRAG's own seed (UMAP then also runs single-threaded, as it does whenever it is
seeded), NumPy's and `random`'s global generators are seeded, and `as_completed` yields the futures in the order
they were submitted (the summaries still run in parallel; only the order they are read in is fixed).
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
def deterministic(cluster: Any, seed: int = SEED) -> Iterator[None]:
    """Within the block, CLUSTER (LeanRAG's `_cluster_utils` module) clusters reproducibly."""
    import numpy as np

    saved = {name: getattr(cluster, name) for name in ("umap", "as_completed")}
    seeded_umap = types.SimpleNamespace(UMAP=functools.partial(saved["umap"].UMAP, random_state=seed))
    cluster.umap, cluster.as_completed = seeded_umap, _in_submission_order
    np.random.seed(seed)
    random.seed(seed)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(cluster, name, value)
