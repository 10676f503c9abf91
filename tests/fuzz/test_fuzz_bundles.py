"""Fuzz: a valid chunks bundle, mutated at the byte and at the record level, goes through `validate` and then
`index` on sqlite. Never a traceback; and a bundle that validate accepts is one the adapter indexes."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from fuzz_support import (
    EDGE_INTS,
    EDGE_STRINGS,
    any_json,
    copy_bundle,
    fuzz_settings,
    index_in_process,
    make_chunks_bundle,
    record_files,
    reseal,
)
from hypothesis import given, note
from hypothesis import strategies as st

from memdock.bundle import BundleReader
from memdock.errors import MemdockError
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return make_chunks_bundle(tmp_path_factory.mktemp("fuzz-template"))


TEXT_FIELDS = ["text", "body", "title", "author", "header", "name", "role", "entry_type", "topic", "status"]
ANY_FIELDS = [
    "id",
    "thread_id",
    "entry_id",
    "position",
    "text",
    "body",
    "start",
    "end",
    "token_count",
    "content_hash",
    "event_time",
    "ingestion_time",
    "type",
    "source_id",
    "target_id",
    "name",
    "entity_type",
    "metadata",
    "author",
    "title",
    "header",
]


@st.composite
def record_mutation(draw, files: list[str]) -> dict:
    """One change to one record of one file: a free-text field set to any text, an unknown field added, a field
    set to any JSON value or dropped, the line replaced by another JSON value, duplicated or blanked. The manifest
    is usually resealed, so the change reaches the record checks and, when accepted, the adapter."""
    op = draw(
        st.sampled_from(["text", "text", "text", "extra", "extra", "int", "set", "drop", "line", "duplicate", "blank"])
    )
    if op == "text":
        key, value = draw(st.sampled_from(TEXT_FIELDS)), draw(st.text(max_size=200) | st.sampled_from(EDGE_STRINGS))
    elif op == "extra":
        key, value = draw(st.text(min_size=1, max_size=8)), draw(any_json)
    elif op == "int":
        key, value = (
            draw(st.sampled_from(["position", "start", "end", "token_count"])),
            draw(st.integers(min_value=-5, max_value=10**6) | st.sampled_from(EDGE_INTS)),
        )
    else:
        key, value = draw(st.sampled_from(ANY_FIELDS) | st.text(max_size=6)), draw(any_json)
    return {
        "op": "set" if op in ("text", "extra", "int") else op,
        "file": draw(st.sampled_from(files)),
        "line": draw(st.integers(min_value=0, max_value=40)),
        "key": key,
        "value": value,
        "reseal": draw(st.sampled_from([True, True, True, False])),
    }


file_names = st.integers(min_value=1, max_value=6000).map(lambda n: "x" * n + ".jsonl")


@st.composite
def manifest_mutation(draw) -> dict:
    path = draw(
        st.sampled_from(
            [
                ("kind",),
                ("memory_payload_version",),
                ("files",),
                ("files", 0, "path"),
                ("files", 0, "path"),
                ("files", 0, "count"),
                ("files", 0, "bytes"),
                ("files", 0, "record_type"),
                ("files", 0, "sha256"),
                ("files", 0, "part"),
                ("files", 0, "format"),
                ("chunker",),
                ("producer",),
                ("created",),
                ("extra",),
            ]
        )
    )
    value = draw(file_names | any_json if path[-1] == "path" else any_json)
    return {"op": "manifest", "path": path, "value": value}


@st.composite
def byte_mutation(draw, files: list[str]) -> dict:
    return {
        "op": "bytes",
        "file": draw(st.sampled_from(files + ["manifest.json"])),
        "kind": draw(st.sampled_from(["flip", "insert", "delete", "truncate"])),
        "at": draw(st.floats(min_value=0, max_value=1)),
        "data": draw(st.binary(min_size=1, max_size=12)),
        "reseal": draw(st.booleans()),
    }


def apply(bundle: Path, m: dict) -> None:
    """Apply mutation M; a record-level change to a file an earlier byte-level change broke is left out."""
    try:
        _apply(bundle, m)
    except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError):
        pass


def _apply(bundle: Path, m: dict) -> None:
    if m["op"] == "manifest":
        path = bundle / "manifest.json"
        manifest = json.loads(path.read_text())
        target, *rest = m["path"]
        holder = manifest
        keys = [target, *rest]
        for k in keys[:-1]:
            holder = holder[k]
        holder[keys[-1]] = m["value"]
        path.write_text(json.dumps(manifest))
        return
    path = bundle / m["file"]
    raw = path.read_bytes()
    if m["op"] == "bytes":
        at = int(m["at"] * len(raw))
        if m["kind"] == "flip" and raw:
            at = min(at, len(raw) - 1)
            raw = raw[:at] + bytes([raw[at] ^ m["data"][0]]) + raw[at + 1 :]
        elif m["kind"] == "insert":
            raw = raw[:at] + m["data"] + raw[at:]
        elif m["kind"] == "delete":
            raw = raw[:at] + raw[at + len(m["data"]) :]
        else:
            raw = raw[:at]
        path.write_bytes(raw)
    else:
        lines = raw.decode().splitlines()
        i = m["line"] % len(lines)
        if m["op"] in ("set", "drop"):
            rec = json.loads(lines[i])
            if m["op"] == "set":
                rec[m["key"]] = m["value"]
            else:
                rec.pop(m["key"], None)
            lines[i] = json.dumps(rec, ensure_ascii=False)
        elif m["op"] == "line":
            lines[i] = json.dumps(m["value"], ensure_ascii=False)
        elif m["op"] == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i] = ""
        path.write_text("".join(line + "\n" for line in lines))
    if m.get("reseal"):
        reseal(bundle)


def mutated(template: Path, dest: Path, changes: list[dict]) -> Path:
    """A copy of TEMPLATE at DEST with CHANGES applied (each noted for hypothesis' report)."""
    bundle = copy_bundle(template, dest)
    for m in changes:
        note(repr(m)[:500])
        apply(bundle, m)
    return bundle


def verdict(bundle: Path) -> list[str]:
    """What `memdock validate` reports: every problem, or none. Anything but a MemdockError escapes the test."""
    try:
        return [str(e) for e in BundleReader(bundle).verify()]
    except MemdockError as exc:
        return [str(exc)]


def mutations(template: Path) -> st.SearchStrategy:
    files = [p.name for p in record_files(template)]
    one = st.one_of(
        record_mutation(files),
        record_mutation(files),
        record_mutation(files),
        manifest_mutation(),
        byte_mutation(files),
    )
    return st.lists(one, min_size=1, max_size=3)


def test_mutated_bundles_are_refused_by_name_or_indexed(template):
    seen = {"accepted": 0, "refused": 0}

    @fuzz_settings(120)
    @given(changes=mutations(template))
    def check(changes):
        work = Path(tempfile.mkdtemp(prefix="memdock-fuzz-"))
        try:
            bundle = mutated(template, work / "b", changes)
            problems = verdict(bundle)
            if problems:
                seen["refused"] += 1
                assert all(p.strip() for p in problems)
                return
            response = index_in_process(bundle, work / "data", work / "work")
            assert response["ok"], f"validate accepted the bundle, the adapter refused it: {response['error']}"
            seen["accepted"] += 1
        finally:
            shutil.rmtree(work, ignore_errors=True)

    check()
    print(f"bundle fuzz: {seen}")
    assert seen["refused"] and seen["accepted"], "the mutations reached both verdicts"


def test_mutated_bundles_through_the_real_runner(template, tmp_path):
    """Fewer examples, each through SubprocessBackend (the ledger, the delta, an adapter process)."""
    seen = {"accepted": 0, "refused": 0}

    @fuzz_settings(12)
    @given(changes=mutations(template))
    def check(changes):
        work = Path(tempfile.mkdtemp(prefix="memdock-fuzz-", dir=tmp_path))
        try:
            bundle = mutated(template, work / "b", changes)
            problems = verdict(bundle)
            with SubprocessBackend(Registry().get("sqlite"), work / "store") as backend:
                if problems:
                    seen["refused"] += 1
                    try:
                        backend.index(bundle)
                    except MemdockError:
                        pass
                    return
                seen["accepted"] += 1
                backend.index(bundle)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    check()
    print(f"runner fuzz: {seen}")
