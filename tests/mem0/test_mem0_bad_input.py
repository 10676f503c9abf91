"""Bad input and broken surroundings: an unreachable or stalling model endpoint, an LLM answering something
that is not JSON, and an entry too long to give mem0; each fails clearly and leaves nothing half-written."""

import os
from pathlib import Path

import pytest
from mem0_support import backend, closed_port, gate, model_config, write_bundle
from support.openai_loopback import OpenAILoopback

from memdock.errors import BackendError, InvalidInputError, TransientError

pytestmark = gate

KEY = "sk-test-mem0-5c2e8f11d00d"
ONE = ["Lena repaired the Rotterdam pump station."]


def attempts(b, operation):
    return sum(1 for c in b.calls if c.operation == operation)


def assert_nothing_stored(b):
    checks = b.healthcheck().checks
    assert checks["vectors"] == 0 and "entries_committed" not in checks and checks["memories"] == 0


@pytest.mark.parametrize("failure", ["refused", "timeout"])
def test_model_endpoint_refusing_or_stalling(tmp_path, monkeypatch, extractor, failure):
    monkeypatch.setenv("MEMDOCK_MEM0_LLM_API_KEY", KEY)
    with OpenAILoopback(chat=extractor) as stalling:
        stalling.stall_s = 3.0
        url = f"http://127.0.0.1:{closed_port()}/v1" if failure == "refused" else stalling.base_url
        config = {
            "llm_base_url": url,
            "llm_model": "m",
            "embedding_model": "e",
            "embedding_dim": 64,
            "llm_timeout_s": 0.5,
            "embedding_timeout_s": 0.5,
        }
        b = backend(tmp_path / "store", config)
        with pytest.raises(TransientError) as err:
            b.index(write_bundle(tmp_path / "b", ONE))
        stalling.stall_s = 0
    message = err.value.message
    assert url.rsplit("/v1", 1)[0] in message and "entry:gh-0" in message
    assert ("timed out" in message) == (failure == "timeout")
    assert attempts(b, "index") == 2, (
        "a transient error is retried once, by the runner (the client itself never retries)"
    )
    if failure == "timeout":
        assert len(stalling.requests) == 2, "one request per attempt: the OpenAI client's own retries are off"
        assert stalling.requests[0]["auth"] == f"Bearer {KEY}", "the key travels only to the endpoint"
    assert KEY not in message and KEY not in str(err.value.details)
    assert all(c.redactions == 0 for c in b.calls), "the adapter never printed the key"
    for dirpath, _, files in os.walk(tmp_path / "store"):
        for f in files:
            assert KEY.encode() not in Path(dirpath, f).read_bytes(), f"key found in {f}"


def test_malformed_llm_answer_fails_the_entry_instead_of_losing_it(tmp_path, llm, extractor):
    b = backend(tmp_path / "store", model_config(llm.base_url))
    bundle = write_bundle(tmp_path / "b", ONE)
    extractor.malformed = True
    with pytest.raises(BackendError) as err:
        b.index(bundle)
    message = err.value.message
    assert 'not {"memory"' in message and llm.base_url in message and "entry:gh-0" in message
    assert not err.value.retryable and attempts(b, "index") == 1
    assert_nothing_stored(b)
    extractor.malformed = False
    result = b.index(bundle)
    assert result.details["memories_added"] == 1, "the entry left pending is indexed once the model answers properly"
    assert b.healthcheck().checks["vectors"] == 1


def test_oversized_entry_is_refused_naming_its_place_and_nothing_is_written(tmp_path, llm):
    big = "Sediment core notes. " * 2_000
    b = backend(tmp_path / "store", model_config(llm.base_url))
    with pytest.raises(InvalidInputError) as err:
        b.index(write_bundle(tmp_path / "b", ONE + [big]))
    message = err.value.message
    # write_bundle writes entries in reverse order: the big one (entry:gh-1) is on line 1
    assert (
        "entry-00001.jsonl:1" in message
        and "body" in message
        and "entry:gh-1" in message
        and "max_entry_chars" in message
    )
    assert llm.requests == [], "refused in staging, before any model call"
    assert_nothing_stored(b)
    assert b.query("Rotterdam pump", limit=5).hits == []


def test_missing_model_configuration_is_a_config_error(tmp_path, monkeypatch):
    from memdock.errors import ConfigError

    monkeypatch.delenv("MEMDOCK_MEM0_LLM_API_KEY", raising=False)
    b = backend(tmp_path / "store", {"embedding_base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(ConfigError) as err:
        b.index(write_bundle(tmp_path / "b", ONE))
    assert "llm_base_url" in err.value.message and "infer=false" in err.value.message
