"""The cyclic garbage collector paced while a run makes records by the hundred thousand: the parent's pass and the
tantivy and sqlite adapters' index runs.

Records, rows and documents hold no reference cycles; reference counting frees them as a run goes. With Python's
default thresholds (a young collection every 700 net allocations, the older generations every tenth and hundredth
of those) the collector still walked what the run keeps alive at once (the entries held for the text once, the
lookup cache, the rows of a batch) and what the process imported, over and over: `gc_collect_main` was a tenth of
the sqlite adapter's samples in a py-spy `--native` profile on bench/peers.py's notes. Collecting less often frees
the same memory, later; frozen, what existed before the run is not walked at all. The collector stays on, so a
cycle (an exception's traceback, say) is still found. bench/add_baseline.py and bench/parent_floor.py measure it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (100_000, 50, 1000)
"""An adapter's index run."""
PASS = (50_000, 10, 10)
"""The parent's pass, with what exists frozen (`freeze=True`)."""


@contextmanager
def paced(thresholds: tuple[int, int, int] = THRESHOLDS, *, freeze: bool = False) -> Iterator[None]:
    """Collect at THRESHOLDS inside the block, with FREEZE what exists now frozen out of the collector's walks; both
    undone however the block ends. A collector that is off stays as it was. What was frozen before (an outer block, an
    application that froze after a fork) stays frozen: `gc.unfreeze` cannot thaw only ours, so then this block
    freezes nothing.

    A frozen block that ends freezes what it made and still holds too, so its end thaws that into the oldest
    generation instead of the first young collection at the restored thresholds walking it all (after
    `ImportFeed.start` read bench/peers.py's 20k notes, one walked the 20k entries the pass was about to send:
    20-40 ms)."""
    if not gc.isenabled():
        yield
        return
    before = gc.get_threshold()
    freeze = freeze and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(*thresholds)
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        gc.set_threshold(*before)
        if freeze:
            gc.unfreeze()
