"""What `validate` accepts, the sqlite adapter indexes; what it refuses, `index` refuses before writing anything.

Each bad record sits behind good ones, with batches of two, so a run that wrote as it read would have
committed earlier batches before failing. The bundles are written by hand (the writer refuses them too).
"""

import hashlib
import os
import sqlite3
import subprocess
from pathlib import Path

import orjson
import pytest
from support.cli import run_memdock
from support.records_factory import chunk

from memdock.engine.ledger import Ledger
from memdock.errors import InvalidInputError
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

GOOD = 6
DEEP_METADATA = b'{"a":' * 300 + b"1" + b"}" * 300


def raw_bundle(path: Path, lines: list[bytes]) -> Path:
    """A chunks bundle of exactly LINES, with a manifest that lists them truthfully."""
    path.mkdir(parents=True)
    data = b"".join(line + b"\n" for line in lines)
    (path / "chunk-00001.jsonl").write_bytes(data)
    manifest = {
        "memory_payload_version": "1.0.0",
        "kind": "chunks",
        "producer": {"name": "test", "version": "0"},
        "created_at": "2025-01-01T00:00:00Z",
        "files": [
            {
                "path": "chunk-00001.jsonl",
                "format": "jsonl",
                "record_type": "chunk",
                "count": len(lines),
                "bytes": len(data),
                "sha256": "sha256:" + hashlib.sha256(data).hexdigest(),
                "part": 1,
            }
        ],
    }
    (path / "manifest.json").write_bytes(orjson.dumps(manifest))
    return path


def good_lines(start: int = 0) -> list[bytes]:
    return [orjson.dumps(chunk(i)) for i in range(start, start + GOOD)]


def deep_line() -> bytes:
    rec = orjson.dumps(chunk(99, text="deep"))
    return rec[:-1] + b',"metadata":' + DEEP_METADATA + b"}"


CASES = {
    "deep": (deep_line, "chunk:99", None, "levels deep"),
    "int64": (lambda: orjson.dumps(chunk(99, position=2**63)), "chunk:99", "$.position", "greater than the maximum"),
    # orjson decodes an integer past 2**64 as a float; the bound still holds
    "offset": (
        lambda: orjson.dumps(chunk(99, end=0)).replace(b'"end":0', b'"end":18446744073709551616'),
        "chunk:99",
        "$.end",
        "greater than the maximum",
    ),
    "leap_second": (
        lambda: orjson.dumps(chunk(99, event_time="2016-12-31T23:59:60Z")),
        "chunk:99",
        "$.event_time",
        "leap second",
    ),
}


def memdock(*args: str, home: Path) -> subprocess.CompletedProcess:
    return run_memdock(*args, env={**os.environ, "MEMDOCK_HOME": str(home)})


def store_state(store: Path) -> tuple:
    """What the store holds: the adapter's chunk rows and the ledger's committed ids."""
    db = store / "data" / "memory.sqlite"
    with sqlite3.connect(db) as conn:
        chunks = sorted(r[0] for r in conn.execute("SELECT id FROM chunk_rows"))
    ledger = Ledger.reader(store / "ledger.sqlite")
    try:
        ids = sorted(r[0] for r in ledger.records())
    finally:
        ledger.close()
    return chunks, ids


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_refuses_naming_file_line_and_field(tmp_path, case):
    make, rid, field, reason = CASES[case]
    bundle = raw_bundle(tmp_path / "b", good_lines() + [make()])
    out = memdock("validate", str(bundle), home=tmp_path / "home")
    assert out.returncode == 1, out.stdout + out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith(f"{bundle / 'chunk-00001.jsonl'}:{GOOD + 1}: id={rid}")
    assert reason in first
    if field:
        assert f" {field}: " in first


@pytest.mark.parametrize("case", sorted(CASES))
def test_index_refuses_before_committing_anything(tmp_path, case):
    make, rid, field, reason = CASES[case]
    home, store = tmp_path / "home", tmp_path / "store"
    first = raw_bundle(tmp_path / "first", good_lines(100))
    ok = memdock("index", str(first), "--data-dir", str(store), "-c", "batch_size=2", home=home)
    assert ok.returncode == 0, ok.stderr
    before = store_state(store)
    assert len(before[0]) == GOOD

    bad = raw_bundle(tmp_path / "bad", good_lines() + [make()])
    out = memdock("index", str(bad), "--data-dir", str(store), "-c", "batch_size=2", home=home)
    assert out.returncode == 4, out.stderr  # invalid_input, not a backend failure
    assert f"chunk-00001.jsonl:{GOOD + 1}: id={rid}" in out.stderr and reason in out.stderr
    assert "Traceback" not in out.stderr
    assert store_state(store) == before


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_adapter_itself_refuses_in_staging(tmp_path, case):
    """The bundle goes straight to the adapter, past the core's reader: the adapter's own first pass refuses it
    with file, line, id and field, and its database is as it was."""
    make, rid, field, reason = CASES[case]
    store = tmp_path / "store"
    backend = SubprocessBackend(Registry().get("sqlite"), store, config={"batch_size": 2})
    backend.index(raw_bundle(tmp_path / "first", good_lines(100)))
    db = store / "data" / "memory.sqlite"
    before = store_state(store)

    bad = raw_bundle(tmp_path / "bad", good_lines() + [make()])
    with pytest.raises(InvalidInputError) as err:
        backend.call("index", {"bundle": str(bad)}, use_pool=False)
    details = err.value.details
    assert details["file"].endswith("chunk-00001.jsonl") and details["line"] == GOOD + 1 and details["id"] == rid
    if field:
        assert details["path"] == field
    assert reason in err.value.message
    assert store_state(store) == before
    assert db.exists()


def test_a_deeply_nested_id_is_refused_without_printing_it(tmp_path):
    line = orjson.dumps(chunk(98))[:-1].replace(b'"id":"chunk:98"', b'"id":' + b"[" * 1000 + b"]" * 1000) + b"}"
    bundle = raw_bundle(tmp_path / "b", good_lines() + [line])
    out = memdock("validate", str(bundle), home=tmp_path / "home")
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stdout.startswith(f"{bundle / 'chunk-00001.jsonl'}:{GOOD + 1}: the record nests")


def test_a_leap_second_is_refused_by_the_writer_too(tmp_path):
    from memdock.bundle import BundleWriter
    from memdock.jsonl import PayloadError

    with pytest.raises(PayloadError, match="leap second"), BundleWriter(tmp_path / "b", "chunks") as w:
        w.write("chunk", chunk(0, event_time="2016-12-31T23:59:60Z"))
    assert not (tmp_path / "b").exists()


def test_a_deep_record_is_refused_by_the_writer(tmp_path):
    from memdock.bundle import BundleWriter
    from memdock.jsonl import MAX_DEPTH, PayloadError

    nested: dict = {}
    node = nested
    for _ in range(MAX_DEPTH):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(PayloadError, match="levels deep"), BundleWriter(tmp_path / "b", "chunks") as w:
        w.write("chunk", chunk(0, metadata=nested))
    shallow = {"a": {"b": [1, [2]]}}
    with BundleWriter(tmp_path / "ok", "chunks") as w:
        w.write("chunk", chunk(0, metadata=shallow))


@pytest.mark.parametrize("command", ["validate", "index"])
def test_a_deeply_nested_manifest_is_refused_naming_it(tmp_path, command):
    """jsonschema-rs gives up on a manifest nested about 256 levels deep with a bare ValueError; the depth rule
    records follow applies to the manifest too, before the schema check."""
    bundle = raw_bundle(tmp_path / "b", good_lines())
    manifest = orjson.loads((bundle / "manifest.json").read_bytes())
    (bundle / "manifest.json").write_bytes(
        orjson.dumps(manifest)[:-1] + b',"producer":' + b"[" * 300 + b"]" * 300 + b"}"
    )
    args = [command, str(bundle)] + (["--data-dir", str(tmp_path / "store")] if command == "index" else [])
    out = memdock(*args, home=tmp_path / "home")
    assert out.returncode == {"validate": 1, "index": 4}[command], out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    said = out.stdout if command == "validate" else out.stderr.removeprefix("memdock: error: ")
    assert said.startswith(
        f"{bundle / 'manifest.json'}: the manifest nests objects and arrays more than 64 levels deep"
    )
    assert not (tmp_path / "store" / "data" / "memory.sqlite").exists()
