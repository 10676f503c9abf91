"""The cyclic garbage collector paced for an adapter's index run (the tantivy and sqlite adapters').

An index run keeps tens of thousands of records alive at once (the entries held for the text once, the lookup
cache, the documents of a slice, the rows of a batch), and allocates a few dicts per record. With Python's default
thresholds (a young collection every 700 allocations) the collector traversed that live set over and over
(`gc_collect_main` in a py-spy `--native` profile of either adapter on bench/peers.py's notes: a tenth of the
sqlite adapter's samples). Records, rows and documents hold no reference cycles, so collecting less often frees the
same memory, later.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (100_000, 50, 1000)


@contextmanager
def paced() -> Iterator[None]:
    """Collect at THRESHOLDS inside the block; the thresholds before it are put back however it ends."""
    before = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
