"""Bad input: an unreachable or misbehaving LLM, a checkout that is missing or at another commit, a huge chunk.
Each fails with an error of the right category that names the place, and loses nothing already committed."""

import os
import sqlite3

import pytest
from leanrag_support import CHECKOUT, backend, gate, model_config

from memdock.conformance import golden
from memdock.errors import BackendError, ConfigError, InvalidInputError, TransientError

pytestmark = [*gate, pytest.mark.timeout(3600)]


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _extracted(store) -> int:
    dbs = list(store.rglob("catalog.sqlite"))
    if not dbs:
        return 0
    with sqlite3.connect(dbs[0]) as con:
        return con.execute("SELECT count(*) FROM extractions").fetchone()[0]


def test_unreachable_llm_is_a_transient_error_naming_the_endpoint(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    b = backend(tmp_path / "store", model_config(url), retries=0)
    with pytest.raises(TransientError) as err:
        b.index(golden.write_golden(tmp_path / "golden"))
    assert url in err.value.message and "extraction of chunk:kit-0" in err.value.message
    assert _extracted(tmp_path / "store") == 0
    health = b.healthcheck()
    assert not health.ok and url in health.message


def test_empty_answers_fail_the_chunk_instead_of_reading_as_nothing_found(tmp_path, llm, fake):
    fake.fail["glean"] = "empty"
    b = backend(tmp_path / "store", model_config(llm.base_url), retries=0)
    with pytest.raises(BackendError) as err:
        b.index(golden.write_golden(tmp_path / "golden"))
    assert "empty text" in err.value.message and "chunk:kit-0" in err.value.message
    assert _extracted(tmp_path / "store") == 0


def test_malformed_aggregation_json_fails_the_rebuild_and_keeps_every_extraction(tmp_path, llm, fake):
    fake.fail["aggregation"] = "malformed"
    bundle = golden.write_golden(tmp_path / "golden")
    b = backend(tmp_path / "store", model_config(llm.base_url), retries=0)
    with pytest.raises(BackendError) as err:
        b.index(bundle)
    assert "aggregation prompt" in err.value.message and "entity_name" in err.value.message
    assert _extracted(tmp_path / "store") == len(golden.ENTRIES)
    asked = fake.calls["entities"]
    fake.fail.clear()
    result = b.index(bundle)  # the threads were not checkpointed: the run is sent again and rebuilds
    assert fake.calls["entities"] == asked, "no chunk is extracted twice"
    assert result.details["graph"]["communities"] >= 1
    assert any(h.provenance.get("entry_id") == "entry:kit-4" for h in b.query("tokenizer emoji unicode", limit=5).hits)


def test_a_checkout_at_another_commit_is_refused(tmp_path, llm):
    other = tmp_path / "LeanRAG"
    for name in (
        "build_graph.py",
        "query_graph.py",
        "_cluster_utils.py",
        "prompt.py",
        "config.yaml",
        "GraphExtraction/chunk.py",
        "GraphExtraction/deal_triple.py",
        "tools/utils.py",
    ):
        (other / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(CHECKOUT / name, other / name)
    (other / ".git").mkdir()
    (other / ".git" / "HEAD").write_text("1" * 40 + "\n")
    b = backend(tmp_path / "store", model_config(llm.base_url, leanrag_path=str(other)))
    with pytest.raises(ConfigError) as err:
        b.index(golden.write_golden(tmp_path / "golden"))
    assert "1" * 40 in err.value.message and "871497778f5c1fd8525fdaf2e1da6237a6921b4b" in err.value.message
    assert "allow_other_commit" in err.value.message


def test_a_missing_checkout_is_a_config_error_naming_the_path(tmp_path, llm):
    gone = tmp_path / "no-LeanRAG-here"
    b = backend(tmp_path / "store", model_config(llm.base_url, leanrag_path=str(gone)))
    with pytest.raises(ConfigError, match="no such directory"):
        b.index(golden.write_golden(tmp_path / "golden"))
    assert not b.healthcheck().ok


def test_a_huge_chunk_is_refused_before_any_model_call(tmp_path, llm, fake):
    from memdock.bundle import BundleWriter
    from memdock.ids import content_hash

    big = "word " * 50_000
    with BundleWriter(tmp_path / "big", "chunks", producer=("test", "1")) as w:
        w.write("thread", {"id": "thread:big", "title": "big", "ingestion_time": golden.T0})
        w.write(
            "chunk",
            {
                "id": "chunk:small",
                "entry_id": "entry:s",
                "thread_id": "thread:big",
                "position": 0,
                "text": "tiny",
                "start": 0,
                "end": 4,
                "token_count": 1,
                "content_hash": content_hash("tiny"),
            },
        )
        w.write(
            "chunk",
            {
                "id": "chunk:big",
                "entry_id": "entry:b",
                "thread_id": "thread:big",
                "position": 0,
                "text": big,
                "start": 0,
                "end": len(big),
                "token_count": 50_000,
                "content_hash": content_hash(big),
            },
        )
    b = backend(tmp_path / "store", model_config(llm.base_url), retries=0)
    with pytest.raises(InvalidInputError) as err:
        b.index(tmp_path / "big")
    assert ":2: text of chunk:big is 250,000 characters" in err.value.message
    assert sum(fake.calls.values()) == 0 and _extracted(tmp_path / "store") == 0
