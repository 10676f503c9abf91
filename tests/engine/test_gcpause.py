"""engine/gcpause.py: the collector held back during a pass, and put back as it was."""

from __future__ import annotations

import gc
import weakref

import pytest

from memdock.engine.gcpause import YOUNG, collecting_less


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_thresholds_and_frozen_objects_come_back() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with collecting_less():
        assert gc.get_threshold()[0] == max(YOUNG, before[0])
        assert gc.get_threshold()[1:] == before[1:]
        assert gc.get_freeze_count() >= frozen
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen


def test_put_back_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), collecting_less():
        raise RuntimeError("the pass failed")
    assert gc.get_threshold() == before
    assert gc.isenabled()


def test_a_cycle_made_within_is_still_collected() -> None:
    """The collector stays on: a cycle made during the pass is freed by a collection, not kept for good."""
    with collecting_less():
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
        with collecting_less():
            assert gc.get_threshold() == before
        assert not gc.isenabled()
    finally:
        gc.enable()
