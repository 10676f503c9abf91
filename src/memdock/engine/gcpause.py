"""The cyclic garbage collector held back while a pass makes records by the hundred thousand.

A pass allocates a few dicts, strings and bytes a record, all freed by reference counting as it goes (no record
holds a cycle). With CPython's default thresholds the collector still runs every 700 net allocations, and every
tenth and hundredth of those runs walks the older generations: the modules, schemas and caches the process
imported, over and over. Frozen, those objects are no longer walked; with a larger first threshold the young
collections come less often. Cycles are still found (the collector stays on), and memory stays flat: what a
collection finds is a few young cycles at most (an exception's traceback, say). bench/parent_floor.py and
bench/add_baseline.py measure what it saves the parent.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 50_000
"""Net allocations between two collections of the youngest generation during a pass (CPython's default: 700)."""


@contextmanager
def collecting_less() -> Iterator[None]:
    """Within the block: what exists now frozen out of the collector's walks, and YOUNG as its first threshold;
    both undone after (a collector that was off stays as it was)."""
    if not gc.isenabled():
        yield
        return
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(YOUNG, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
