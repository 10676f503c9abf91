"""Pending rows held in memory (`engine/pending.py`) commit exactly what the ledger's TEMP table commits: the same
rows, the last of an id given twice winning, the table taking over past the bound, an id given again after that
replacing its held row, nothing of an id that was never sent, and a run that shares records with another origin
keeping that origin's link (held rows are only for a run that is the only origin)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdock.engine import pending
from memdock.engine.ledger import Ledger, record_hash, short
from memdock.engine.pending import HeldRows

Item = tuple[str, bytes, str, str]


def items(n: int, salt: str = "", start: int = 0) -> list[Item]:
    out = []
    for i in range(start, start + n):
        rid = f"chunk:{i:016x}"
        out.append((rid, record_hash({"id": rid, "salt": salt}), f"thread:t:{i // 10:04x}", "chunk"))
    return out


def run(path: Path, batches: list[list[Item]], commits: list[list[str]], origin: str = "a") -> Ledger:
    ledger = Ledger(path)
    ledger.begin_run(origin)
    for batch in batches:
        ledger.add_pending(batch)
    for ids in commits:
        ledger.commit(ids)
    ledger.commit_all_pending()
    ledger.finish_run()
    return ledger


def rows(ledger: Ledger) -> list[tuple[str, bytes, str | None, str]]:
    return sorted(ledger.records())


@pytest.mark.parametrize("limit", [1_000_000, 25, 0])  # all held, the table past 25 rows, all in the table
def test_held_rows_commit_what_the_table_commits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    first, again = items(60), items(10, salt="new", start=20)  # ids 20-29 sent twice: the second hash wins
    batches = [first[:30], first[30:], again]
    commits = [[i for i, *_ in first[:40]], ["chunk:never-sent"]]  # the rest by commit_all_pending
    monkeypatch.setattr(pending, "LIMIT", limit)
    ledger = run(tmp_path / f"held-{limit}.sqlite", batches, commits)
    assert ledger._held.spilled == (limit < 60)
    got = rows(ledger)
    assert len(got) == 60 and "chunk:never-sent" not in {r[0] for r in got}
    want = {rid: short(h) for rid, h, _, _ in first} | {rid: short(h) for rid, h, _, _ in again}
    assert ledger.hashes(list(want)) == want
    assert ledger.links() == {(rid, "a") for rid in want}


def test_a_commit_moves_only_the_ids_it_names_and_the_rest_stay_pending(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.begin_run("a")
    ledger.add_pending(items(20))
    assert ledger.commit([f"chunk:{i:016x}" for i in range(5)]) == 5
    assert ledger.count() == 5
    assert ledger.is_pending(f"chunk:{7:016x}") and not ledger.is_pending(f"chunk:{3:016x}")
    ledger.begin_run("a")  # a new run (a killed one's pending rows matter to no later run)
    assert not ledger.is_pending(f"chunk:{7:016x}")
    assert ledger.commit_all_pending() == 0 and ledger.count() == 5


def test_a_run_sharing_records_with_another_origin_keeps_its_link(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    run(path, [items(10)], []).close()
    ledger = Ledger(path)
    ledger.begin_run("b")
    assert not ledger._alone
    ledger.add_pending(items(10, salt="b"))
    assert not ledger._held.rows  # in the table: the move keeps a's link
    assert ledger.commit([f"chunk:{i:016x}" for i in range(4)]) == 4  # a checkpoint finds them there
    assert ledger.hashes([f"chunk:{0:016x}"]) == {f"chunk:{0:016x}": short(items(1, salt="b")[0][1])}
    assert ledger.commit_all_pending() == 6
    ledger.finish_run()
    assert ledger.links() == {(f"chunk:{i:016x}", o) for i in range(10) for o in ("a", "b")}


def test_held_rows_add_take_and_spill() -> None:
    held = HeldRows(limit=2)
    a1, b1, c1 = (b"ka", b"h2", None, 2), (b"kb", b"h1", 1, 2), (b"kc", b"h3", 1, 2)
    assert held.add([("b", b1), ("a", a1), ("c", c1)]) == [c1]
    assert held.spilled
    a2, d1 = (b"ka", b"h4", 1, 2), (b"kd", b"h5", 1, 2)
    assert held.add([("a", a2), ("d", d1)]) == [d1]  # a: held, replaced
    assert held.take(["c", "b", "a", "a"]) == ([a2, b1], ["c", "a"])  # in key order, the ids not held
    assert "a" not in held and held.take_all() == []
    held.clear()
    assert not held.spilled


def test_rows_that_all_fit_are_held_as_one_by_one_the_last_of_an_id_winning() -> None:
    """`HeldRows.add` takes a batch that fits under the bound in one call: the same rows held, and a batch given as
    an iterator, or one that reaches exactly the bound, no different."""
    a1, b1, a2, c1 = (b"ka", b"h1", 1, 2), (b"kb", b"h2", 1, 2), (b"ka", b"h3", 1, 2), (b"kc", b"h4", 1, 2)
    held = HeldRows(limit=3)
    assert held.add(iter([("a", a1), ("b", b1), ("a", a2)])) == []  # 3 rows, 2 ids: under the bound
    assert held.add([("c", c1)]) == [] and not held.spilled  # exactly at the bound: held
    assert held.rows == {"a": a2, "b": b1, "c": c1}
    d1 = (b"kd", b"h5", 1, 2)
    assert held.add([("b", b1), ("d", d1)]) == [d1] and held.spilled  # past it: b replaced, d to the table


def test_a_commit_makes_keys_only_for_the_ids_it_does_not_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.begin_run("a")
    ledger.add_pending(items(20))
    made: list[str] = []
    real = ledger._keying.key

    def counted(rid: str, *, create: bool) -> bytes:
        made.append(rid)
        return real(rid, create=create)

    monkeypatch.setattr(ledger._keying, "key", counted)
    assert ledger.commit([f"chunk:{i:016x}" for i in range(10)] + ["chunk:never-sent"]) == 10
    assert made == []  # nothing spilled: an id not held was never sent
    assert ledger.is_pending(f"chunk:{12:016x}") and not ledger.is_pending(f"chunk:{3:016x}")
    assert ledger.commit_all_pending() == 10 and ledger.count() == 20
