"""An adapter checks an input bundle against the schema unless the runner says it verified it (`params.verified`,
exactly true): the runner's delta and shards hold only records it validated on the way in."""

import pytest
from support.records_factory import chunk

from memdock.bundle import BundleWriter
from memdock.jsonl import PayloadError
from memdock.sdk import Context


class Sink:
    def emit(self, event, request_id=None):
        pass


def context(params):
    request = {"operation": "index", "request_id": "r1", "config": {}, "params": params}
    return Context(request, Sink())


@pytest.fixture
def refused_by_the_schema(tmp_path):
    path = tmp_path / "b"
    with BundleWriter(path, "chunks", validate=False) as w:
        w.write("chunk", chunk(0))
        w.write("chunk", chunk(1, event_time="2016-12-31T23:59:60Z"))
    return str(path)


@pytest.mark.parametrize("said", [None, False, "true", 1])
def test_a_bundle_not_verified_by_the_runner_is_checked(refused_by_the_schema, said):
    params = {"bundle": refused_by_the_schema} | ({} if said is None else {"verified": said})
    with pytest.raises(PayloadError, match="leap second"):
        context(params).staged_bundle()
    with pytest.raises(PayloadError, match="leap second"):
        list(context(params).input_bundle().records("chunk"))


def test_a_bundle_the_runner_verified_is_read_without_the_schema_check(refused_by_the_schema):
    ctx = context({"bundle": refused_by_the_schema, "verified": True})
    assert [c["id"] for c in ctx.staged_bundle().records("chunk")] == ["chunk:0", "chunk:1"]
    assert [c["id"] for c in ctx.input_bundle().records("chunk")] == ["chunk:0", "chunk:1"]
    with pytest.raises(PayloadError, match="leap second"):
        list(ctx.input_bundle(validate=True).records("chunk"))


def test_a_verified_bundle_or_one_the_staging_pass_checked_is_not_checked_record_by_record_again(tmp_path):
    """Nesting and duplicate ids were checked where the bundle was verified (or by the staging pass): the read
    that follows skips them, and still checks each part's sha256."""
    path = tmp_path / "b"
    with BundleWriter(path, "chunks") as w:
        w.write("chunk", chunk(0))
        w.write("chunk", chunk(1))
    assert context({"bundle": str(path), "verified": True}).input_bundle().trusted
    assert context({"bundle": str(path)}).staged_bundle().trusted
    assert not context({"bundle": str(path)}).input_bundle().trusted
    part = path / "chunk-00001.jsonl"
    part.write_bytes(part.read_bytes().replace(b"chunk:1", b"chunk:0", 1))
    with pytest.raises(PayloadError, match="duplicate chunk id"):
        context({"bundle": str(path)}).staged_bundle()
    with pytest.raises(PayloadError, match="sha256"):
        list(context({"bundle": str(path), "verified": True}).input_bundle().records("chunk"))
