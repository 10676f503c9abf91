"""A run's pending ledger rows held in memory, up to a bound (`Ledger.add_pending`, `Ledger.commit`).

A record the run sent waits for the adapter's checkpoint as a pending row: (key, hash, thread, type). Kept in the
ledger's TEMP table, each costs three statements bound from Python (its insert, its key's insert into the
checkpointed table, its move) and two deletes; kept here, one (its write into `committed`). On bench/peers.py's
100k chunks, `add_pending` and `commit` took 0.39 and 0.32 CPU s through the table. Up to LIMIT rows are held here
(about 250 bytes each, its id's string with it); once a run has had more at once, every new row goes to the table as
before, so a large run does not grow the core's memory without bound. They are held by id: a checkpoint names ids,
and a held row's key is not made again (on the 20k notes a commit made 40k keys it already had). Like the TEMP
table, what is held matters only to its run: a killed run's pending rows are lost either way, and the next run sends
those records again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

LIMIT = 100_000
Row = tuple[bytes, bytes, "int | None", int]
"""(key, hash, thread, type) of a pending record, as the ledger's `pending` table holds it."""


def pop_rows(rows: dict[str, Row], ids: Sequence[str]) -> tuple[list[Row], list[str]]:
    """The rows of IDS popped from ROWS (in the order of IDS), and the ids ROWS did not hold."""
    found, rest = [], []
    for rid in ids:
        row = rows.pop(rid, None)
        if row is None:
            rest.append(rid)
        else:
            found.append(row)
    return found, rest


class HeldRows:
    """Pending rows by record id (a commit names ids: a held row's key is not made again); a row added again
    replaces the one held (the last wins, as INSERT OR REPLACE)."""

    def __init__(self, limit: int | None = None):
        self.limit = LIMIT if limit is None else limit
        self.rows: dict[str, Row] = {}
        self.spilled = False
        """Whether rows went to the table this run (past the bound, or all of a run that is not the only origin):
        an id not held is then looked for there, and a new id goes there, where an older row of it may be."""

    def add(self, rows: Iterable[tuple[str, Row]]) -> list[Row]:
        """Hold ROWS ((id, row) each) while there is room; returns the rows that go to the table instead."""
        held = self.rows
        out: list[Row] = []
        if not isinstance(rows, list):
            rows = list(rows)
        if not self.spilled and len(held) + len(rows) <= self.limit:  # room for them all: held in one call
            held.update(rows)
            return out
        for rid, row in rows:
            if rid in held or (not self.spilled and len(held) < self.limit):
                held[rid] = row
            else:
                self.spilled = True
                out.append(row)
        return out

    def take(self, ids: Sequence[str]) -> tuple[list[Row], list[str]]:
        """The held rows of IDS (let go), in key order, and the ids not held."""
        found, rest = pop_rows(self.rows, ids)
        found.sort()
        return found, rest

    def take_all(self) -> list[Row]:
        rows = sorted(self.rows.values())
        self.rows.clear()
        return rows

    def take_by_id(self) -> dict[str, Row]:
        """Every held row by id (let go)."""
        rows, self.rows = self.rows, {}
        return rows

    def clear(self) -> None:
        self.rows.clear()
        self.spilled = False

    def __contains__(self, rid: str) -> bool:
        return rid in self.rows


class Prewritten:
    """The held rows a first index wrote into `committed` ahead of their checkpoints, in a transaction left open
    (`Ledger.prewrite`): those still WAITING for theirs, and those CHECKED (checkpointed since), which are what an
    abandoned pre-write writes again after its rollback."""

    def __init__(self, rows: dict[str, Row]):
        self.waiting = rows
        self.checked: list[Row] = []

    def check(self, ids: Sequence[str]) -> list[str]:
        """Note IDS as checkpointed; returns those that were not pre-written."""
        found, rest = pop_rows(self.waiting, ids)
        self.checked.extend(found)
        return rest

    @property
    def covered(self) -> bool:
        """Whether every pre-written row has been checkpointed."""
        return not self.waiting
