"""Sealed journal segments: the journal's JSONL files are gzip-compressed as a run writes them (segments of older
runs were compressed in place after the run, `Journal.seal`), and
everything that reads the journal (export, `Memory.list`, forget's rewrite) reads them as it read the plain files.
A seal killed halfway, or stopped by a full disk, leaves a segment that reads the same; a damaged compressed file
is an error naming it."""

import errno
import gzip
from pathlib import Path

import pytest

from memdock import Memory
from memdock.bundle import BundleReader
from memdock.bundle import writer as writer_mod
from memdock.engine import journal as journal_mod
from memdock.engine.journal import Journal
from memdock.errors import InvalidInputError
from memdock.inprocess import InProcessBackend

NOTES = [{"content": f"note {i}: the kite festival moves to pier {i}", "thread": "kites"} for i in range(40)]
SECRET = "The wifi password is hunter2."


def remember(store: Path, notes: list[dict]) -> list[str]:
    with Memory(InProcessBackend.bundled("sqlite", store)) as memory:
        return [r.id for r in memory.remember_many(notes)]


def exported(store: Path, out: Path) -> dict[str, dict]:
    backend = InProcessBackend.bundled("sqlite", store)
    try:
        backend.export(out)
    finally:
        backend.close()
    reader = BundleReader(out)
    assert reader.verify() == []
    return {r["id"]: r for t in reader.record_types() if t != "embedding" for r in reader.records(t)}


def journal_text(store: Path) -> bytes:
    files = list((store / "journal").rglob("*.jsonl")) + list((store / "journal").rglob("*.jsonl.gz"))
    return b"".join(gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes() for f in files)


@pytest.fixture
def seal_everything(monkeypatch):
    monkeypatch.setattr(journal_mod, "SEAL_ABOVE", 0)


def test_a_sealed_journal_exports_what_a_plain_one_does(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_mod, "SEAL_ABOVE", 10**12)
    remember(tmp_path / "plain", NOTES)
    monkeypatch.setattr(journal_mod, "SEAL_ABOVE", 0)
    remember(tmp_path / "sealed", NOTES)

    sealed_files = {p.name for p in (tmp_path / "sealed" / "journal").rglob("*") if p.is_file()}
    assert any(n.endswith(".jsonl.gz") for n in sealed_files) and not any(n.endswith(".jsonl") for n in sealed_files)
    plain, sealed = exported(tmp_path / "plain", tmp_path / "e1"), exported(tmp_path / "sealed", tmp_path / "e2")

    def content(records: dict[str, dict]) -> list[tuple[str, str]]:  # ids and times differ between two remembers
        fields = ("body", "text", "type", "title")
        return sorted((r["id"].split(":")[0], next((r[f] for f in fields if r.get(f)), "")) for r in records.values())

    assert len(plain) == len(sealed) > len(NOTES) and content(plain) == content(sealed)
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "sealed")) as memory:
        assert [e.text for e in memory.list(thread="kites", limit=100)] == [n["content"] for n in NOTES]


def test_forget_takes_the_text_out_of_a_sealed_segment_and_seals_it_again(tmp_path, seal_everything):
    ids = remember(tmp_path / "store", [*NOTES[:5], {"content": SECRET, "thread": "kites"}])
    assert b"hunter2" in journal_text(tmp_path / "store")
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "store")) as memory:
        memory.forget(ids[-1])
    assert b"hunter2" not in journal_text(tmp_path / "store")
    (segment,) = Journal(tmp_path / "store" / "journal").segments()
    assert not list(segment.glob("*.jsonl")) and list(segment.glob("*.jsonl.gz"))
    assert set(exported(tmp_path / "store", tmp_path / "out")) >= set(ids[:5])


def test_a_seal_killed_halfway_reads_the_same_and_is_finished_by_the_next(tmp_path, seal_everything):
    remember(tmp_path / "store", NOTES)
    before = exported(tmp_path / "store", tmp_path / "before")
    (segment,) = Journal(tmp_path / "store" / "journal").segments()
    sealed = sorted(segment.glob("*.jsonl.gz"))
    plain = sealed[0].with_suffix("")
    plain.write_bytes((journal_mod.inflate(segment, tmp_path / "plain") / plain.name).read_bytes())  # killed after
    # the rename, before the unlink: the plain file the manifest describes beside its compressed copy
    stale = segment / f".{sealed[1].name}.tmp-0123456789abcdef"  # killed while compressing
    stale.write_bytes(b"\x1f\x8b half")
    assert exported(tmp_path / "store", tmp_path / "halfway") == before

    Journal(tmp_path / "store" / "journal").seal(segment)
    assert not plain.exists() and not stale.exists()
    assert exported(tmp_path / "store", tmp_path / "after") == before


def test_a_full_disk_while_the_run_writes_its_compressed_segment_fails_it_before_the_backend(
    tmp_path, monkeypatch, caplog
):
    """The journal is compressed as the run writes it (no seal after the run): a full disk there stops the run
    with a disk_full error before the adapter is called, and the store keeps what it had."""
    ids = remember(tmp_path / "store", NOTES[:5])

    def full(self):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer_mod._Part, "_deflate", full)
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "store")) as memory:
        assert all(r.degraded for r in memory.remember_many(NOTES[5:]))
    assert "disk full" in caplog.text and "journal/00000002 while writing a bundle" in caplog.text
    monkeypatch.undo()
    assert len(Journal(tmp_path / "store" / "journal").segments()) == 1
    assert set(exported(tmp_path / "store", tmp_path / "out")) >= set(ids)
    with Memory(InProcessBackend.bundled("sqlite", tmp_path / "store")) as memory:
        assert [e.text for e in memory.list(thread="kites", limit=100)] == [n["content"] for n in NOTES[:5]]


def test_a_damaged_sealed_file_is_an_error_naming_it(tmp_path, seal_everything):
    remember(tmp_path / "store", NOTES)
    (segment,) = Journal(tmp_path / "store" / "journal").segments()
    entries = next(segment.glob("entry-*.jsonl.gz"))
    entries.write_bytes(entries.read_bytes()[:200])
    with pytest.raises(InvalidInputError) as caught:
        exported(tmp_path / "store", tmp_path / "out")
    assert str(entries) in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_a_forget_killed_before_the_journal_rewrite_is_finished_by_the_next_forget(tmp_path, monkeypatch):
    """Issue 33, broken 4: the backend and the ledger had deleted the thread, the journal still held its entries'
    text; forgetting the thread again (now not found) must still take the text out."""
    store = tmp_path / "store"
    remember(store, [*NOTES[:3], {"content": SECRET, "thread": "kites"}])
    rewrite = Journal.forget

    def killed(self, ids):
        raise KeyboardInterrupt  # the run dies here, after the backend and the ledger forgot

    monkeypatch.setattr(Journal, "forget", killed)
    with Memory(InProcessBackend.bundled("sqlite", store)) as memory:
        (thread,) = memory.threads()
        with pytest.raises(KeyboardInterrupt):
            memory.forget(thread)
    monkeypatch.setattr(Journal, "forget", rewrite)
    assert b"hunter2" in journal_text(store)
    with Memory(InProcessBackend.bundled("sqlite", store)) as memory:
        memory.forget(thread)
        assert memory.threads() == {}
    assert b"hunter2" not in journal_text(store) and b"kite festival" not in journal_text(store)
