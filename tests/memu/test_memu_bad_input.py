"""Bad input and broken surroundings: MemU's LLM answering something that is not its extraction XML, stalling,
refusing or failing midway; an entry too long to give MemU. Each fails the entry with a typed error and leaves
nothing of it in MemU's store."""

import pytest
from memu_support import backend, closed_port, gate, model_config, write_bundle
from support.openai_loopback import OpenAILoopback

from memdock.errors import BackendError, InvalidInputError, TransientError

pytestmark = gate

KEY = "sk-test-memu-7a1d0c52e9"
ONE = ["Lena repaired the Rotterdam pump station."]


def attempts(b, operation):
    return sum(1 for c in b.calls if c.operation == operation)


def assert_nothing_stored(b):
    checks = b.healthcheck().checks
    assert checks["items"] == 0 and checks["resources"] == 0, checks
    assert "entries_committed" not in checks and checks["memories"] == 0, checks


def test_malformed_extraction_answer_fails_the_entry_and_stores_nothing(tmp_path, store, llm, stand_in):
    b = backend(store, model_config(llm.base_url))
    bundle = write_bundle(tmp_path / "b", ONE)
    stand_in.malformed = True
    with pytest.raises(BackendError) as err:
        b.index(bundle)
    message = err.value.message
    assert "has no <item> element" in message and llm.base_url in message and "entry:gh-0" in message
    assert "nothing of this entry was stored" in message
    assert not err.value.retryable and attempts(b, "index") == 1
    assert_nothing_stored(b)
    stand_in.malformed = False
    result = b.index(bundle)
    assert result.details["memories_added"] == 1, "the entry left pending is indexed once the model answers properly"
    assert b.healthcheck().checks["items"] == 1


@pytest.mark.parametrize("failure", ["refused", "timeout"])
def test_model_endpoint_refusing_or_stalling(tmp_path, store, monkeypatch, stand_in, failure):
    monkeypatch.setenv("MEMDOCK_MEMU_LLM_API_KEY", KEY)
    with OpenAILoopback(chat=stand_in) as stalling:
        stalling.stall_s = 3.0
        url = f"http://127.0.0.1:{closed_port()}/v1" if failure == "refused" else stalling.base_url
        config = {"llm_base_url": url, "llm_timeout_s": 0.5, "embedding_timeout_s": 0.5}
        b = backend(store, config)
        with pytest.raises(TransientError) as err:
            b.index(write_bundle(tmp_path / "b", ONE))
        stalling.stall_s = 0
    message = err.value.message
    assert url.rsplit("/v1", 1)[0] in message and "entry:gh-0" in message
    assert ("timed out" in message) == (failure == "timeout")
    assert attempts(b, "index") == 2, "a transient error is retried once, by the runner (the client never retries)"
    assert KEY not in message and KEY not in str(err.value.details)
    assert all(c.redactions == 0 for c in b.calls), "the adapter never printed the key"
    assert_nothing_stored(backend(store, {"llm_base_url": url}))


def test_a_failure_after_items_were_stored_leaves_nothing_half_stored(tmp_path, store, stand_in):
    """The category summary call comes after MemU stored the entry's resource, items and category links: its
    failure (here the connection dropped) takes them all back out."""
    with OpenAILoopback(chat=stand_in) as llm:
        b = backend(store, model_config(llm.base_url))
        b.index(write_bundle(tmp_path / "a", ["Ana ordered Quartz sensors for the greenhouse."], prefix="a"))
        before = b.healthcheck().checks
        summaries = stand_in.summaries
        original = stand_in.__call__

        def fail_summaries(body):
            if "Original content:" in "\n".join(str(m.get("content", "")) for m in body["messages"]):
                raise RuntimeError("the loopback drops the connection when its responder raises")
            return original(body)

        llm.chat = fail_summaries
        with pytest.raises(TransientError) as err:
            b.index(write_bundle(tmp_path / "b", ONE, prefix="b"))
        assert "cannot reach the model endpoint" in err.value.message and "entry:b-0" in err.value.message
        after = b.healthcheck().checks
        assert (after["items"], after["resources"], after.get("entries_committed")) == (
            before["items"],
            before["resources"],
            before["entries_committed"],
        )
        hits = b.call("search_nodes", {"text": "Lena Rotterdam pump Ana Quartz", "limit": 10})["hits"]
        assert [h["provenance"]["entry_id"] for h in hits] == ["entry:a-0"]
        assert stand_in.summaries == summaries


def test_oversized_entry_is_refused_naming_its_place_and_nothing_is_written(tmp_path, store, llm):
    big = "Sediment core notes. " * 2_000
    b = backend(store, model_config(llm.base_url))
    with pytest.raises(InvalidInputError) as err:
        b.index(write_bundle(tmp_path / "b", ONE + [big]))
    message = err.value.message
    assert "entry-00001.jsonl:1" in message and "body" in message and "entry:gh-1" in message
    assert "max_entry_chars" in message
    assert llm.requests == [], "refused in staging, before any model call"
    assert_nothing_stored(b)
