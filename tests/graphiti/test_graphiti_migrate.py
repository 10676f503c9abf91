"""A memory moves from sqlite to graphiti and back through the journal (export, index), notes remembered
into sqlite included: the same records travel both ways, and sqlite recalls the same ids after the round trip."""

from pathlib import Path

import pytest
from graphiti_support import backend, gate, model_config

from memdock import Memory
from memdock.bundle import BundleReader
from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

pytestmark = [*gate, pytest.mark.timeout(1200)]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"
QUERIES = ["thundering herd cache expiry", "staging approval checklist", "kites fly on tuesdays"]


def ids(bundle: Path) -> dict[str, set[str]]:
    reader = BundleReader(bundle)
    return {t: {r["id"] for r in reader.records(t)} for t in reader.record_types() if t != "embedding"}


def sqlite(store: Path) -> SubprocessBackend:
    return SubprocessBackend(Registry(use_entry_points=False).get("sqlite"), store, workers=1)


def test_sqlite_to_graphiti_and_back(tmp_path, llm):
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks")
    with sqlite(tmp_path / "sqlite") as b:
        b.index(tmp_path / "chunks")
    with Memory(sqlite(tmp_path / "sqlite")) as m:
        note = m.remember("Kites fly on Tuesdays when the wind allows.", thread="kites", author="ana")
        before = {q: [h.id for h in m.recall(q, limit=5).hits] for q in QUERIES}

    with sqlite(tmp_path / "sqlite") as b:
        b.export(tmp_path / "out-sqlite")
    with backend(tmp_path / "graphiti", model_config(llm.base_url), workers=1) as g:
        g.index(tmp_path / "out-sqlite")
        found = g.call("search_episodes", {"text": "kites tuesdays wind", "limit": 5})["hits"]
        assert note.id in [h["provenance"].get("entry_id") for h in found]
        g.export(tmp_path / "out-graphiti")
    assert ids(tmp_path / "out-graphiti") == ids(tmp_path / "out-sqlite")

    with sqlite(tmp_path / "back") as b:
        b.index(tmp_path / "out-graphiti")
    with Memory(sqlite(tmp_path / "back")) as m:
        after = {q: [h.id for h in m.recall(q, limit=5).hits] for q in QUERIES}
    assert after == before and after[QUERIES[2]]
