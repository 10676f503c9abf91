"""Fuzz: the Python API (Memory, AsyncMemory) with generated arguments, on a real sqlite store. Every call
answers with a result, or raises InvalidInputError; never another exception, and never a degraded answer
(sqlite can do everything, so a degraded answer would be a caller's bug turned into an empty result)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from fuzz_support import fuzz_settings, make_chunks_bundle, python_values
from hypothesis import given, note
from hypothesis import strategies as st

from memdock import AsyncMemory, Memory
from memdock.contract import DeleteResult, GetResult, SearchResult
from memdock.errors import InvalidInputError
from memdock.service import Remembered

pytestmark = pytest.mark.fuzz

plausible_text = st.one_of(
    st.text(min_size=1, max_size=30),
    st.sampled_from(["cache", "the", "migrate_v2", "ana", "thread:x", "  ", "@bob #42"]),
)
plausible_time = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)).map(datetime.isoformat),
    st.datetimes(timezones=st.just(UTC)),
    st.just("2026-01-20T02:00:00Z"),
)
many = st.lists(plausible_text, max_size=3)


def mixed(plausible):
    """A value of the right shape, or anything at all."""
    return st.one_of(plausible, plausible, plausible, python_values, st.none())


def call_strategies(arg):
    reads = st.one_of(
        st.tuples(
            st.just("recall"),
            st.fixed_dictionaries(
                {"query": arg(plausible_text)},
                optional={
                    "thread": arg(plausible_text | many),
                    "since": arg(plausible_time),
                    "until": arg(plausible_time),
                    "author": arg(plausible_text | many),
                    "role": arg(plausible_text | many),
                    "type": arg(plausible_text | many),
                    "limit": arg(st.integers(-5, 80)),
                    "mode": arg(st.sampled_from(["auto", "bm25"])),
                },
            ),
        ),
        st.tuples(
            st.sampled_from(["search_nodes", "search_facts", "search_episodes"]),
            st.fixed_dictionaries(
                {"text": arg(plausible_text)}, optional={"limit": arg(st.integers(-5, 80)), "thread": arg(many)}
            ),
        ),
        st.tuples(st.sampled_from(["get_node", "get_edge"]), st.fixed_dictionaries({"node_id": arg(plausible_text)})),
    )
    forget = st.tuples(st.just("forget"), st.fixed_dictionaries({"ids": arg(many | plausible_text)}))
    calls = st.one_of(*[reads] * 12, forget)  # a forget is a write: a process and a lock, 200 times a read's time
    remember = st.tuples(
        st.just("remember"),
        st.fixed_dictionaries(
            {"content": arg(plausible_text)},
            optional={
                "thread": arg(plausible_text),
                "author": arg(plausible_text),
                "role": arg(plausible_text),
                "type": arg(plausible_text),
                "title": arg(plausible_text),
                "time": arg(plausible_time),
            },
        ),
    )
    return calls, remember


_clean_calls, _clean_remember = call_strategies(lambda plausible: plausible)
_mixed_calls, _mixed_remember = call_strategies(mixed)
calls = st.one_of(_clean_calls, _mixed_calls)
remember_calls = st.one_of(_clean_remember, _mixed_remember)


EXPECTED = {
    "recall": SearchResult,
    "search_nodes": SearchResult,
    "search_facts": SearchResult,
    "search_episodes": SearchResult,
    "get_node": GetResult,
    "get_edge": GetResult,
    "forget": DeleteResult,
    "remember": Remembered,
}


def _positional(name: str, kwargs: dict) -> tuple[list, dict]:
    kwargs = dict(kwargs)
    first = {
        "recall": "query",
        "remember": "content",
        "forget": "ids",
        "get_node": "node_id",
        "get_edge": "node_id",
    }.get(name, "text")
    return [kwargs.pop(first)], kwargs


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz-api")
    bundle = make_chunks_bundle(root)
    with Memory(data_dir=root / "store") as m:
        m._core.backend.index(bundle)
    return root / "store"


def check(outcome, name: str) -> str:
    if isinstance(outcome, InvalidInputError):
        assert outcome.message.strip()
        return "refused"
    assert isinstance(outcome, EXPECTED[name]), outcome
    assert not outcome.degraded, outcome.reason
    return "answered"


def drive(store, strategy, examples: int) -> dict[str, int]:
    """Make EXAMPLES generated calls on one Memory; count the answers and the refusals."""
    seen = {"answered": 0, "refused": 0}
    with Memory(data_dir=store, deadline=120) as memory:

        @fuzz_settings(examples)
        @given(call=strategy)
        def run(call):
            name, kwargs = call
            note(f"{name}({kwargs!r})")
            args, kwargs = _positional(name, kwargs)
            try:
                outcome = getattr(memory, name)(*args, **kwargs)
            except InvalidInputError as exc:
                outcome = exc
            seen[check(outcome, name)] += 1

        run()
    return seen


def test_memory_answers_or_refuses(store):
    seen = drive(store, calls, 120)
    print(f"api fuzz (Memory): {seen}")
    assert seen["answered"] and seen["refused"]


def test_remember_answers_or_refuses(store):
    seen = drive(store, remember_calls, 15)
    print(f"api fuzz (remember): {seen}")
    assert seen["refused"]


def test_async_memory_answers_or_refuses(store):
    seen = {"answered": 0, "refused": 0}

    async def one(memory, name, args, kwargs):
        try:
            return await getattr(memory, name)(*args, **kwargs)
        except InvalidInputError as exc:
            return exc

    loop = asyncio.new_event_loop()
    memory = AsyncMemory(data_dir=store, deadline=120)
    try:

        @fuzz_settings(40)
        @given(call=st.one_of(calls, remember_calls.filter(lambda c: not isinstance(c[1]["content"], str))))
        def run(call):
            name, kwargs = call
            note(f"{name}({kwargs!r})")
            args, kwargs = _positional(name, kwargs)
            seen[check(loop.run_until_complete(one(memory, name, args, kwargs)), name)] += 1

        run()
    finally:
        loop.run_until_complete(memory.aclose())
        loop.close()
    print(f"api fuzz (AsyncMemory): {seen}")
    assert seen["answered"] and seen["refused"]
