"""Wrong types and out-of-range values at every front door (Memory, AsyncMemory, the MCP tools) are an
InvalidInputError, or a tool error, naming the argument: never AttributeError, OverflowError, TypeError or
UnicodeEncodeError from deeper down, and never a degraded answer that hides the caller's bug."""

import asyncio
from datetime import date

import pytest

from memdock import AsyncMemory, Memory
from memdock.errors import InvalidInputError

# (call, the words the error must contain)
CASES = [
    (lambda m: m.remember("a note", thread=123), "thread must be a string, got int"),
    (lambda m: m.remember("a note", time=12345), "time must be an ISO 8601 string or a datetime, got int"),
    (lambda m: m.remember("a note", time=date(2025, 1, 1)), "time must be an ISO 8601 string or a datetime, got date"),
    (lambda m: m.remember("a note", time="0001-01-01T00:00:00+14:00"), "time 0001-01-01T00:00:00+14:00 is outside"),
    (lambda m: m.remember("a note", time="9999-12-31T23:00:00-14:00"), "time 9999-12-31T23:00:00-14:00 is outside"),
    (lambda m: m.remember("lone \ud800 surrogate"), "content has a lone surrogate (U+D800) at character 5"),
    (lambda m: m.remember("a note", author="\udfff"), "author has a lone surrogate"),
    (lambda m: m.remember(b"some bytes"), "content must be a string, got bytes"),
    (lambda m: m.remember(None), "content must be a string, got NoneType"),
    (lambda m: m.remember("a note", thread="thread:has spaces"), "thread 'thread:has spaces' starts with 'thread:'"),
    (lambda m: m.remember("é" * 2_600_000), "content is 5200000 bytes of UTF-8; remember takes at most 5000000"),
    (lambda m: m.recall("zebra", limit=float("inf")), "limit must be an integer from 1 to 1,000, got inf"),
    (lambda m: m.recall("zebra", limit=float("nan")), "limit must be an integer from 1 to 1,000, got nan"),
    (lambda m: m.recall("zebra", limit=True), "limit must be an integer from 1 to 1,000, got True"),
    (lambda m: m.recall("zebra", limit=[3]), "limit must be an integer from 1 to 1,000, got [3]"),
    (lambda m: m.recall("zebra\ud800"), "query has a lone surrogate (U+D800) at character 5"),
    (lambda m: m.recall(b"zebra"), "query must be a string, got bytes"),
    (lambda m: m.recall("zebra", since=5), "since must be an ISO 8601 string or a datetime, got int 5"),
    (lambda m: m.recall("zebra", until="next week"), "until 'next week' is not an ISO 8601 date-time"),
    (lambda m: m.recall("zebra", thread=7), "thread must be a string or a list of strings, got int"),
    (lambda m: m.recall("zebra", author=[1]), "author must be a string, got int"),
    (lambda m: m.recall("zebra", mode="fuzzy"), "mode must be one of auto, bm25, vector, hybrid"),
    (lambda m: m.forget(42), "ids must be a string or a list of strings, got int"),
    (lambda m: m.forget([b"entry:x"]), "ids must be a string, got bytes"),
    (lambda m: m.get_node(17), "id must be a string, got int"),
    (lambda m: m.search_nodes("x", thread=5), "thread must be a string or a list of strings, got int"),
    (lambda m: m.search_facts("x", thread=["infra", " "]), "thread is empty"),
    (lambda m: m.recall("zebra", thread=[""]), "thread is empty"),
    (lambda m: m.remember_many([{"content": "ok"}, 3]), "items[1] must be a string or a mapping"),
    (lambda m: m.remember_many([{"content": "ok", "colour": "red"}]), "items[0] has unknown key(s) ['colour']"),
    (lambda m: m.remember_many([{"thread": "infra"}]), "items[0] has no 'content'"),
    (lambda m: m.remember_many(["ok", {"content": "x", "time": "soon"}]), "items[1] time 'soon' is not an ISO 8601"),
]


def _ids(case):
    return case[1][:40]


@pytest.fixture(scope="module")
def memory(sqlite_store):
    with Memory(data_dir=sqlite_store) as m:
        yield m


@pytest.mark.parametrize("call,words", CASES, ids=[_ids(c) for c in CASES])
def test_memory_refuses_naming_the_argument(memory, call, words):
    with pytest.raises(InvalidInputError) as caught:
        call(memory)
    assert words in caught.value.message
    assert memory._core.backend.calls == [], "refused before any backend call"


@pytest.mark.parametrize("call,words", CASES, ids=[_ids(c) for c in CASES])
def test_async_memory_refuses_naming_the_argument(sqlite_store, call, words):
    async def scenario():
        async with AsyncMemory(data_dir=sqlite_store) as m:
            with pytest.raises(InvalidInputError) as caught:
                await call(m)
            return caught.value.message, m.service.core.backend.calls

    message, calls = asyncio.run(scenario())
    assert words in message and calls == []


def test_since_as_a_datetime_or_a_string_still_filters(memory):
    everything = memory.recall("the", limit=50).hits
    assert everything
    assert memory.recall("the", since="2999-01-01", limit=50).hits == []
    assert len(memory.recall("the", since="1970-01-01T00:00:00Z", limit=50).hits) == len(everything)


def test_remember_before_1970_and_at_year_one_are_stored(tmp_path):
    with Memory(data_dir=tmp_path / "store") as m:
        old = m.remember("The first ledger was opened by the guild.", time="0001-01-01T00:00:00Z", thread="history")
        older = m.remember(
            "The guild hall burned down in the great fire.", time="1666-09-02T01:00:00+01:00", thread="history"
        )
        assert not old.degraded and not older.degraded
        hits = m.recall("guild ledger", thread="history").hits
        assert {h.provenance["entry_id"] for h in hits} == {old.id, older.id}


def test_async_recall_passes_its_limit_to_the_backend(sqlite_store):
    """MemoryService once took a search's `limit` as its own deadline: every async search returned 10 hits."""

    async def scenario():
        async with AsyncMemory(data_dir=sqlite_store) as m:
            return len((await m.recall("the", limit=2)).hits), len((await m.search_facts("mentions", limit=3)).hits)

    assert asyncio.run(scenario()) == (2, 3)
