"""The records a lossless backend gives back, filtered by the ledger (`readback.live`), are the journal's live
records as they were sent; a version the backend holds that the ledger did not commit is left out."""

from __future__ import annotations

import json
from pathlib import Path

from memdock.conformance import golden
from memdock.descriptor import AdapterDescriptor
from memdock.engine import readback
from memdock.engine.journal import Journal
from memdock.engine.ledger import Ledger
from memdock.engine.store import Store
from memdock.runner.backend import SubprocessBackend

FAULTY_NONE = Path(__file__).resolve().parents[1] / "adapters" / "faulty-none"


def test_live_read_back_equals_the_journal_and_leaves_out_what_the_ledger_did_not_commit(tmp_path):
    with SubprocessBackend(AdapterDescriptor.load(FAULTY_NONE), Store(tmp_path / "store"), retries=0) as b:
        b.index(golden.write_golden(tmp_path / "golden"))
        assert readback.lossless(b.get_capabilities())
        kept = tmp_path / "store" / "data" / "store.json"
        store = json.loads(kept.read_text())
        store["kept"]["entry:kit-1"][1]["body"] = "a version no run committed"
        kept.write_text(json.dumps(store))
        ledger = Ledger(b.store.ledger_path)
        try:
            journal = {(t, r["id"]): r for t, r, _ in Journal(b.store.journal_path).live(ledger, implied=True)}
            back = {(t, r["id"]): r for t, r in readback.live(b.records(page=5), ledger, batch=4)}
        finally:
            ledger.close()
    assert len(journal) == 39
    assert set(journal) - set(back) == {("entry", "entry:kit-1")}
    assert all(back[k] == journal[k] for k in back)
