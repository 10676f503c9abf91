"""Embeddings through an OpenAI-compatible endpoint on loopback: vectors stored, vector and hybrid ranking,
backfill when embeddings are turned on later, and a failing endpoint reported without its key."""

import socket

import pytest
from support.openai_loopback import OpenAILoopback as EmbeddingServer
from support.sqlite_helpers import sqlite_backend

from memdock.errors import TransientError

KEY = "sk-test-0123456789abcdef"


@pytest.fixture
def server():
    with EmbeddingServer() as s:
        yield s


def config(server):
    return {"embedding_provider": "openai", "embedding_model": "hash-64", "embedding_base_url": server.base_url}


def test_hybrid_ranking_with_an_embedding_endpoint(tmp_path, fixture_chunks, server, monkeypatch):
    monkeypatch.setenv("MEMDOCK_SQLITE_EMBEDDING_API_KEY", KEY)
    b = sqlite_backend(tmp_path / "store", config=config(server))
    result = b.index(fixture_chunks)
    assert result.details["vectors_added"] == result.indexed["chunk"]
    assert b.get_capabilities().has("embeddings")
    assert all(
        r["auth"] == f"Bearer {KEY}" and r["model"] == "hash-64" and r["path"] == "/v1/embeddings"
        for r in server.requests
    )

    hybrid = b.query("thundering herd cache expired", limit=3)
    assert not hybrid.degraded and hybrid.hits[0].extra["mode"] == "hybrid"
    assert "Cache stampede" in hybrid.hits[0].text.split("\n", 1)[0]
    assert hybrid.hits[0].extra["cosine"] > 0 and hybrid.hits[0].extra["bm25"] < 0

    vector = b.query("thundering herd cache expired", limit=3, mode="vector")
    assert vector.hits[0].extra["mode"] == "vector" and "bm25" not in vector.hits[0].extra
    assert all(0 <= h.score <= 1 for h in vector.hits)
    filtered = b.query("cache", limit=10, mode="vector", filters={"roles": ["critic"]}).hits
    assert filtered and {h.extra["role"] for h in filtered} == {"critic"}


def test_turning_embeddings_on_later_backfills_on_prepare(tmp_path, fixture_chunks, server):
    store = tmp_path / "store"
    sqlite_backend(store).index(fixture_chunks)
    assert server.requests == []
    b = sqlite_backend(store, config=config(server))
    prepared = b.prepare()
    assert prepared.details["vectors_added"] == 8
    assert b.query("thundering herd", mode="vector").hits
    assert sqlite_backend(store, config=config(server)).prepare().details["vectors_added"] == 0


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_an_unreachable_endpoint_is_transient_names_it_and_hides_the_key(tmp_path, fixture_chunks, monkeypatch):
    monkeypatch.setenv("MEMDOCK_SQLITE_EMBEDDING_API_KEY", KEY)
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    b = sqlite_backend(
        tmp_path / "store",
        retries=1,
        backoff=0.01,
        config={"embedding_provider": "openai", "embedding_model": "m", "embedding_base_url": url},
    )
    with pytest.raises(TransientError) as info:
        b.index(fixture_chunks)
    assert f"{url}/embeddings unreachable" in info.value.message
    assert len([c for c in b.calls if c.operation == "index"]) == 2, "a transient failure is retried once"
    with pytest.raises(TransientError):
        b.query("cache")
    assert len([c for c in b.calls if c.operation == "query"]) == 2, "a query is retried once"
    for path in (tmp_path / "store").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_an_endpoint_answering_500_is_transient(tmp_path, fixture_chunks, server):
    server.fail_with = 503
    b = sqlite_backend(tmp_path / "store", retries=0, config=config(server))
    with pytest.raises(TransientError, match="HTTP 503"):
        b.index(fixture_chunks)


def test_int8_query_embedding_with_an_endpoint_is_refused_naming_the_field(tmp_path, fixture_chunks, server):
    """Quantising is for a local model: an endpoint's model cannot be, and saying so beats silently ignoring it."""
    b = sqlite_backend(tmp_path / "store", config={**config(server), "embedding_query_int8": True})
    with pytest.raises(Exception, match="embedding_query_int8") as raised:
        b.index(fixture_chunks)
    assert "openai" in str(raised.value)
    assert server.requests == []
