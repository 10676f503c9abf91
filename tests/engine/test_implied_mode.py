"""The core's implied mode (payload 1.2.0): with an adapter that declares `implied_edges`, `memdock add`'s one pass
sends each entry with its contains/follows/mentions edges implied, and those edges are no records: not in the
journal, not in the ledger. Whatever reads the journal back (`export`, `find_entry`) gets today's records, so an
export is the same whichever mode the store used; an explicit store moved to the implied mode drops its edge rows
without deletes; an input giving one edge both ways is refused; adapters without the feature get today's records."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from pipeline.test_add_equivalence import CORPORA, write_notes

from memdock.bundle import BundleReader, BundleWriter
from memdock.chunking import ChunkOptions
from memdock.engine.backend import StoreBackend
from memdock.engine.ledger import Ledger
from memdock.engine.mock import MemoryAdapter, MockTransport
from memdock.errors import InvalidInputError
from memdock.importers import base
from memdock.importers.onepass import ImportFeed
from memdock.sdk.implied import KEY, KINDS, edge_id
from memdock.shard import shard_bundle

_NOW = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


class _Clock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return _NOW


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "datetime", _Clock)  # the two stores' records then carry the same ingestion_time


def _source(data: Path, tmp: Path, name: str) -> tuple[Path, str]:
    rel, fmt = CORPORA[name]
    return (write_notes(data / rel, tmp / "notes.jsonl") if name == "notes" else data / rel), fmt


def _store(tmp: Path, label: str, implied: bool) -> tuple[StoreBackend, MemoryAdapter]:
    adapter = MemoryAdapter(features={"implied_edges": implied})
    return StoreBackend(MockTransport(adapter), tmp / label), adapter


def _exported(backend: StoreBackend, out: Path) -> dict[str, list[bytes]]:
    backend.export(out)
    reader = BundleReader(out)
    return {t: sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in reader.records(t)) for t in ORDER}


ORDER = ("thread", "entry", "entity", "edge", "chunk")


def _ledger_types(store: Path) -> dict[str, int]:
    ledger = Ledger.reader(store / "ledger.sqlite")
    try:
        out: dict[str, int] = {}
        for rid, _, _, rtype in ledger.records():
            key = rid.split(":")[1] if rtype == "edge" else rtype
            out[key] = out.get(key, 0) + 1
        return out
    finally:
        ledger.close()


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_an_implied_store_keeps_no_structural_edge_and_exports_what_an_explicit_one_does(
    shared_data: Path, tmp_path: Path, name: str
) -> None:
    source, fmt = _source(shared_data, tmp_path, name)
    explicit, plain = _store(tmp_path, "explicit", implied=False)
    implied, deriving = _store(tmp_path, "implied", implied=True)
    before = explicit.index(ImportFeed([source], fmt, ChunkOptions()))
    after = implied.index(ImportFeed([source], fmt, ChunkOptions()))
    assert sum(after.details["sent"].values()) < sum(before.details["sent"].values())
    assert not KINDS & set(_ledger_types(tmp_path / "implied"))
    assert {"contains", "follows"} <= set(_ledger_types(tmp_path / "explicit"))
    held = [rec for rtype, rec in deriving.records.values() if rtype == "edge"]
    assert not [e for e in held if e["type"] in KINDS], "the adapter was sent structural edge records"
    entries = [rec for rtype, rec in deriving.records.values() if rtype == "entry"]
    assert entries and all(KEY in e for e in entries)
    assert not any(KEY in rec for _, rec in plain.records.values())
    assert _exported(implied, tmp_path / "out-implied") == _exported(explicit, tmp_path / "out-explicit")


def test_an_explicit_store_taken_to_the_implied_mode_drops_its_edge_rows_without_deletes(
    shared_data: Path, tmp_path: Path
) -> None:
    source, fmt = _source(shared_data, tmp_path, "irc")
    backend, adapter = _store(tmp_path, "s", implied=False)
    backend.index(ImportFeed([source], fmt, ChunkOptions()))
    want = _exported(backend, tmp_path / "before")
    edges = {i for i, (t, rec) in adapter.records.items() if t == "edge" and rec["type"] in KINDS}
    deleted: list[str] = []
    real = adapter.op_delete
    adapter.op_delete = lambda request: deleted.extend(request.params["ids"]) or real(request)  # type: ignore[method-assign]
    adapter.features["implied_edges"] = True
    backend.get_capabilities(refresh=True)
    result = backend.index(ImportFeed([source], fmt, ChunkOptions()))
    assert result.deleted == 0 and not deleted
    assert not KINDS & set(_ledger_types(tmp_path / "s"))
    assert edges <= set(adapter.records)  # the adapter was not told to delete them: it now derives them
    assert _exported(backend, tmp_path / "after") == want


def _bundle(path: Path, *, with_record: bool) -> Path:
    entry = {"thread_id": "t", "body": "hello @ann", "ingestion_time": "2026-01-01T00:00:00Z"}
    follows = {
        "id": "edge:follows:x",
        "type": "follows",
        "source_id": "e2",
        "target_id": "e1",
        "thread_id": "t",
        "ingestion_time": "2026-01-01T00:00:00Z",
    }
    with BundleWriter(path, "corpus") as w:
        w.write("thread", {"id": "t", "title": "t", "format": "jsonl", "ingestion_time": "2026-01-01T00:00:00Z"})
        w.write("entry", {"id": "e1", "position": 0, **entry, KEY: {}})
        w.write("entry", {"id": "e2", "position": 1, **entry, KEY: {"follows": "e1"}})
        if with_record:
            w.write("edge", {**follows, "id": edge_id("follows", "e2", "e1")})
    return path


@pytest.mark.parametrize("implied", [True, False])
def test_an_edge_given_both_as_a_record_and_implied_is_refused(tmp_path: Path, implied: bool) -> None:
    backend, adapter = _store(tmp_path, "s", implied=implied)
    with pytest.raises(InvalidInputError) as err:
        backend.index(_bundle(tmp_path / "b", with_record=True))
    assert "implied by entry e2" in str(err.value) and "edge:follows:" in str(err.value)
    assert not adapter.records


def test_a_bundle_of_implied_entries_reaches_an_adapter_without_the_feature_as_records(tmp_path: Path) -> None:
    backend, adapter = _store(tmp_path, "s", implied=False)
    bundle = _bundle(tmp_path / "b", with_record=False)
    backend.index(bundle)
    kinds = sorted(rec["type"] for t, rec in adapter.records.values() if t == "edge")
    assert kinds == ["contains", "contains", "follows"]
    assert not any(KEY in rec for _, rec in adapter.records.values())
    deriving, derives = _store(tmp_path, "d", implied=True)
    deriving.index(bundle)
    assert not [1 for t, _ in derives.records.values() if t == "edge"]
    assert sum(KEY in rec for _, rec in derives.records.values()) == 2


def test_a_shard_holds_the_entities_its_implied_entries_mention(tmp_path: Path) -> None:
    now = "2026-01-01T00:00:00Z"
    with BundleWriter(tmp_path / "b", "corpus") as w:
        for k in range(8):
            w.write("thread", {"id": f"t{k}", "title": "t", "format": "jsonl", "ingestion_time": now})
        w.write("entity", {"id": "entity:person:ann", "entity_type": "person", "name": "ann"})
        for k in range(8):
            entry = {"id": f"e{k}", "thread_id": f"t{k}", "position": 0, "body": "hi @ann", "ingestion_time": now}
            w.write("entry", {**entry, KEY: {"mentions": ["entity:person:ann"]}})
    done = shard_bundle(tmp_path / "b", 3, tmp_path / "shards")
    for path in done.paths:
        reader = BundleReader(path)
        if "entry" in reader.record_types():
            assert [e["id"] for e in reader.records("entity")] == ["entity:person:ann"], path
