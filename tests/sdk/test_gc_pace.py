"""memdock.sdk.gc_pace: the collector paced inside an index run or the parent's pass (frozen there), and put back
however it ends."""

from __future__ import annotations

import gc
import weakref

import pytest

from memdock.sdk import gc_pace


def test_paced_sets_the_thresholds_and_puts_them_back() -> None:
    before = gc.get_threshold()
    assert before != gc_pace.THRESHOLDS
    with gc_pace.paced():
        assert gc.get_threshold() == gc_pace.THRESHOLDS
    assert gc.get_threshold() == before


def test_a_failed_run_puts_them_back_too() -> None:
    before = gc.get_threshold()
    with pytest.raises(KeyError), gc_pace.paced():
        raise KeyError("a failed run")
    assert gc.get_threshold() == before


def test_the_collector_still_runs_inside() -> None:
    """Paced, not off: a young generation past its threshold is collected."""
    with gc_pace.paced():
        gc.collect()
        start = gc.get_stats()[0]["collections"]
        junk = [[] for _ in range(gc_pace.THRESHOLDS[0] * 2)]
        assert gc.get_stats()[0]["collections"] > start
    del junk


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_the_pass_freezes_what_exists_and_unfreezes_it_after() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with gc_pace.paced(gc_pace.PASS, freeze=True):
        assert gc.get_threshold() == gc_pace.PASS
        assert gc.get_freeze_count() >= frozen
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen


def test_a_failed_pass_unfreezes_too() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with pytest.raises(RuntimeError), gc_pace.paced(gc_pace.PASS, freeze=True):
        raise RuntimeError("the pass failed")
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, frozen)
    assert gc.isenabled()


def test_a_cycle_made_within_a_frozen_pass_is_still_collected() -> None:
    """The collector stays on: a cycle made during the pass is freed by a collection, not kept for good."""
    with gc_pace.paced(gc_pace.PASS, freeze=True):
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        assert gone() is None


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        before = gc.get_threshold()
        with gc_pace.paced(gc_pace.PASS, freeze=True):
            assert gc.get_threshold() == before
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_was_frozen_before_stays_frozen() -> None:
    """A pass inside a pass (ImportFeed.run starts its feed inside build_delta's block), or inside an application
    that froze its own objects: the inner block's end must not thaw them, nor freeze what the block made. A frozen
    object whose last reference goes (this test's thread or another's) leaves the count, so it may fall by a few:
    a thaw would empty it, a freeze would add the block's thousand nodes."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_pace.paced(gc_pace.PASS, freeze=True):
            assert frozen - _FREED <= gc.get_freeze_count() <= frozen
            made = [_Node() for _ in range(1000)]
        assert frozen - _FREED <= gc.get_freeze_count() <= frozen and len(made) == 1000
    finally:
        gc.unfreeze()


_FREED = 100  # frozen objects that may be freed while the test runs (one was, once, on a loaded box)
