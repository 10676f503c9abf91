"""A backend store that no longer holds what the ledger says it does, restored from the journal.

The advised recovery for a corrupt store file (the sqlite adapter's `memory.sqlite`) is to move it aside and
index again. The ledger still claims every record then, so without this check `index` would send nothing and
the store would stay empty. An adapter names the files that hold its store (adapter.json `store_files`,
relative to its data dir; the first is in every store it writes, a later one may be absent from a store an older
layout wrote); after each index the ledger records which file (device, inode) each one is. When the first is
missing, or a later one the ledger recorded is, or one is another file than the one recorded (moved aside and
made again by a later call), the store is taken as lost: every live record of the journal is sent to the
backend again, the ledger drops its claim on records the journal cannot give back (indexed before the store kept
a journal, so their sources must be read again), and the source-file states are cleared so the next `add` reads
every file. A restore killed midway is noted in the ledger and done again by the next index.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bundle import BundleReader
from ..contract import SearchResult
from .journal import Journal
from .ledger import Ledger
from .store import Store
from .transport import Transport

_RESTORING = ""  # the row a restore under way leaves until it has finished


def lost_reason(transport: Transport, store: Store, ledger: Ledger) -> str | None:
    """Why the backend's store cannot hold what LEDGER claims, or None when nothing says so."""
    names = transport.store_files
    if not names or ledger.empty():
        return None
    recorded = ledger.store_files()
    if _RESTORING in recorded:
        return "an earlier restore of the store did not finish"
    for i, name in enumerate(names):
        path = store.data_dir / name
        try:
            st = os.stat(path)
        except FileNotFoundError:
            if i == 0 or name in recorded:  # a later file counts once recorded: older stores may not have it
                return f"{path} is missing"
            continue
        if name in recorded and recorded[name] != (st.st_dev, st.st_ino):
            return f"{path} is not the file the indexed records went to (it was moved or made again)"
    return None


def record_store_files(
    transport: Transport,
    store: Store,
    ledger: Ledger,
    details: dict[str, Any] | None = None,
    restored: dict[str, Any] | None = None,
) -> None:
    """Note which files hold the store now that a write has reached them; a restore this run did goes into
    DETAILS (an index result's) as `restored`."""
    if details is not None and restored is not None:
        details["restored"] = restored
    names = transport.store_files
    if not names:
        return
    rows = []
    for name in names:
        try:
            st = os.stat(store.data_dir / name)
        except FileNotFoundError:
            continue
        rows.append((name, st.st_dev, st.st_ino))
    ledger.set_store_files(rows)


def _keep_only(ledger: Ledger, bundle: Path) -> int:
    """Drop the ledger's claim on every record BUNDLE does not hold and note a restore under way; returns how many
    records were dropped."""
    reader = BundleReader(bundle)
    ids = (r["id"] for rtype in reader.record_types() for r in reader.records(rtype))
    return ledger.keep_only(ids, [(_RESTORING, 0, 0)])


def restore_if_lost(
    transport: Transport,
    store: Store,
    ledger: Ledger,
    send: Callable[[Path], Any],
) -> dict[str, Any] | None:
    """When the backend's store is lost (see the module doc), send the journal's live records through SEND and
    return what was done (`reason`, `records` sent again, `not_in_journal`); else None."""
    reason = lost_reason(transport, store, ledger)
    if reason is None:
        return None
    out = store.work_root / f"restore-{uuid.uuid4().hex[:8]}"
    try:
        exported = Journal(store.journal_path).export(ledger, out, implied=True)
        dropped = _keep_only(ledger, out)
        sent = sum(exported.counts.values())
        if sent:
            send(out)
        record_store_files(transport, store, ledger)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"reason": reason, "records": sent, "not_in_journal": dropped}


def lost_for_reading(transport: Transport, store: Store) -> bool:
    """True when the store is lost (see `lost_reason`), checked without writing: a re-add then reads every file."""
    if not transport.store_files or not store.ledger_path.exists():
        return False
    try:
        ledger = Ledger.reader(store.ledger_path)
    except sqlite3.Error:
        return False
    try:
        return lost_reason(transport, store, ledger) is not None
    except sqlite3.Error:
        return False
    finally:
        ledger.close()


def said_if_lost(transport: Transport, store: Store, result: SearchResult) -> SearchResult:
    """RESULT, marked degraded with the reason and the cure when it found nothing in a lost store: `no results`
    would hide that the memory is still in the journal."""
    if result.hits or not lost_for_reading(transport, store):
        return result
    result.degraded = True
    result.reason = (
        f"the backend's store at {store.data_dir} does not hold what the ledger says it does ({transport.name}'s "
        "files are missing or were made again); run `memdock add` or `memdock index` on any source to restore it "
        "from the store's journal"
    )
    return result
