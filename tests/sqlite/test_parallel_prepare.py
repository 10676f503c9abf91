"""sqlite takes parallel writers by merge: with `--parallel N`, N shard jobs embed their chunks at once into a
vector cache in the data dir (`prepare` with params.bundle), then one writer indexes the delta and takes those
vectors instead of embedding again. The store ends as a serial run leaves it, every chunk embedded exactly
once; a failed preparation leaves the store as it was; without embeddings there is nothing to prepare and one
writer indexes, saying why."""

import sqlite3
from pathlib import Path

import pytest
from support.openai_loopback import OpenAILoopback
from support.parallel_helpers import ledger_of
from support.sqlite_helpers import sqlite_backend

from memdock.bundle import BundleReader
from memdock.errors import MemdockError

QUESTIONS = ("thundering herd cache expired", "release planning", "who reviewed the migration")


@pytest.fixture
def server():
    with OpenAILoopback() as s:
        yield s


def config(server) -> dict:
    return {"embedding_provider": "openai", "embedding_model": "hash-64", "embedding_base_url": server.base_url}


def embedded_texts(server) -> int:
    return sum(len(r["input"]) if isinstance(r["input"], list) else 1 for r in server.requests)


def vectors_of(store: Path) -> dict[str, bytes]:
    path = store / "data" / "memory.sqlite"
    if not path.exists():
        return {}
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT c.id, v.vec FROM chunk_vectors v JOIN chunk_rows c ON c.rowid = v.rowid")
        return dict(rows.fetchall())
    finally:
        db.close()


def answers(backend) -> list[list[tuple[str, float]]]:
    return [[(h.id, round(h.score, 6)) for h in backend.query(q, limit=5).hits] for q in QUESTIONS]


def chunk_count(bundle: Path) -> int:
    return BundleReader(bundle).count("chunk")


def test_shards_prepared_at_once_leave_what_a_serial_run_leaves(tmp_path, fixture_chunks, server):
    serial = sqlite_backend(tmp_path / "serial", config=config(server))
    serial.index(fixture_chunks)
    server.requests.clear()

    parallel = sqlite_backend(tmp_path / "parallel", config=config(server))
    result = parallel.index(fixture_chunks, parallel=3)
    chunks = chunk_count(fixture_chunks)
    assert result.details["parallel"] == {
        "mode": "merge",
        "shards": 3,
        "failed": 0,
        "prepared": {"vectors_prepared": chunks, "vectors_cached": 0},
    }
    assert embedded_texts(server) == chunks  # the writer took every vector from the cache
    assert result.details["vectors_added"] == chunks
    assert vectors_of(tmp_path / "parallel") == vectors_of(tmp_path / "serial")
    assert ledger_of(tmp_path / "parallel") == ledger_of(tmp_path / "serial")
    assert answers(parallel) == answers(serial)
    assert not list((tmp_path / "parallel" / "data").glob("vector-cache*"))


def test_a_failed_preparation_leaves_the_store_as_it_was(tmp_path, fixture_chunks, server):
    store = tmp_path / "store"
    server.fail_with = 400
    with pytest.raises(MemdockError) as caught:
        sqlite_backend(store, retries=0, config=config(server)).index(fixture_chunks, parallel=3)
    assert caught.value.details["failed_shards"] == 3
    assert sum(ledger_of(store).values()) == 0 and not vectors_of(store)

    server.fail_with = None
    again = sqlite_backend(store, config=config(server)).index(fixture_chunks, parallel=3)
    assert again.details["parallel"]["shards"] == 3
    assert len(vectors_of(store)) == chunk_count(fixture_chunks)
    assert not list((store / "data").glob("vector-cache*"))


def test_a_stale_cache_is_harmless_and_removed(tmp_path, fixture_chunks, server):
    """Vectors a killed run left in the cache are keyed by the exact text embedded: a vector for any other text
    is never taken."""
    sqlite_backend(tmp_path / "serial", config=config(server)).index(fixture_chunks)
    store = tmp_path / "store"
    b = sqlite_backend(store, config=config(server))
    (b.store.ensure().data_dir).mkdir(parents=True, exist_ok=True)
    cache = sqlite3.connect(store / "data" / "vector-cache.sqlite")
    cache.execute("CREATE TABLE vectors(model TEXT, key BLOB, vec BLOB, PRIMARY KEY (model, key)) WITHOUT ROWID")
    cache.execute("INSERT INTO vectors VALUES ('hash-64', zeroblob(16), zeroblob(256))")
    cache.commit()
    cache.close()
    b.index(fixture_chunks)
    assert vectors_of(store) == vectors_of(tmp_path / "serial")
    assert not list((store / "data").glob("vector-cache*"))


def test_without_embeddings_one_writer_indexes_and_says_why(tmp_path, fixture_chunks):
    result = sqlite_backend(tmp_path / "store").index(fixture_chunks, parallel=3)
    why = result.details["parallel"]
    assert why["mode"] == "merge" and why["shards"] == 1 and "no embeddings" in why["why"]
    assert result.indexed["chunk"] == chunk_count(fixture_chunks)
