"""The adapter seeds what LeanRAG's clustering leaves unseeded, in its `_cluster_utils` module only and only for the
time of a build (a stand-in module here; tests/leanrag/test_leanrag_deterministic.py builds with the checkout)."""

from __future__ import annotations

import random
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

np = __import__("pytest").importorskip("numpy")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "leanrag"))

from memdock_leanrag.seeding import SEED, deterministic, sorted_sources  # noqa: E402


class FakeUMAP:
    made: list[dict] = []

    def __init__(self, **kwargs):
        FakeUMAP.made.append(kwargs)


def cluster_module():
    return types.SimpleNamespace(umap=types.SimpleNamespace(UMAP=FakeUMAP), as_completed=as_completed)


def test_umap_gets_a_random_state_and_everything_is_put_back():
    mod = cluster_module()
    FakeUMAP.made.clear()
    with deterministic(mod):
        mod.umap.UMAP(n_neighbors=15, n_components=2, metric="cosine")
    mod.umap.UMAP(n_neighbors=15)
    assert FakeUMAP.made == [
        {"n_neighbors": 15, "n_components": 2, "metric": "cosine", "random_state": SEED},
        {"n_neighbors": 15},
    ]
    assert mod.as_completed is as_completed and mod.umap.UMAP is FakeUMAP


def test_global_generators_are_seeded():
    draws = []
    for _ in range(2):
        with deterministic(cluster_module()):
            draws.append((np.random.rand(3).tolist(), random.random()))
    assert draws[0] == draws[1]


def test_summaries_are_read_in_submission_order_whatever_finishes_first():
    mod = cluster_module()

    done = [threading.Event() for _ in range(3)]

    def job(i: int) -> int:  # each waits for the one submitted after it: they finish last first
        if i < 2:
            done[i + 1].wait(60)
        done[i].set()
        return i

    with deterministic(mod), ThreadPoolExecutor(max_workers=3) as pool:
        futures = [pool.submit(job, i) for i in range(3)]
        assert [f.result() for f in mod.as_completed(futures)] == [0, 1, 2]


def test_the_other_modules_read_in_submission_order_too_and_source_ids_are_sorted():
    mod, dedup = cluster_module(), types.SimpleNamespace(as_completed=as_completed)
    with deterministic(mod, dedup):
        assert dedup.as_completed is mod.as_completed is not as_completed
    assert dedup.as_completed is as_completed
    records = [{"source_id": "c|a|b|a", "level": [{"source_id": "q|p"}]}, [{"source_id": "z|y"}, {"name": "none"}]]
    sorted_sources(records)
    assert records == [
        {"source_id": "a|b|c", "level": [{"source_id": "p|q"}]},
        [{"source_id": "y|z"}, {"name": "none"}],
    ]
