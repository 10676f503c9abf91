"""Both validation engines must give the same verdict on every record, valid or not."""

import os
import string
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdock import schemas
from memdock.validation import SchemaValidator

pytest.importorskip("jsonschema_rs")

REF = SchemaValidator("jsonschema")
FAST = SchemaValidator("jsonschema-rs")

digits = st.integers(0, 99).map(lambda n: f"{n:02d}")
datetimes = st.one_of(
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    st.builds(
        lambda y, mo, d, h, mi, s, sep, tz: f"{y:04d}-{mo}-{d}{sep}{h}:{mi}:{s}{tz}",
        st.integers(0, 9999),
        digits,
        digits,
        digits,
        digits,
        digits,
        st.sampled_from(["T", "t", " ", "_"]),
        st.sampled_from(["Z", "z", "", "+05:30", "-24:00", "+23:59", "+00:60", ".5Z", ".123+01:00"]),
    ),
    st.sampled_from(
        [
            "2016-12-31T23:59:60Z",
            "2016-12-31t23:59:60.25z",
            "2016-12-31T18:59:60-05:00",
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59-23:59",
        ]
    ),
    st.text(max_size=25),
)
# around the int64 bound the schema puts on stored integers, as Python ints and as the floats orjson decodes
# past 2**64
counts = st.one_of(
    st.integers(-3, 10**6),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70, float(2**64), 9.2e18, -(2**63) - 1]),
)
rfc3339 = st.builds(
    lambda d, minutes: d.replace(tzinfo=timezone(timedelta(minutes=minutes))).isoformat(),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 30)),
    st.integers(-23 * 60, 23 * 60),
)
ids = st.one_of(
    st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.:@/+=~-]{0,40}\Z"),
    st.text(max_size=12),
    st.text(alphabet=string.ascii_letters + "\n -", max_size=6),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    ids,
    datetimes,
)
values = st.recursive(
    scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=6
)

FIELD_VALUES = {
    "id": ids,
    "thread_id": ids,
    "entry_id": ids,
    "chunk_id": ids,
    "source_id": ids,
    "target_id": ids,
    "query_id": ids,
    "event_time": datetimes,
    "ingestion_time": datetimes,
    "created_at": datetimes,
    "position": counts,
    "start": counts,
    "end": counts,
    "token_count": counts,
    "row": counts,
    "source_line": counts,
    "dim": st.integers(-3, 70000),
    "limit": st.integers(-3, 2000),
    "rank": st.one_of(st.integers(-3, 100), counts),
    "type": st.sampled_from(["contains", "follows", "mentions", "x-custom", "x-", "likes", "replies_to"]),
    "kind": st.sampled_from(["chunk", "entry", "node", "fact", "edge", ""]),
    "entity_type": st.sampled_from(["person", "agent", "file", "x-team", "robot"]),
    "content_hash": st.one_of(st.just("sha256:" + "a" * 64), st.text(max_size=10)),
    "score": st.floats(allow_nan=True, allow_infinity=True),
    "weight": st.floats(allow_nan=True, allow_infinity=True),
    "mode": st.sampled_from(["bm25", "hybrid", "fuzzy"]),
}


def record_strategy(name):
    props = schemas.load(name)["properties"]
    field_st = {k: FIELD_VALUES.get(k, st.one_of(st.text(max_size=30), values)) for k in props}
    extra = st.dictionaries(st.sampled_from(["zz", "extra_field"]), values, max_size=1)
    return st.fixed_dictionaries({}, optional=field_st).flatmap(lambda d: extra.map(lambda e: {**d, **e}))


def valid_seed(name):
    from support.records_factory import chunk, edge, entry, thread

    seeds = {
        "thread": thread(),
        "entry": entry(),
        "chunk": chunk(),
        "edge": edge(),
        "embedding": {"chunk_id": "c1", "row": 0, "model": "m", "dim": 384},
        "entity": {"id": "person:ana", "entity_type": "person", "name": "Ana"},
        "query": {"id": "q1", "text": "what"},
        "hit": {"id": "c1", "kind": "chunk", "score": 0.5, "text": "t", "provenance": {}, "backend": "x"},
    }
    return seeds[name]


# 150 generated records per type in the default run (400 took a tenth of the suite); MEMDOCK_PARITY_EXAMPLES
# raises it for a deeper search
@pytest.mark.parametrize("name", schemas.RECORD_TYPES)
@settings(
    max_examples=int(os.environ.get("MEMDOCK_PARITY_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_same_verdict_on_generated_records(name, data):
    seed = valid_seed(name)
    patch = data.draw(record_strategy(name))
    drop = data.draw(st.sets(st.sampled_from(sorted(seed)), max_size=2))
    record = {k: v for k, v in {**seed, **patch}.items() if k not in drop}
    assert REF.is_valid(name, record) == FAST.is_valid(name, record), record


@pytest.mark.parametrize("name", schemas.RECORD_TYPES)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_generated_valid_records_are_valid_in_both(name, data):
    seed = valid_seed(name)
    ok_fields = {
        k: v
        for k, v in {
            "event_time": data.draw(rfc3339),
        }.items()
        if k in schemas.load(name)["properties"]
    }
    record = {**seed, **ok_fields}
    assert REF.is_valid(name, record)
    assert FAST.is_valid(name, record)


def test_fixture_records_same_verdict():
    from support.records_factory import chunk, edge, entry, thread

    for name, rec in [("thread", thread()), ("entry", entry()), ("chunk", chunk()), ("edge", edge())]:
        assert REF.is_valid(name, rec) and FAST.is_valid(name, rec)
