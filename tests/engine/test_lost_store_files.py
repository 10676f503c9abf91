"""Which of an adapter's `store_files` say its store is lost (`engine.lost.lost_reason`): the first is in every
store the adapter writes; a later one (tantivy's `chunks`, absent from stores of its first layout) counts once the
ledger has recorded it, missing or made again."""

from __future__ import annotations

from pathlib import Path

from test_store_backend import counted

from memdock.engine.ledger import Ledger
from memdock.engine.lost import lost_reason, record_store_files
from memdock.engine.mock import MockTransport
from memdock.engine.store import Store

FILES = ["index", "chunks"]


def indexed(tmp_path: Path, folders: list[str]) -> tuple[Store, Ledger]:
    """A store holding FOLDERS in its data dir and one committed record."""
    store = Store(tmp_path / "store").ensure()
    for name in folders:
        (store.data_dir / name).mkdir()
    counted(store)
    return store, Ledger(store.ledger_path)


def test_a_later_file_never_recorded_is_not_required(tmp_path: Path) -> None:
    store, ledger = indexed(tmp_path, ["index"])  # a store of a layout before `chunks`
    transport = MockTransport(store_files=FILES)
    assert lost_reason(transport, store, ledger) is None
    record_store_files(transport, store, ledger)  # as after an index
    assert lost_reason(transport, store, ledger) is None


def test_the_first_file_missing_is_lost_whatever_was_recorded(tmp_path: Path) -> None:
    store, ledger = indexed(tmp_path, ["chunks"])
    reason = lost_reason(MockTransport(store_files=FILES), store, ledger)
    assert reason is not None and reason.endswith("index is missing")


def test_a_later_file_recorded_then_lost_or_made_again_is_lost(tmp_path: Path) -> None:
    store, ledger = indexed(tmp_path, FILES)
    transport = MockTransport(store_files=FILES)
    record_store_files(transport, store, ledger)
    assert lost_reason(transport, store, ledger) is None
    chunks = store.data_dir / "chunks"
    chunks.rename(tmp_path / "moved-aside")
    reason = lost_reason(transport, store, ledger)
    assert reason is not None and reason.endswith("chunks is missing")
    chunks.mkdir()  # a read began an empty one
    reason = lost_reason(transport, store, ledger)
    assert reason is not None and "chunks is not the file the indexed records went to" in reason
