"""The sqlite adapter's index run is paced (memdock.sdk.gc_pace): the collector traversed a first load's live rows
over and over at Python's default thresholds (a tenth of the adapter's py-spy samples on bench/peers.py's notes)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite.adapter import SqliteAdapter

from memdock.sdk import gc_pace


def test_index_runs_paced_and_puts_the_thresholds_back(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, ...]] = []

    def run(self: SqliteAdapter, ctx: Any) -> dict:
        seen.append(gc.get_threshold())
        return {"indexed": {}}

    monkeypatch.setattr(SqliteAdapter, "_index_run", run)
    before = gc.get_threshold()
    assert SqliteAdapter().index(None) == {"indexed": {}}  # type: ignore[arg-type]
    assert seen == [gc_pace.THRESHOLDS] and gc.get_threshold() == before


def test_a_failed_index_run_puts_them_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def run(self: SqliteAdapter, ctx: Any) -> dict:
        raise RuntimeError("the run failed")

    monkeypatch.setattr(SqliteAdapter, "_index_run", run)
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        SqliteAdapter().index(None)  # type: ignore[arg-type]
    assert gc.get_threshold() == before
