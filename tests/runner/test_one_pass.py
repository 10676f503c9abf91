"""One pass per index run: a bundle this memdock sealed is trusted by its files' hashes, any other (or one whose files
or manifest changed after sealing) is checked record by record and refused with file:line; the journal is written
compressed in the same pass; a first index hands the adapter the input bundle itself, a later one the delta."""

import hashlib
import json
from pathlib import Path

import orjson
import pytest

from memdock.bundle import BundleReader, BundleWriter
from memdock.bundle.seal import KEY_NAME
from memdock.engine.backend import StoreBackend
from memdock.engine.mock import MockTransport
from memdock.ids import content_hash
from memdock.jsonl import PayloadError
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend


def chunk(i: int, text: str | None = None, *, key: str | None = None, per_thread: int = 10) -> dict:
    """The Ith chunk (id chunk:KEY, by default I), PER_THREAD to a thread."""
    text = text or f"note {i:03d} about apples and pears"
    key = key or f"{i:03d}"
    return {
        "id": f"chunk:{key}",
        "entry_id": f"entry:{key}",
        "thread_id": f"thread:{i // per_thread}",
        "position": 0,
        "text": text,
        "start": 0,
        "end": len(text),
        "token_count": 10,
        "content_hash": content_hash(text),
    }


def write(path: Path, records: list[dict], *, validate: bool = True) -> Path:
    with BundleWriter(path, "chunks", validate=validate) as w:
        for rec in records:
            w.write("chunk", rec)
    return path


def spy(backend: SubprocessBackend) -> list[str]:
    """The bundle each `index` call handed the adapter."""
    seen: list[str] = []
    call = backend.call

    def recording(operation, params=None, **kw):
        if operation == "index":
            seen.append(params["bundle"])
        return call(operation, params, **kw)

    backend.call = recording  # type: ignore[method-assign]
    return seen


def backend(tmp_path: Path) -> SubprocessBackend:
    return SubprocessBackend(Registry().get("sqlite"), tmp_path / "store")


def test_a_first_index_hands_over_the_sealed_input_and_a_later_one_the_compressed_delta(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "0")  # the sealed path (streamed: tests/pipeline/test_bundle_stream.py)
    first = write(tmp_path / "one", [chunk(i) for i in range(30)])
    assert BundleReader(first, trust_seal=True).trusted
    b = backend(tmp_path)
    handed = spy(b)
    assert b.index(first).details["sent"] == {"chunk": 30}
    segment = tmp_path / "store" / "journal" / "00000001"
    assert handed == [str(first.resolve())]
    assert sorted(p.name for p in segment.iterdir()) == ["chunk-00001.jsonl.gz", "manifest.json"]

    second = write(tmp_path / "two", [chunk(i, "kiwis" if i == 7 else None) for i in range(30)])
    again = b.index(second)
    assert again.details["sent"] == {"chunk": 1} and again.skipped == 29
    assert handed[1] == str(tmp_path / "store" / "journal" / "00000002")
    assert [h.id for h in b.query("kiwis").hits] == ["chunk:007"]
    exported = b.export(tmp_path / "out")
    assert exported.counts == {"chunk": 30}
    texts = {r["id"]: r["text"] for r in BundleReader(tmp_path / "out").records("chunk")}
    assert texts["chunk:007"] == "kiwis" and texts["chunk:008"] == chunk(8)["text"]


def _break_line(path: Path, line: int) -> None:
    """Make LINE of PATH schema-invalid without changing its length (token_count 10 -> -1)."""
    lines = path.read_bytes().splitlines(keepends=True)
    assert b'"token_count":10' in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(b'"token_count":10', b'"token_count":-1')
    path.write_bytes(b"".join(lines))


def _refused_at(tmp_path: Path, bundle: Path, line: int) -> None:
    """The engine refuses BUNDLE at LINE before the adapter is handed anything (checked over a MockTransport: no
    adapter process is needed to see that nothing reached one)."""
    assert not BundleReader(bundle, trust_seal=True).trusted
    transport = MockTransport()
    b = StoreBackend(transport, tmp_path / "store")
    with pytest.raises(PayloadError) as err:
        b.index(bundle)
    assert err.value.details.get("file", "").endswith("chunk-00001.jsonl") and err.value.details.get("line") == line
    assert b.counts() == {}
    assert transport.operations() == ["capabilities"]
    assert not list((tmp_path / "store" / "journal").glob("0*"))


def test_a_sealed_bundle_whose_file_no_longer_matches_is_checked_in_full_and_refused_with_its_line(tmp_path):
    bundle = write(tmp_path / "b", [chunk(i) for i in range(20)])
    _break_line(bundle / "chunk-00001.jsonl", 12)
    _refused_at(tmp_path, bundle, 12)


def test_a_bundle_edited_by_hand_after_sealing_manifest_and_all_is_checked_in_full(tmp_path):
    bundle = write(tmp_path / "b", [chunk(i) for i in range(20)])
    part = bundle / "chunk-00001.jsonl"
    _break_line(part, 5)
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"][0]["sha256"] = "sha256:" + hashlib.sha256(part.read_bytes()).hexdigest()
    (bundle / "manifest.json").write_bytes(orjson.dumps(manifest))
    _refused_at(tmp_path, bundle, 5)


def test_only_a_validated_bundle_sealed_with_this_homes_key_is_trusted(tmp_path, monkeypatch):
    assert not BundleReader(write(tmp_path / "plain", [chunk(1)], validate=False), trust_seal=True).trusted
    sealed = write(tmp_path / "sealed", [chunk(1)])
    assert not BundleReader(sealed).trusted  # trusting is the caller's choice
    other = tmp_path / "other-home"
    monkeypatch.setenv("MEMDOCK_HOME", str(other))
    assert not BundleReader(sealed, trust_seal=True).trusted
    assert not (other / KEY_NAME).exists()
    assert BundleReader(write(tmp_path / "resealed", [chunk(1)]), trust_seal=True).trusted
