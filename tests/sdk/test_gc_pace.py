"""memdock.sdk.gc_pace: the collector's thresholds inside an index run, and put back however the run ends."""

from __future__ import annotations

import gc

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
