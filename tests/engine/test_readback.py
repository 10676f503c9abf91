"""read_back (protocol 1.1 `records`): pages followed to the end, and every bad answer refused naming its page and
record; lossless() only for an adapter that lists records, declares lossless and speaks 1.1."""

from __future__ import annotations

from typing import Any

import pytest

from memdock.engine.readback import lossless, read_back
from memdock.errors import BackendError
from memdock.results import Capabilities

THREAD = {"id": "thread:t", "title": "t", "ingestion_time": "2025-01-01T00:00:00Z"}


def entry(i: int) -> dict[str, Any]:
    return {
        "id": f"entry:{i}",
        "thread_id": "thread:t",
        "position": i,
        "body": f"note {i}",
        "ingestion_time": "2025-01-01T00:00:00Z",
    }


def pages(*answers: dict[str, Any]):
    """A `call` answering `records` with ANSWERS in turn, noting the params it was given."""
    asked: list[dict[str, Any]] = []

    def call(op: str, params: dict[str, Any]) -> dict[str, Any]:
        assert op == "records"
        asked.append(params)
        return answers[len(asked) - 1]

    return call, asked


def test_pages_are_followed_by_their_cursor_to_the_last():
    call, asked = pages(
        {"records": [{"type": "thread", "record": THREAD}, {"type": "entry", "record": entry(0)}], "next": "c1"},
        {"records": [{"type": "entry", "record": entry(1)}], "next": None},
    )
    got = list(read_back(call, source="x", page=2))
    assert [(t, r["id"]) for t, r in got] == [("thread", "thread:t"), ("entry", "entry:0"), ("entry", "entry:1")]
    assert asked == [{"limit": 2}, {"limit": 2, "after": "c1"}]


@pytest.mark.parametrize(
    "answers,words",
    [
        (({"records": [{"type": "entry", "record": {"id": "entry:0"}}], "next": None},), "page 1, record 0 (entry"),
        (
            ({"records": [{"type": "entry", "record": {**entry(0), "position": "first"}}], "next": None},),
            "$.position",
        ),
        (
            (
                {"records": [{"type": "entry", "record": entry(0)}], "next": "a"},
                {"records": [{"type": "entry", "record": entry(0)}], "next": None},
            ),
            "page 2, record 0: entry 'entry:0' came twice",
        ),
        (
            (
                {"records": [{"type": "entry", "record": entry(0)}], "next": "a"},
                {"records": [{"type": "entry", "record": entry(1)}], "next": "a"},
            ),
            "page 2 gave the cursor 'a' without moving on",
        ),
        (({"records": [], "next": "a"},), "page 1 gave the cursor 'a' without moving on"),
        (({"records": [{"type": "entry", "record": entry(i)} for i in range(3)], "next": None},), "holds 3 records"),
    ],
    ids=["schema-required", "schema-type", "twice", "stuck-cursor", "empty-page-with-cursor", "over-limit"],
)
def test_a_bad_answer_is_refused_naming_page_and_record(answers, words):
    call, _ = pages(*answers)
    with pytest.raises(BackendError) as caught:
        list(read_back(call, source="adapter-x", page=2))
    assert "adapter-x: records page" in caught.value.message and words in caught.value.message


def caps(ops: list[str], features: dict[str, bool], protocols: list[str]) -> Capabilities:
    return Capabilities("x", "1", protocols, ["1.2.0"], ["capabilities", *ops], features)


@pytest.mark.parametrize(
    "ops,features,protocols,expected",
    [
        (["records"], {"lossless": True}, ["1.1"], True),
        (["records"], {"lossless": True}, ["1.0", "1.3"], True),
        (["records"], {"lossless": False}, ["1.1"], False),
        ([], {"lossless": True}, ["1.1"], False),
        (["records"], {"lossless": True}, ["1.0"], False),
        (["records"], {"lossless": True}, ["2.0"], False),
        (["records"], {}, ["1.1"], False),
    ],
)
def test_lossless_needs_the_operation_the_feature_and_protocol_1_1(ops, features, protocols, expected):
    assert lossless(caps(ops, features, protocols)) is expected
