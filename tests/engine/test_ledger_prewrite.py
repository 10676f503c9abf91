"""A first index's ledger rows written ahead of their checkpoints (`Ledger.prewrite`): nothing of them is in the file
until every pre-written row is checkpointed (then one COMMIT); an abandoned pre-write keeps exactly the checkpointed
rows; a run that is not the only origin, or whose rows spilled, does not pre-write."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_ledger_held import items

from memdock.engine import pending
from memdock.engine.ledger import Ledger, short

N = 50


def ids(n: int, start: int = 0) -> list[str]:
    return [f"chunk:{i:016x}" for i in range(start, start + n)]


def in_file(path: Path) -> int:
    """Committed rows another connection sees (what a kill -9 would leave)."""
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM committed").fetchone()[0])


def prewritten(path: Path) -> Ledger:
    ledger = Ledger(path)
    ledger.begin_run("a")
    ledger.add_pending(items(N))
    assert ledger.prewrite()
    assert ledger.db.in_transaction and ledger.count() == N  # written, in the open transaction
    return ledger


def test_the_last_checkpoint_commits_the_prewritten_rows_and_none_before(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = prewritten(path)
    assert ledger.commit(ids(30)) == 30
    assert in_file(path) == 0, "a checkpoint short of the pre-written rows commits nothing yet"
    assert ledger.commit(ids(20, start=30) + ["chunk:never-sent"]) == 20
    assert not ledger.db.in_transaction and in_file(path) == N
    assert ledger.commit_all_pending() == 0
    ledger.finish_run()
    want = {rid: short(h) for rid, h, _, _ in items(N)}
    assert ledger.hashes(list(want)) == want and ledger.links() == {(rid, "a") for rid in want}


def test_an_abandoned_prewrite_keeps_exactly_the_checkpointed_rows(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = prewritten(path)
    ledger.commit(ids(10, start=5))
    ledger.abandon_prewrite()
    assert not ledger.db.in_transaction and in_file(path) == 10
    assert sorted(r[0] for r in ledger.records()) == ids(10, start=5)
    assert ledger.is_pending(ids(1)[0]), "what was not checkpointed is pending again (a retry's checkpoints find it)"
    assert ledger.commit(ids(5)) == 5 and in_file(path) == 15


def test_the_adapters_answer_commits_what_the_checkpoints_did_not_cover(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = prewritten(path)
    ledger.commit(ids(10))
    assert ledger.commit_all_pending() == N - 10
    assert not ledger.db.in_transaction and in_file(path) == N


def test_rows_pending_after_a_prewrite_abandon_it(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = prewritten(path)
    ledger.commit(ids(10))
    ledger.add_pending(items(5, start=N))
    assert not ledger.db.in_transaction and in_file(path) == 10
    assert ledger.commit_all_pending() == N - 10 + 5 and in_file(path) == N + 5


def test_no_prewrite_when_another_origin_holds_records_or_rows_spilled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = Ledger(tmp_path / "shared.sqlite")
    shared.begin_run("b")
    shared.add_pending(items(3))
    shared.commit_all_pending()
    shared.finish_run()
    shared.begin_run("a")
    shared.add_pending(items(N))
    assert not shared.prewrite() and not shared.db.in_transaction
    monkeypatch.setattr(pending, "LIMIT", 10)
    spilled = Ledger(tmp_path / "spilled.sqlite")
    spilled.begin_run("a")
    spilled.add_pending(items(N))
    assert not spilled.prewrite() and not spilled.db.in_transaction
