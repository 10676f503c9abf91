import hashlib
import re
import signal
import struct
import subprocess
import sys
import time

import orjson
import pytest
from support.records_factory import chunk, edge, entry, thread

from memdock import PAYLOAD_VERSION
from memdock.bundle import BundleReader, BundleWriter, IncompleteBundleError
from memdock.bundle.output import UnsafeOutputError
from memdock.errors import InvalidInputError, VersionError
from memdock.jsonl import PayloadError


def write_bundle(path, n=20, **kw):
    with BundleWriter(path, "corpus", **kw) as w:
        w.write("thread", thread())
        for i in range(n):
            w.write("entry", entry(i))
            w.write("edge", edge(i))
    return path


def rewrite_manifest(path, fn):
    m = orjson.loads((path / "manifest.json").read_bytes())
    fn(m)
    (path / "manifest.json").write_bytes(orjson.dumps(m))


def test_round_trip_counts_and_checksums(tmp_path):
    b = write_bundle(tmp_path / "b")
    r = BundleReader(b)
    assert r.kind == "corpus"
    assert [e["id"] for e in r.records("entry")] == [f"entry:{i}" for i in range(20)]
    assert r.count("edge") == 20
    assert r.verify() == []


def test_parts_split_by_size_and_each_part_readable_alone(tmp_path):
    b = tmp_path / "b"
    with BundleWriter(b, "chunks", part_max_bytes=2000) as w:
        for i in range(50):
            w.write("chunk", chunk(i))
    r = BundleReader(b)
    parts = r.entries("chunk")
    assert len(parts) > 3
    assert [p.part for p in parts] == list(range(1, len(parts) + 1))
    assert sum(len(list(r.read_part(p))) for p in parts) == 50
    assert [c["id"] for c in r.records("chunk")] == [f"chunk:{i}" for i in range(50)]


def test_embeddings_matrix_row_access(tmp_path):
    b = tmp_path / "b"
    with BundleWriter(b, "chunks") as w:
        for i in range(5):
            w.write("chunk", chunk(i))
            w.write_embedding(f"chunk:{i}", [float(i), 0.5, -1.0, 2.0], "test-model")
    r = BundleReader(b)
    m = r.embeddings()
    assert (m.rows, m.dim) == (5, 4)
    assert list(m.row(3)) == [3.0, 0.5, -1.0, 2.0]
    raw = (b / "embedding_matrix.f32").read_bytes()
    assert struct.unpack("<4f", raw[3 * 16 : 4 * 16]) == (3.0, 0.5, -1.0, 2.0)
    assert r.verify() == []


def test_writer_refuses_mismatched_dims_and_nan_vectors(tmp_path):
    with pytest.raises(PayloadError, match="dim"), BundleWriter(tmp_path / "b", "chunks") as w:
        w.write_embedding("c1", [1.0, 2.0], "m")
        w.write_embedding("c2", [1.0, 2.0, 3.0], "m")
    with pytest.raises(PayloadError, match="NaN"), BundleWriter(tmp_path / "c", "chunks") as w:
        w.write_embedding("c1", [1.0, float("nan")], "m")
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_newer_minor_is_read_and_unknown_fields_kept(tmp_path):
    b = tmp_path / "b"
    with BundleWriter(b, "corpus") as w:
        w.write("thread", thread())
    # A 1.3 producer wrote a field this version does not know; rebuild the part and manifest by hand.
    line = orjson.dumps(thread() | {"sentiment": "calm"}) + b"\n"
    part = b / "thread-00001.jsonl"
    part.write_bytes(line)
    import hashlib

    def bump(m):
        m["memory_payload_version"] = "1.3.0"
        m["files"][0].update(bytes=len(line), sha256="sha256:" + hashlib.sha256(line).hexdigest())
        m["future_field"] = True

    rewrite_manifest(b, bump)
    r = BundleReader(b)
    assert r.newer_minor
    (rec,) = list(r.records("thread"))
    assert rec["sentiment"] == "calm"
    assert r.manifest["future_field"] is True


def test_unknown_field_in_same_minor_is_refused(tmp_path):
    with pytest.raises(PayloadError, match="sentiment"), BundleWriter(tmp_path / "b", "corpus") as w:
        w.write("thread", thread(sentiment="calm"))


# ---- bad input -------------------------------------------------------------


def corrupt_part(b, data: bytes, name="entry-00001.jsonl"):
    """Replace a part's bytes and make the manifest agree on size and sha, so the content itself is tested."""
    import hashlib

    (b / name).write_bytes(data)

    def fix(m):
        for f in m["files"]:
            if f["path"] == name:
                f["bytes"] = len(data)
                f["sha256"] = "sha256:" + hashlib.sha256(data).hexdigest()
                f["count"] = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)

    rewrite_manifest(b, fix)


def lines_of(*records):
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def test_truncated_last_line(tmp_path):
    b = write_bundle(tmp_path / "b", n=3)
    data = (b / "entry-00001.jsonl").read_bytes()
    corrupt_part(b, data[:-15])
    with pytest.raises(PayloadError, match=r"entry-00001.jsonl:3: truncated last line"):
        list(BundleReader(b).records("entry"))


def test_invalid_utf8_names_line(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    bad = orjson.dumps(entry(1))[:-2] + b'\xff\xfe"}\n'
    corrupt_part(b, lines_of(entry(0)) + bad)
    with pytest.raises(PayloadError, match=r"entry-00001.jsonl:2: invalid UTF-8"):
        list(BundleReader(b).records("entry"))


def test_line_over_size_limit(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    corrupt_part(b, lines_of(entry(0), entry(1, body="x" * 5000)))
    r = BundleReader(b, max_line_bytes=1000)
    with pytest.raises(PayloadError, match=r"entry-00001.jsonl:2: line longer than the limit of 1000 bytes"):
        list(r.records("entry"))


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_refused_on_read(tmp_path, token):
    b = write_bundle(tmp_path / "b", n=1)
    e = orjson.dumps(edge(0))[:-1] + b',"weight":' + token + b"}\n"
    corrupt_part(b, e, name="edge-00001.jsonl")
    with pytest.raises(PayloadError, match=r"edge-00001.jsonl:1: NaN and Infinity are not valid JSON"):
        list(BundleReader(b).records("edge"))


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_nan_and_infinity_refused_on_write_even_in_metadata(tmp_path, value):
    with pytest.raises(PayloadError, match="id=edge:0"), BundleWriter(tmp_path / "b", "corpus") as w:
        w.write("edge", edge(0, weight=value))
    with pytest.raises(PayloadError, match="NaN or Infinity"), BundleWriter(tmp_path / "c", "corpus") as w:
        w.write("edge", edge(0, metadata={"x": [1, value]}))


def test_duplicate_ids_refused_on_write_and_read(tmp_path):
    with pytest.raises(PayloadError, match="duplicate entry id"), BundleWriter(tmp_path / "w", "corpus") as w:
        w.write("entry", entry(1))
        w.write("entry", entry(1))
    assert not (tmp_path / "w").exists()
    b = write_bundle(tmp_path / "b", n=1)
    corrupt_part(b, lines_of(entry(0), entry(1), entry(0)))
    with pytest.raises(PayloadError, match=r"entry-00001.jsonl:3: id=entry:0: duplicate entry id"):
        list(BundleReader(b).records("entry"))


def test_duplicates_across_parts_are_found(tmp_path):
    b = tmp_path / "b"
    with BundleWriter(b, "corpus", part_max_bytes=100, validate=False) as w:
        for i in range(3):
            w.write("entry", entry(i))
    corrupt_part(b, lines_of(entry(0)), name="entry-00003.jsonl")
    errors = BundleReader(b).verify()
    assert any("entry-00003.jsonl:1" in str(e) and "duplicate" in str(e) for e in errors)


def test_manifest_checksum_mismatch(tmp_path):
    b = write_bundle(tmp_path / "b", n=2)
    data = bytearray((b / "entry-00001.jsonl").read_bytes())
    data[data.index(b"body 1")] = ord("B")
    (b / "entry-00001.jsonl").write_bytes(bytes(data))
    with pytest.raises(PayloadError, match=r"entry-00001.jsonl: sha256 is sha256:[0-9a-f]+, the manifest says"):
        list(BundleReader(b).records("entry"))


def test_manifest_count_mismatch(tmp_path):
    b = write_bundle(tmp_path / "b", n=2)
    rewrite_manifest(b, lambda m: [f.update(count=5) for f in m["files"] if f["record_type"] == "entry"])
    with pytest.raises(PayloadError, match=r"has 2 records, the manifest says 5"):
        list(BundleReader(b).records("entry"))


def test_manifest_size_mismatch(tmp_path):
    b = write_bundle(tmp_path / "b", n=2)
    rewrite_manifest(b, lambda m: [f.update(bytes=f["bytes"] + 1) for f in m["files"] if f["record_type"] == "entry"])
    with pytest.raises(PayloadError, match=r"entry-00001.jsonl: size is \d+ bytes, the manifest says"):
        BundleReader(b)


def test_missing_part_file(tmp_path):
    b = write_bundle(tmp_path / "b", n=2)
    (b / "edge-00001.jsonl").unlink()
    with pytest.raises(PayloadError, match="edge-00001.jsonl: file listed in the manifest is missing"):
        BundleReader(b)


def test_extra_part_file(tmp_path):
    b = write_bundle(tmp_path / "b", n=2)
    (b / "entry-00002.jsonl").write_bytes(lines_of(entry(9)))
    with pytest.raises(PayloadError, match="not listed in the manifest: entry-00002.jsonl"):
        BundleReader(b)


def test_unknown_major_version_names_both(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    rewrite_manifest(b, lambda m: m.update(memory_payload_version="2.0.0"))
    with pytest.raises(VersionError, match=rf"found 2\.0\.0, supported {re.escape(PAYLOAD_VERSION)}"):
        BundleReader(b)


def test_no_manifest_is_incomplete(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    (b / "manifest.json").unlink()
    with pytest.raises(IncompleteBundleError, match="incomplete bundle"):
        BundleReader(b)


def test_exception_inside_writer_leaves_nothing(tmp_path):
    b = tmp_path / "b"
    with pytest.raises(RuntimeError), BundleWriter(b, "corpus") as w:
        w.write("entry", entry(0))
        raise RuntimeError("boom")
    assert not b.exists()


def _kill_writer_midway(tmp_path, b):
    script = f"""
import sys, time
sys.path.insert(0, {str(tmp_path.parent)!r})
from memdock.bundle import BundleWriter
w = BundleWriter({str(b)!r}, "chunks", part_max_bytes=4096)
for i in range(10**7):
    entry = {{"id": f"e{{i}}", "thread_id": "t", "position": i, "body": "x" * 100}}
    w.write("entry", {{**entry, "ingestion_time": "2025-01-01T00:00:00Z"}})
    if i == 500:
        print("ready", flush=True)
"""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"ready"
    time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_writer_killed_midway_leaves_nothing_at_the_output(tmp_path):
    """A new bundle is written beside its output and moved into place when complete; the next writer of that
    output removes the dead writer's staging directory."""
    b = tmp_path / "b"
    _kill_writer_midway(tmp_path, b)
    assert not b.exists()
    [staging] = [p for p in tmp_path.iterdir() if p.name.startswith(".b.partial-")]
    assert any(staging.iterdir()) and not (staging / "manifest.json").exists()
    write_bundle(b, n=1)
    assert BundleReader(b).count("entry") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_writer_killed_in_an_empty_dir_leaves_an_incomplete_bundle_that_force_replaces(tmp_path):
    b = tmp_path / "b"
    b.mkdir()
    _kill_writer_midway(tmp_path, b)
    assert any(b.iterdir())
    assert not (b / "manifest.json").exists()
    with pytest.raises(IncompleteBundleError):
        BundleReader(b)
    with pytest.raises(InvalidInputError, match="not empty"):
        BundleWriter(b, "corpus")
    write_bundle(b, n=2, overwrite=True)
    assert BundleReader(b).count("entry") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_a_manifest_nested_past_the_depth_limit_is_refused_before_anything_is_written(tmp_path):
    deep: dict = {}
    for _ in range(70):
        deep = {"a": deep}
    with pytest.raises(InvalidInputError, match="the manifest .*more than 64 levels deep"):
        BundleWriter(tmp_path / "b", "corpus", metadata=deep)
    assert not (tmp_path / "b").exists()
    write_bundle(tmp_path / "ok", n=1, metadata={"a": {"b": [1]}})
    assert BundleReader(tmp_path / "ok").manifest["metadata"] == {"a": {"b": [1]}}


def test_a_manifest_temp_file_left_by_a_killed_writer_does_not_stop_overwrite(tmp_path):
    """write_atomic names its temp file `.manifest.json.tmp-<16 hex digits>`; the output guard once expected
    decimal digits (a pid), so such a leftover made a complete bundle refuse to be replaced."""
    b = write_bundle(tmp_path / "b", n=1)
    (b / ".manifest.json.tmp-0123456789abcdef").write_bytes(b"{")
    write_bundle(b, n=2, overwrite=True)
    assert BundleReader(b).count("entry") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_writer_refuses_non_empty_dir_and_overwrite_keeps_the_old_bundle_until_the_new_one_is_complete(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    with pytest.raises(InvalidInputError, match="not empty"):
        BundleWriter(b, "corpus")
    w = BundleWriter(b, "corpus", overwrite=True)
    w.write("thread", thread())
    assert BundleReader(b).count("entry") == 1
    w.close()
    assert BundleReader(b).count("thread") == 1 and BundleReader(b).count("entry") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_overwrite_that_fails_midway_leaves_the_old_bundle_whole(tmp_path):
    b = write_bundle(tmp_path / "b", n=3)
    with pytest.raises(RuntimeError), BundleWriter(b, "corpus", overwrite=True) as w:
        w.write("thread", thread())
        raise RuntimeError("boom")
    assert BundleReader(b).count("entry") == 3 and BundleReader(b).verify() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_a_foreign_folder_that_appears_at_the_output_while_writing_is_left_alone(tmp_path):
    b = tmp_path / "b"
    w = BundleWriter(b, "corpus")
    w.write("thread", thread())
    b.mkdir()
    (b / "thesis.docx").write_bytes(b"PK")
    with pytest.raises(UnsafeOutputError, match="'thesis.docx' is not a file memdock writes"):
        w.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]
    assert [p.name for p in b.iterdir()] == ["thesis.docx"]


def test_matrix_size_not_matching_its_index(tmp_path):
    b = tmp_path / "b"
    with BundleWriter(b, "chunks") as w:
        for i in range(3):
            w.write_embedding(f"c{i}", [1.0, 2.0, 3.0], "m")
    m = b / "embedding_matrix.f32"
    m.write_bytes(m.read_bytes()[:-4])

    def fix(man):
        for f in man["files"]:
            if f["path"] == m.name:
                import hashlib

                f["bytes"] = m.stat().st_size
                f["sha256"] = "sha256:" + hashlib.sha256(m.read_bytes()).hexdigest()

    rewrite_manifest(b, fix)
    with pytest.raises(
        PayloadError, match=r"float32 matrix has 32 bytes but its index describes 3 rows of dim 3 \(36 bytes\)"
    ):
        BundleReader(b).embeddings()
    assert any("float32 matrix has 32 bytes" in str(e) for e in BundleReader(b).verify())


def test_schema_error_names_file_line_id_and_path(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    corrupt_part(b, lines_of(entry(0), entry(1, position=-1)))
    with pytest.raises(PayloadError) as ei:
        list(BundleReader(b).records("entry"))
    msg = str(ei.value)
    assert msg.startswith(str(b / "entry-00001.jsonl") + ":2: id=entry:1 $.position: ")
    assert "\n" not in msg


def test_line_that_is_not_an_object(tmp_path):
    b = write_bundle(tmp_path / "b", n=1)
    corrupt_part(b, lines_of(entry(0)) + b"[1, 2]\n")
    with pytest.raises(PayloadError, match=r":2: a record must be a JSON object, found list"):
        list(BundleReader(b).records("entry"))


def test_duplicate_ids_are_caught_after_the_id_set_spills_to_disk(tmp_path, monkeypatch):
    from support.records_factory import chunk

    from memdock.bundle import idset
    from memdock.jsonl import PayloadError

    monkeypatch.setattr(idset, "SPILL_AT", 10)
    with pytest.raises(PayloadError, match="duplicate chunk id"), BundleWriter(tmp_path / "w", "chunks") as w:
        for i in range(40):
            w.write("chunk", chunk(i))
        w.write("chunk", chunk(3))
    assert not (tmp_path / "w").exists() or not any((tmp_path / "w").iterdir())

    with BundleWriter(tmp_path / "ok", "chunks", validate=False) as w:
        for i in range(40):
            w.write("chunk", chunk(i))
    part = tmp_path / "ok" / "chunk-00001.jsonl"
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines + [lines[5]]))
    manifest = tmp_path / "ok" / "manifest.json"
    import hashlib
    import json

    m = json.loads(manifest.read_text())
    for f in m["files"]:
        if f["path"] == part.name:
            f["count"] += 1
            f["bytes"] = part.stat().st_size
            f["sha256"] = "sha256:" + hashlib.sha256(part.read_bytes()).hexdigest()
    manifest.write_text(json.dumps(m))
    with pytest.raises(PayloadError, match=r"chunk-00001.jsonl:41: .*duplicate chunk id"):
        list(BundleReader(tmp_path / "ok").records("chunk"))


def test_id_set_keeps_exact_membership_across_the_spill():
    from memdock.bundle.idset import IdSet

    ids = IdSet(spill_at=100)
    assert all(ids.add(h) for h in range(-150, 150))
    assert len(ids) == 300
    assert not any(ids.add(h) for h in (-150, 0, 99, 100, 149))
    assert ids.add(2**63 - 1) and not ids.add(2**63 - 1)
    ids.close()


def test_id_set_past_the_spill_tells_ids_sharing_a_filter_bit_apart():
    from memdock.bundle import idset

    ids = idset.IdSet(spill_at=10)
    stride = idset.FILTER_BITS  # h and h + stride set the same bit of the filter
    first = [i * 7919 for i in range(3 * idset.BATCH)]
    assert all(ids.add(h) for h in first)
    assert all(ids.add(h + stride) for h in first), "a shared bit is not a repeat"
    assert all(ids.add(h - 5 * stride) for h in first[:50])
    assert not any(ids.add(h) for h in first[::97]), "repeats already in the database"
    assert not any(ids.add(h + stride) for h in first[-20:]), "repeats still waiting in the batch"
    assert not ids.add(first[10] - 5 * stride)
    assert len(ids) == 2 * len(first) + 50
    ids.close()


def test_lines_across_buffer_flushes_and_one_larger_than_the_buffer_are_written_whole_and_in_order(tmp_path):
    """The writer hands lines to a 1 MiB write buffer: lines that straddle a flush, and one longer than the
    buffer itself, reach the part file in order, counted and hashed as written."""
    texts = [f"text {i} " + "x" * (1000 + 37 * i) for i in range(60)]
    texts.insert(30, "y" * (3 << 20))
    texts = texts * 4
    b = tmp_path / "b"
    with BundleWriter(b, "chunks") as w:
        for i, text in enumerate(texts):
            w.write("chunk", chunk(i, text=text))
    r = BundleReader(b)
    assert r.verify() == []
    assert [c["text"] for c in r.records("chunk")] == texts
    part = r.entries("chunk")[0]
    assert part.count == len(texts) and part.bytes == (b / part.path).stat().st_size


def test_a_record_with_many_brackets_but_little_depth_passes_and_one_past_the_limit_fails_both_ways(tmp_path):
    """Counting brackets only clears a line cheaply: a record with more brackets than the depth limit is
    walked, and judged by its real depth, by the writer and by the reader."""
    wide = {"items": [{"k": [i]} for i in range(200)]}
    deep: dict = {}
    for _ in range(64):
        deep = {"a": deep}
    with BundleWriter(tmp_path / "ok", "chunks") as w:
        w.write("chunk", chunk(0, metadata=wide))
    assert next(BundleReader(tmp_path / "ok").records("chunk"))["metadata"] == wide
    with pytest.raises(PayloadError, match="more than 64 levels deep"), BundleWriter(tmp_path / "no", "chunks") as w:
        w.write("chunk", chunk(0, metadata=deep))
    line = orjson.dumps(chunk(0, metadata=deep)) + b"\n"
    part = tmp_path / "ok" / "chunk-00001.jsonl"
    part.write_bytes(line)
    rewrite_manifest(
        tmp_path / "ok",
        lambda m: m["files"][0].update(bytes=len(line), sha256="sha256:" + hashlib.sha256(line).hexdigest()),
    )
    with pytest.raises(PayloadError, match="more than 64 levels deep"):
        list(BundleReader(tmp_path / "ok").records("chunk"))


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("part_max_bytes", [1, 150, 700, 10**9])
def test_lines_written_in_blocks_make_the_parts_line_by_line_writing_makes(tmp_path, compress, part_max_bytes):
    lines = [orjson.dumps(entry(i), option=orjson.OPT_APPEND_NEWLINE) for i in range(40)]
    one, block = tmp_path / "one", tmp_path / "block"
    with BundleWriter(one, "corpus", validate=False, part_max_bytes=part_max_bytes, compress=compress) as w:
        for line in lines:
            w.write_line("entry", line)
    with BundleWriter(block, "corpus", validate=False, part_max_bytes=part_max_bytes, compress=compress) as w:
        w.write_lines("entry", [])
        for start in range(0, len(lines), 7):
            w.write_lines("entry", lines[start : start + 7])

    def files(b):
        return orjson.loads((b / "manifest.json").read_bytes())["files"]

    assert files(block) == files(one)
    assert len(files(one)) == {1: 40, 150: 20, 700: 6, 10**9: 1}[part_max_bytes]
    assert [r["id"] for r in BundleReader(block, sealed=compress).records("entry")] == [
        e["id"] for e in map(orjson.loads, lines)
    ]


def test_a_reader_told_the_records_were_checked_still_checks_each_parts_sha256(tmp_path):
    b = write_bundle(tmp_path / "b", validate=False)
    assert BundleReader(b, validate=False, checked=True).trusted
    part = b / "entry-00001.jsonl"
    data = part.read_bytes()
    part.write_bytes(data.replace(b"entry:3", b"entry:2", 1))  # same size: a duplicate id, a different sha256
    with pytest.raises(PayloadError, match="sha256"):
        list(BundleReader(b, validate=False, checked=True).records("entry"))
    with pytest.raises(PayloadError, match="duplicate"):
        list(BundleReader(b, validate=False).records("entry"))
