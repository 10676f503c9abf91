"""What the parallel indexing tests share: a test adapter that takes parallel writers (tests/adapters/shared-store),
what it stored and was sent, the ledger's counts."""

import sqlite3
from pathlib import Path

from memdock.bundle import BundleReader
from memdock.engine.ledger import Ledger
from memdock.registry import AdapterDescriptor
from memdock.runner.backend import SubprocessBackend

SHARED = Path(__file__).resolve().parents[1] / "adapters" / "shared-store"


def shared(store: Path, **config) -> SubprocessBackend:
    return SubprocessBackend(AdapterDescriptor.load(SHARED), store, config=config, retries=0)


def stored(store: Path) -> tuple[dict[str, str], list[tuple[str, int]]]:
    db = sqlite3.connect(store / "data" / "store.sqlite")
    try:
        return dict(db.execute("SELECT id, type FROM records")), db.execute("SELECT id, pid FROM sends").fetchall()
    finally:
        db.close()


def ledger_of(store: Path) -> dict[str, int]:
    ledger = Ledger.reader(store / "ledger.sqlite")
    try:
        return ledger.counts_by_type()
    finally:
        ledger.close()


def bundle_ids(bundle: Path) -> dict[str, str]:
    reader = BundleReader(bundle)
    return {rec["id"]: rtype for rtype in reader.record_types() for rec in reader.records(rtype)}
