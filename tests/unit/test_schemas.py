import orjson
import pytest
from support.records_factory import chunk, edge, entry, thread

from memdock import schemas
from memdock.resources import schemas_dir
from memdock.validation import SchemaValidator, is_rfc3339_datetime, parse_datetime

ENGINES = ["jsonschema", "jsonschema-rs"]


def test_every_record_type_and_manifest_has_a_versioned_schema():
    names = set(schemas.available())
    assert set(schemas.RECORD_TYPES) | {"manifest", "defs"} <= names
    for name in names:
        raw = orjson.loads((schemas_dir() / f"{name}.schema.json").read_bytes())
        assert raw["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert "/schemas/v1/" in raw["$id"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "value,rfc3339,accepted",
    [
        ("2025-12-09T02:35:37Z", True, True),
        ("2025-12-09t02:35:37.123456+05:30", True, True),
        ("2024-02-29T00:00:00Z", True, True),
        ("2023-02-29T00:00:00Z", False, False),
        ("2025-12-09 02:35:37Z", False, False),
        ("2025-12-09T02:35:37", False, False),
        ("2025-13-01T00:00:00Z", False, False),
        ("2025-12-09T24:00:00Z", False, False),
        ("2016-12-31T23:59:60Z", True, False),  # RFC 3339 allows a leap second; memdock's schema does not
        ("2016-12-31T18:59:60-05:00", True, False),
        ("0000-01-01T00:00:00Z", True, False),  # nor the year 0000
        ("0001-01-01T00:00:00Z", True, True),
        ("2016-12-31T12:00:60Z", False, False),
        ("2025-12-09T02:35:37+24:00", False, False),
        ("9 May 2023", False, False),
    ],
)
def test_datetimes_are_really_checked(engine, value, rfc3339, accepted):
    v = SchemaValidator(engine)
    assert v.is_valid("entry", entry(event_time=value)) is accepted
    assert is_rfc3339_datetime(value) is rfc3339
    if accepted:
        assert parse_datetime(value).tzinfo is not None
    else:
        with pytest.raises(ValueError):
            parse_datetime(value)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_leap_second_is_refused_in_words(engine):
    [issue] = SchemaValidator(engine).issues("entry", entry(event_time="2016-12-31T23:59:60Z"))
    assert issue.path == "$.event_time" and "leap second" in issue.message and "23:59:59" in issue.message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("field", ["position", "start", "end", "token_count"])
def test_stored_integers_are_bounded_to_int64(engine, field):
    v = SchemaValidator(engine)
    assert v.is_valid("chunk", chunk(**{field: 2**63 - 1}))
    assert [i.path for i in v.issues("chunk", chunk(**{field: 2**63}))] == [f"$.{field}"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bad_id", ["", " x", "a b", "-lead", "é", "a\n", "x" * 257])
def test_ids_follow_the_documented_charset(engine, bad_id):
    v = SchemaValidator(engine)
    issues = v.issues("thread", thread(id=bad_id) | {"id": bad_id})
    assert [i.path for i in issues] == ["$.id"]


@pytest.mark.parametrize("engine", ENGINES)
def test_edge_types_enumerated_with_x_prefix_for_custom(engine):
    v = SchemaValidator(engine)
    for t in ["contains", "follows", "replies_to", "references", "mentions", "supersedes", "relates_to", "x-blocks"]:
        assert v.is_valid("edge", edge(type=t)), t
    for t in ["likes", "x-", "X-caps", ""]:
        assert not v.is_valid("edge", edge(type=t)), t


@pytest.mark.parametrize("engine", ENGINES)
def test_strict_types_and_unknown_fields(engine):
    strict, lenient = SchemaValidator(engine), SchemaValidator(engine, lenient=True)
    assert strict.is_valid("chunk", chunk())
    assert not strict.is_valid("chunk", chunk(position="0"))
    assert not strict.is_valid("chunk", chunk(new_field=1))
    assert lenient.is_valid("chunk", chunk(new_field=1))
    assert not lenient.is_valid("chunk", chunk(position="0"))
    missing = chunk()
    del missing["text"]
    assert not strict.is_valid("chunk", missing)


@pytest.mark.parametrize("engine", ENGINES)
def test_non_finite_numbers_are_not_numbers(engine):
    v = SchemaValidator(engine)
    assert v.is_valid("edge", edge(weight=0.5))
    assert not v.is_valid("edge", edge(weight=float("nan")))
    assert not v.is_valid("edge", edge(weight=float("inf")))
